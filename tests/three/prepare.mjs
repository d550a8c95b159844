// A glTF file as the Node.js players take it (tests/three/play.mjs, tests/babylon/play.mjs): images,
// textures and materials dropped (Node.js has no image decoder, and they do not move nodes), external
// buffers read from the file's folder and handed over as data: URIs.

import fs from 'node:fs';
import path from 'node:path';

const GLB_MAGIC = 0x46546c67, JSON_CHUNK = 0x4e4f534a;

/** The file as a loader's parse takes it: .glb bytes as they are, .gltf text made self-contained. */
export function prepare(file) {
	const bytes = fs.readFileSync(file);
	if (bytes.length >= 12 && bytes.readUInt32LE(0) === GLB_MAGIC) {
		return stripImagesFromGlb(bytes);
	}
	const json = JSON.parse(bytes.toString('utf8'));
	for (const buffer of json.buffers || []) {
		if (buffer.uri && !buffer.uri.startsWith('data:')) {
			const data = fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(buffer.uri)));
			buffer.uri = 'data:application/octet-stream;base64,' + data.toString('base64');
		}
	}
	return JSON.stringify(stripImages(json));
}

function stripImages(json) {
	delete json.images; delete json.textures; delete json.samplers; delete json.materials;
	for (const mesh of json.meshes || []) {
		for (const primitive of mesh.primitives || []) delete primitive.material;
	}
	return json;
}

function stripImagesFromGlb(bytes) {
	// Rewrite the JSON chunk only; the binary chunk stays byte for byte.
	const jsonLength = bytes.readUInt32LE(12);
	if (bytes.readUInt32LE(16) !== JSON_CHUNK) return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
	const json = stripImages(JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8')));
	let text = Buffer.from(JSON.stringify(json), 'utf8');
	text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
	const rest = bytes.subarray(20 + jsonLength);
	const header = Buffer.alloc(20);
	header.writeUInt32LE(GLB_MAGIC, 0); header.writeUInt32LE(2, 4);
	header.writeUInt32LE(20 + text.length + rest.length, 8);
	header.writeUInt32LE(text.length, 12); header.writeUInt32LE(JSON_CHUNK, 16);
	const out = Buffer.concat([header, text, rest]);
	return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
}
