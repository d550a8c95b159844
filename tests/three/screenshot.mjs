// Open a page in headless Chromium (Debian's, driven by playwright-core), wait for window.sqlerp,
// save a screenshot and print {sqlerp, errors} as JSON; where the page draws into a canvas, sqlerp
// also says where the (orange) mesh is on it (armPixels, armCells).
//
//   node tests/three/screenshot.mjs URL OUT.png [WIDTH HEIGHT]
//
// CHROMIUM names the browser (default /usr/bin/chromium); GLTF_SQLERP_VALIDATOR the node_modules
// folder that holds playwright-core (dev.py installs it into .node/). WebGL runs on SwiftShader,
// Chromium's software renderer: there is no GPU here, and the flags below keep Chromium off the
// network the machine does not have.

import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.GLTF_SQLERP_VALIDATOR || path.resolve(here, '..', '..', '.node', 'node_modules');
const { chromium } = createRequire(path.join(modules, 'x.js'))('playwright-core');

const [url, out, width = '960', height = '540'] = process.argv.slice(2);
const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-quic',
		'--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
	const page = await browser.newPage({ viewport: { width: Number(width), height: Number(height) } });
	const errors = [];
	page.on('pageerror', (error) => errors.push(String(error)));
	page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
	await page.goto(url);
	await page.waitForFunction(() => window.sqlerp !== undefined, null, { timeout: 60000 }).catch(() => {});
	const sqlerp = await page.evaluate(() => window.sqlerp ?? null);
	const coverage = await page.evaluate(armCoverage);
	if (sqlerp && coverage) Object.assign(sqlerp, coverage);
	await page.screenshot({ path: out });
	process.stdout.write(JSON.stringify({ sqlerp, errors }));
} finally {
	await browser.close();
}

/**
 * Runs in the page: where the (orange) mesh is on its canvas, the pixel count and which of 16 x 9
 * cells hold any (null without a canvas). The canvas keeps its drawing (preserveDrawingBuffer).
 */
function armCoverage() {
	const source = document.querySelector('canvas');
	if (!source) return null;
	const copy = document.createElement('canvas');
	copy.width = source.width; copy.height = source.height;
	const context = copy.getContext('2d');
	context.drawImage(source, 0, 0);
	const { data } = context.getImageData(0, 0, copy.width, copy.height);
	const cells = new Array(16 * 9).fill(0);
	let armPixels = 0;
	for (let i = 0; i < copy.width * copy.height; i++) {
		const r = data[4 * i], g = data[4 * i + 1], b = data[4 * i + 2];
		if (r > 90 && r > g + 30 && g > b) {
			armPixels++;
			const x = i % copy.width, y = Math.floor(i / copy.width);
			cells[Math.floor(y * 9 / copy.height) * 16 + Math.floor(x * 16 / copy.width)] = 1;
		}
	}
	return { armPixels, armCells: cells };
}
