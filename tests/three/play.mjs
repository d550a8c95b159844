// Play glTF files with three.js and viewers/three/EXT_animation_sqlerp.js; print every node's quaternion.
//
//   node --import ./tests/three/resolve_three.mjs tests/three/play.mjs JOB.json > OUT.json
//
// JOB.json: {"files": [{"path": "...", "times": {"<animation index>": [t, ...]}}], "plugin": true,
// "out": "FOLDER"} (plugin false: three.js alone, as a viewer without the extension plays the file).
// OUT.json: one entry per file: {"nodes": N, "missing": [node indices not in the loaded scene],
// "clips": ["name", ...], "played": {"<animation index>": "FOLDER/<file>_<animation>.f64"}}, each
// such file float64 [time][node][x, y, z, w] in the machine's byte order (long clips of many nodes
// hold more than a JSON string can), or {"error": "..."} when three.js cannot load the file.
// With "tracks": [t, ...] in JOB.json each file's entry also has "tracks": {"clips": per clip
// {"name", "userData", "duration", "tracks": [{"name", "type", "samples": [[value, ...] per t]}]},
// every track evaluated alone by its own interpolant, "animations": parser.json's animations after
// loading} (what the plugin leaves to three.js, compared whole).
//
// Each animation's AnimationAction plays alone from the file's rest pose; for every time the action's
// time is set and the mixer updated by 0 s, which evaluates the clip at exactly that time (no loop
// wrapping, so the last key's time plays the last key). Images, textures and materials are dropped
// before loading (prepare.mjs): Node.js has no image decoder, and they do not move nodes.

import fs from 'node:fs';
import path from 'node:path';
import { AnimationMixer, LoopOnce } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { GLTFAnimationSqlerpExtension } from '../../viewers/three/EXT_animation_sqlerp.js';
import { prepare } from './prepare.mjs';

// three.js' FileLoader reports download progress with the browser's ProgressEvent, which Node.js 20
// lacks; it is only dispatched, never read, here.
globalThis.ProgressEvent ??= class ProgressEvent extends Event {
	constructor(type, init = {}) {
		super(type);
		Object.assign(this, init);
	}
};

function load(file, plugin) {
	const loader = new GLTFLoader();
	if (plugin) loader.register((parser) => new GLTFAnimationSqlerpExtension(parser));
	return new Promise((resolve, reject) => loader.parse(prepare(file), path.dirname(file) + '/', resolve, reject));
}

/** Node index -> the Object3D three.js made for it, for the nodes of the loaded scene. */
function nodeObjects(gltf, count) {
	const objects = new Array(count).fill(null);
	gltf.scene.traverse((object) => {
		const association = gltf.parser.associations.get(object);
		if (association && association.nodes !== undefined && objects[association.nodes] === null) {
			objects[association.nodes] = object;
		}
	});
	return objects;
}

function play(gltf, objects, clip, times, path) {
	const mixer = new AnimationMixer(gltf.scene);
	const action = mixer.clipAction(clip);
	action.setLoop(LoopOnce, 1);
	action.play();
	const quaternions = new Float64Array(times.length * objects.length * 4);
	times.forEach((time, i) => {
		action.time = time;
		mixer.update(0);
		objects.forEach((object, n) => {
			if (object !== null) object.quaternion.toArray(quaternions, (i * objects.length + n) * 4);
		});
	});
	action.stop();
	mixer.uncacheRoot(gltf.scene);
	fs.writeFileSync(path, quaternions);
	return path;
}

/** Every clip as data: its name, userData and duration, and every track's name, type and values at `times`. */
function describe(clip, times) {
	const tracks = clip.tracks.map((track) => {
		const interpolant = track.createInterpolant();
		const samples = times.map((t) => Array.from(interpolant.evaluate(t)));
		return { name: track.name, type: track.ValueTypeName, samples };
	});
	return { name: clip.name, userData: clip.userData, duration: clip.duration, tracks };
}

async function playFile(entry, index, job) {
	let gltf;
	try {
		gltf = await load(entry.path, job.plugin !== false);
	} catch (error) {
		return { error: String(error && error.stack ? error.stack : error) };
	}
	const count = (gltf.parser.json.nodes || []).length;
	const objects = nodeObjects(gltf, count);
	const played = {};
	for (const [animation, times] of Object.entries(entry.times)) {
		played[animation] = play(gltf, objects, gltf.animations[Number(animation)], times,
			path.join(job.out, `${index}_${animation}.f64`));
	}
	return {
		nodes: count,
		missing: objects.flatMap((object, n) => (object === null ? [n] : [])),
		clips: gltf.animations.map((clip) => clip.name),
		played,
		...(job.tracks ? { tracks: {
			clips: gltf.animations.map((clip) => describe(clip, job.tracks)), animations: gltf.parser.json.animations,
		} } : {}),
	};
}

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const results = [];
for (const [index, entry] of job.files.entries()) results.push(await playFile(entry, index, job));
process.stdout.write(JSON.stringify(results));
