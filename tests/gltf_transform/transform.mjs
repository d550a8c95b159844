// Run glTF-Transform functions on glTF files, with or without viewers/gltf-transform/EXT_animation_sqlerp.js.
//
//   node --import ./tests/gltf_transform/resolve_modules.mjs tests/gltf_transform/transform.mjs JOB.json > OUT.json
//
// JOB.json: [{"input": "in.gltf", "output": "out.gltf", "operation": "copy", "extension": true}, ...]:
// each job reads its input with NodeIO (every extension of @gltf-transform/extensions registered, and
// ours unless "extension" is false), runs the operation with its defaults and writes the output.
// Operations: copy (read and write only), dedup, prune, resample, weld, quantize, and decompress
// (writes EXT_meshopt_compression and KHR_draco_mesh_compression files without the compression, so
// that the add-on's core can read what the CLI's meshopt, draco and optimize wrote).
// OUT.json: one entry per job: {"messages": ["warn: ...", ...]} (what the document's logger said
// at info level and above), or {"error": "..."} when reading, transforming or writing failed.

import fs from 'node:fs';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { dedup, prune, quantize, resample, weld } from '@gltf-transform/functions';
import draco3d from 'draco3dgltf';
import { MeshoptDecoder } from 'meshoptimizer';
import { EXTAnimationSqlerp } from '../../viewers/gltf-transform/EXT_animation_sqlerp.js';

const COMPRESSIONS = ['EXT_meshopt_compression', 'KHR_draco_mesh_compression'];

/** Reading decoded the data; without the extensions the writer stores it plainly. */
function decompress() {
	return (document) => {
		for (const extension of document.getRoot().listExtensionsUsed()) {
			if (COMPRESSIONS.includes(extension.extensionName)) extension.dispose();
		}
	};
}

const OPERATIONS = { copy: null, dedup, prune, resample, weld, quantize, decompress };

/** An ILogger that keeps what it is told, so the test can read the extension's warnings. */
function recordingLogger(messages) {
	const keep = (level) => (text) => messages.push(`${level}: ${text}`);
	return { debug: () => {}, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

async function run(job) {
	if (!(job.operation in OPERATIONS)) return { error: `unknown operation ${job.operation}` };
	const messages = [];
	const extensions = job.extension === false ? ALL_EXTENSIONS : [...ALL_EXTENSIONS, EXTAnimationSqlerp];
	const io = new NodeIO().setLogger(recordingLogger(messages)).registerExtensions(extensions)
		.registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'draco3d.decoder': await draco3d.createDecoderModule() });
	try {
		const document = await io.read(job.input);
		const transform = OPERATIONS[job.operation];
		if (transform) await document.transform(transform());
		await io.write(job.output, document);
	} catch (error) {
		return { error: String(error && error.stack ? error.stack : error), messages };
	}
	return { messages };
}

const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const results = [];
for (const job of jobs) results.push(await run(job));
process.stdout.write(JSON.stringify(results));
