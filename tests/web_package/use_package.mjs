// Run inside a scratch project where the packed ext-animation-sqlerp tarball is installed, as a
// user's project has it: import every entry point of the package's `exports` map by its public name
// and use each once. Prints one JSON object (what tests/web/test_web_package.py checks against the
// add-on's core and hand-worked values):
//
//   node use_package.mjs SAMPLE.glb OUT.glb > result.json
//
// {"entries": {"<specifier>": ["export", ...]}, "three" and "babylon": {"node": 1, "times": [...],
//  "quaternions": [[x, y, z, w], ...], "handWorked": [[x, y, z, w], ...]},
//  "gltfTransform": {"written": "OUT.glb", "extensionChannels": N}}

import fs from 'node:fs';
import { createRequire } from 'node:module';

const [sample, out] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const manifest = JSON.parse(fs.readFileSync(require.resolve('ext-animation-sqlerp/package.json'), 'utf8'));

async function entries() {
	const found = {};
	for (const [subpath, target] of Object.entries(manifest.exports)) {
		if (subpath === './package.json') continue;
		const specifier = 'ext-animation-sqlerp' + subpath.slice(1);
		const module = await import(specifier);
		found[specifier] = Object.keys(module).sort();
		if (typeof target === 'object' && !target.types) throw new Error(`${subpath} has no types`);
	}
	return found;
}

/** The sample's first clip played by three.js with the plugin, and a hand-worked CUBICSLERP track. */
async function three() {
	const { AnimationMixer, LoopOnce } = await import('three');
	const { GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js');
	const { GLTFAnimationSqlerpExtension, cubicSlerpTrack } = await import('ext-animation-sqlerp/three');
	const bytes = fs.readFileSync(sample);
	const loader = new GLTFLoader().register((parser) => new GLTFAnimationSqlerpExtension(parser));
	const gltf = await loader.parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), '');
	const mixer = new AnimationMixer(gltf.scene);
	const action = mixer.clipAction(gltf.animations[0]).setLoop(LoopOnce, 1);
	action.play();
	const node = gltf.scene.getObjectByName(gltf.parser.json.nodes[1].name);
	const times = [0, 0.3, 0.6, 1.25], quaternions = [];
	for (const time of times) {
		action.time = time;
		mixer.update(0);
		quaternions.push(node.quaternion.toArray());
	}
	// Turns about Z: v1 = 0, b1 = a2 = 45, v2 = 90 degrees; the formula gives 30.9375 degrees at u = 1/4.
	const z = (degrees) => [0, 0, Math.sin(degrees * Math.PI / 360), Math.cos(degrees * Math.PI / 360)];
	const track = cubicSlerpTrack('x.quaternion', [0, 1], [z(0), z(0), z(45), z(45), z(90), z(90)].flat());
	const interpolant = track.createInterpolant();
	const handWorked = [0.25, 0.5, 0.75].map((t) => Array.from(interpolant.evaluate(t)));
	return { node: 1, times, quaternions, handWorked };
}

/** The sample's first clip played by Babylon.js (NullEngine) with the extension, and the shared
 * arithmetic of the package's root on the hand-worked keys. */
async function babylon() {
	const { NullEngine } = await import('@babylonjs/core/Engines/nullEngine.js');
	const { Scene } = await import('@babylonjs/core/scene.js');
	const { Logger } = await import('@babylonjs/core/Misc/logger.js');
	const { LoadAssetContainerAsync } = await import('@babylonjs/core/Loading/sceneLoader.js');
	await import('@babylonjs/loaders/glTF/2.0/index.js');
	const { registerSqlerpExtension } = await import('ext-animation-sqlerp/babylon');
	const { cubicSlerpInto, cubicSlerpKeys } = await import('ext-animation-sqlerp');
	Logger.LogLevels = Logger.WarningLogLevel | Logger.ErrorLogLevel;
	registerSqlerpExtension();
	const engine = new NullEngine(), scene = new Scene(engine);
	const container = await LoadAssetContainerAsync(new Uint8Array(fs.readFileSync(sample)), scene,
		{ pluginExtension: '.glb' });
	container.addAllToScene();
	const [group] = container.animationGroups;
	const node = scene.getTransformNodeByName(JSON.parse(readJson(sample)).nodes[1].name);
	const times = [0, 0.3, 0.6, 1.25], quaternions = [];
	group.start(false);
	group.pause();
	for (const time of times) {
		group.goToFrame(time * 60); // the loader's targetFps
		quaternions.push(node.rotationQuaternion.asArray());
	}
	engine.dispose();
	const z = (degrees) => [0, 0, Math.sin(degrees * Math.PI / 360), Math.cos(degrees * Math.PI / 360)];
	const keys = cubicSlerpKeys([z(0), z(0), z(45), z(45), z(90), z(90)].flat());
	const handWorked = [0.25, 0.5, 0.75].map((u) => { const out = [0, 0, 0, 0]; cubicSlerpInto(out, 0, keys, 0, u); return out; });
	return { node: 1, times, quaternions, handWorked };
}

/** The JSON chunk of a .glb. */
function readJson(file) {
	const bytes = fs.readFileSync(file);
	return bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString('utf8');
}

/** The sample read and written by glTF-Transform with the extension registered. */
async function gltfTransform() {
	const { NodeIO } = await import('@gltf-transform/core');
	const { EXTAnimationSqlerp } = await import('ext-animation-sqlerp/gltf-transform');
	const config = (await import('ext-animation-sqlerp/gltf-transform/config')).default;
	const io = new NodeIO().registerExtensions(config.extensions);
	if (!config.extensions.includes(EXTAnimationSqlerp)) throw new Error('the CLI config lacks the extension');
	const document = await io.read(sample);
	const channels = document.getRoot().listAnimations().flatMap((animation) => animation.listChannels());
	await io.write(out, document);
	return { written: out, extensionChannels: channels.filter((c) => c.getExtension('EXT_animation_sqlerp')).length };
}

process.stdout.write(JSON.stringify({
	entries: await entries(), three: await three(), babylon: await babylon(), gltfTransform: await gltfTransform(),
}));
