// Play glTF files with Babylon.js (NullEngine) and viewers/babylon/EXT_animation_sqlerp.js; print every
// node's quaternion.
//
//   node --import ./tests/three/resolve_three.mjs tests/babylon/play.mjs JOB.json > OUT.json
//
// JOB.json and OUT.json as for tests/three/play.mjs (tools/web_player.py writes and reads both);
// "plugin": false plays with Babylon alone, as a viewer without the extension plays the file.
//
// Each file loads into its own Scene of one NullEngine (Babylon without a GPU). Each animation group
// plays alone from the file's rest pose: started, paused, and sent with goToFrame to every time's
// frame (time * the loader's targetFps, as the loader keys it), which evaluates every animation of the
// group at exactly that frame. The glTF loader's own objects tell which group and transform node each
// glTF animation and node became (a probe loader extension reads them when the file is ready).

import fs from 'node:fs';
import path from 'node:path';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Scene } from '@babylonjs/core/scene.js';
import { Logger } from '@babylonjs/core/Misc/logger.js';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader.js';
import { Quaternion } from '@babylonjs/core/Maths/math.vector.js';
import { registerGLTFExtension } from '@babylonjs/loaders/glTF/2.0/index.js';
import { registerSqlerpExtension, unregisterSqlerpExtension } from '../../viewers/babylon/EXT_animation_sqlerp.js';
import { prepare } from '../three/prepare.mjs';

const PROBE = 'gltf_sqlerp_test_probe';
let loaded = null; // what the probe saw of the last file

// Babylon logs every load to the console; only its warnings and errors matter here (on stderr).
Logger.LogLevels = Logger.WarningLogLevel | Logger.ErrorLogLevel;

registerGLTFExtension(PROBE, false, (loader) => ({
	name: PROBE,
	enabled: true,
	onReady() {
		const json = loader.gltf;
		loaded = {
			nodes: (json.nodes || []).map((node) => node._babylonTransformNode || null),
			groups: (json.animations || []).map((animation) => animation._babylonAnimationGroup || null),
		};
	},
	dispose() {},
}));

async function load(file, scene) {
	const data = prepare(file);
	const glb = typeof data !== 'string';
	loaded = null;
	const container = await LoadAssetContainerAsync(glb ? new Uint8Array(data) : 'data:' + data, scene,
		{ pluginExtension: glb ? '.glb' : '.gltf' });
	container.addAllToScene();
	if (loaded === null) throw new Error('the glTF loader never became ready');
	return loaded;
}

/** A transform node's rotation: its quaternion, or its Euler angles where it has none (Babylon leaves
 * the rotation of a skinned mesh's node, whose TRS glTF ignores, at the Euler default). */
function rotationOf(node) {
	return node.rotationQuaternion || Quaternion.FromEulerVector(node.rotation);
}

function play(nodes, rest, group, times, fps, out) {
	nodes.forEach((node, n) => { if (node && node.rotationQuaternion) node.rotationQuaternion.copyFrom(rest[n]); });
	const quaternions = new Float64Array(times.length * nodes.length * 4);
	if (group && group.targetedAnimations.length) {
		group.start(false);
		group.pause();
	}
	times.forEach((time, i) => {
		if (group && group.targetedAnimations.length) group.goToFrame(time * fps);
		nodes.forEach((node, n) => {
			if (node) rotationOf(node).toArray(quaternions, (i * nodes.length + n) * 4);
		});
	});
	if (group) group.stop();
	fs.writeFileSync(out, quaternions);
	return out;
}

async function playFile(engine, entry, index, job) {
	const scene = new Scene(engine);
	try {
		let found;
		try {
			found = await load(entry.path, scene);
		} catch (error) {
			return { error: String(error && error.stack ? error.stack : error) };
		}
		const { nodes, groups } = found;
		const rest = nodes.map((node) => (node ? rotationOf(node).clone() : null));
		const fps = 60; // GLTFFileLoader.targetFps' default, which the loader keys animations at
		const played = {};
		for (const [animation, times] of Object.entries(entry.times)) {
			played[animation] = play(nodes, rest, groups[Number(animation)], times, fps,
				path.join(job.out, `${index}_${animation}.f64`));
		}
		return {
			nodes: nodes.length,
			missing: nodes.flatMap((node, n) => (node === null ? [n] : [])),
			clips: groups.map((group) => (group ? group.name : null)),
			played,
		};
	} finally {
		scene.dispose();
	}
}

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
if (job.plugin !== false) registerSqlerpExtension(); else unregisterSqlerpExtension();
const engine = new NullEngine();
const results = [];
for (const [index, entry] of job.files.entries()) results.push(await playFile(engine, entry, index, job));
engine.dispose();
process.stdout.write(JSON.stringify(results));
