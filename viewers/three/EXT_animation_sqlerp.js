// EXT_animation_sqlerp for three.js: a GLTFLoader plugin that plays CUBICSLERP rotation samplers.
//
//   import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
//   import { GLTFAnimationSqlerpExtension } from './EXT_animation_sqlerp.js';
//   new GLTFLoader().register((parser) => new GLTFAnimationSqlerpExtension(parser));
//
// Every channel that carries the extension plays its CUBICSLERP sampler instead of the channel's
// core sampler, in both forms the extension has: with a fallback (the core sampler stays for
// viewers without this plugin) and required (`extensionsRequired`, the core sampler a one-key STEP
// placeholder or, in the draft's form, absent). The plugin loads every animation of the file: rotations
// without the extension play the spec's slerp in double precision from keys made unit length
// (quantized keys included), translations, scales and weights as three.js plays them. A CUBICSLERP
// sampler that breaks the extension's rules is not played (console.warn says why): its channel plays
// its core sampler, as a viewer without the extension does.
//
// Evaluation is the spec's, in double precision, from ../EXT_animation_sqlerp.js (this package's
// engine-free arithmetic, shared with viewers/babylon/): the add-on's core plays the same to rounding
// (tests/test_three_player.py: within 1e-6 on every file of the export benchmarks). No dependency
// but three.
//
// SPDX-License-Identifier: MIT (viewers/LICENSE; the Blender add-on around it is GPL-3.0).

import { Interpolant, QuaternionKeyframeTrack, AnimationClip } from 'three';

import {
	EXTENSION_NAME, CUBICSLERP, STRIDE, candidateSamplers, cubicSlerpInto, cubicSlerpKeys, firstPlayable,
	nodeTarget, slerpKeysInto, unitKeys,
} from '../EXT_animation_sqlerp.js';

export { EXTENSION_NAME, CUBICSLERP };

// Normalized integer outputs decode with the glTF 2.0 formulas (signed: max(c / max, -1)).
const NORMALIZED_DECODE = new Map([
	[Int8Array, (c) => Math.max(c / 127, -1)],
	[Uint8Array, (c) => c / 255],
	[Int16Array, (c) => Math.max(c / 32767, -1)],
	[Uint16Array, (c) => c / 65535],
]);

/**
 * A three.js Interpolant over CUBICSLERP keys: sampleValues holds a_k, v_k, b_k per key (x, y, z, w
 * each), sampleSize is 4. The keys are normalized once, in double precision (cubicSlerpKeys).
 */
export class CubicSlerpInterpolant extends Interpolant {

	constructor(parameterPositions, sampleValues, sampleSize, resultBuffer) {
		super(parameterPositions, sampleValues, sampleSize, resultBuffer);
		this.keys = cubicSlerpKeys(sampleValues);
	}

	copySampleValue_(index) {
		// Before the first key and from the last key on: that key's value, not a tangent.
		const result = this.resultBuffer, o = index * STRIDE + 4;
		for (let i = 0; i !== 4; i++) result[i] = this.keys[o + i];
		return result;
	}

	interpolate_(i1, t0, t, t1) {
		cubicSlerpInto(this.resultBuffer, 0, this.keys, i1 - 1, (t - t0) / (t1 - t0));
		return this.resultBuffer;
	}

}

/**
 * LINEAR rotation keys played with the same Appendix C slerp in double precision, from keys made
 * unit length once. three.js' own quaternion slerp takes its angle from 1 - cos^2, which loses
 * half the digits between nearly equal keys (dense, quantized clips: up to 5e-7 off).
 */
export class SlerpInterpolant extends Interpolant {

	constructor(parameterPositions, sampleValues, sampleSize, resultBuffer) {
		super(parameterPositions, sampleValues, sampleSize, resultBuffer);
		this.keys = unitKeys(sampleValues, 'LINEAR');
	}

	copySampleValue_(index) {
		for (let i = 0; i !== 4; i++) this.resultBuffer[i] = this.keys[index * 4 + i];
		return this.resultBuffer;
	}

	interpolate_(i1, t0, t, t1) {
		slerpKeysInto(this.resultBuffer, 0, this.keys, i1 - 1, (t - t0) / (t1 - t0));
		return this.resultBuffer;
	}

}

/** A QuaternionKeyframeTrack that plays CUBICSLERP keys (times, and 12 values per key). */
export function cubicSlerpTrack(name, times, values) {
	const track = new QuaternionKeyframeTrack(name, times, values);
	track.createInterpolant = function InterpolantFactoryMethodCubicSlerp(result) {
		// Three quaternions per key: the interpolant's sample size is a third of the track's.
		return new CubicSlerpInterpolant(this.times, this.values, this.getValueSize() / 3, result);
	};
	// Marks the track as CUBICSLERP: track.getInterpolation() knows only three.js' own modes.
	track.createInterpolant.isInterpolantFactoryMethodCubicSlerp = true;
	return track;
}

function decodeOutput(accessor) {
	const decode = accessor.normalized ? NORMALIZED_DECODE.get(accessor.array.constructor) : undefined;
	return decode ? Float64Array.from(accessor.array, decode) : accessor.array;
}

/** A rotation track of three.js' own made exact: unit keys, and LINEAR through SlerpInterpolant. */
function exactRotation(track, output, sampler) {
	// three.js alone plays decoded 16-bit keys as they are, up to 2e-5 off unit length, and a node's
	// matrix then scales by |q|^2.
	if (output.normalized) track.values = unitKeys(decodeOutput(output), sampler.interpolation, Float32Array);
	if ((sampler.interpolation || 'LINEAR') === 'LINEAR') {
		track.createInterpolant = function InterpolantFactoryMethodSlerp(result) {
			return new SlerpInterpolant(this.times, this.values, this.getValueSize(), result);
		};
	}
}

/** The GLTFLoader plugin: `loader.register((parser) => new GLTFAnimationSqlerpExtension(parser))`. */
export class GLTFAnimationSqlerpExtension {

	constructor(parser) {
		this.parser = parser;
		this.name = EXTENSION_NAME;
	}

	/**
	 * Every animation: channels with the extension play their CUBICSLERP sampler, rotations play
	 * in double precision from unit keys (exactRotation), everything else as three.js plays it.
	 */
	loadAnimation(animationIndex) {
		return this._loadAnimation(animationIndex);
	}

	async _loadAnimation(animationIndex) {
		const parser = this.parser;
		const animationDef = parser.json.animations[animationIndex];
		const pending = [];
		animationDef.channels.forEach((channel, c) => {
			const samplers = candidateSamplers(animationDef, channel);
			const target = nodeTarget(channel.target);
			if (target.node === undefined || samplers.length === 0) return;
			pending.push(Promise.all([
				parser.getDependency('node', target.node),
				...samplers.map((index) => Promise.all([
					parser.getDependency('accessor', animationDef.samplers[index].input),
					parser.getDependency('accessor', animationDef.samplers[index].output),
				])),
			]).then(([node, ...data]) => ({
				node, target, pointer: `/animations/${animationIndex}/channels/${c}`,
				choices: data.map(([input, output], i) => ({
					input, output, sampler: animationDef.samplers[samplers[i]], keys: input.count,
					outputs: { count: output.count, components: output.itemSize, get values() { return decodeOutput(output); } },
				})),
			})));
		});
		const tracks = [];
		for (const { node, target, pointer, choices } of await Promise.all(pending)) {
			if (node === undefined) continue;
			if (node.updateMatrix) node.updateMatrix();
			// The first playable of the channel's samplers: ours, else the core sampler beside it (what a
			// viewer without the extension plays), so that a broken CUBICSLERP sampler never plays NaN.
			const choice = firstPlayable(choices, target.path, pointer);
			if (choice === undefined) continue;
			const { input, output, sampler } = choice;
			if (sampler.interpolation === CUBICSLERP) {
				// The name three.js' own tracks use, so the mixer binds ours to the same node.
				const name = (node.name ? node.name : node.uuid) + '.quaternion';
				tracks.push(cubicSlerpTrack(name, input.array, decodeOutput(output)));
			} else {
				const created = parser._createAnimationTracks(node, input, output, sampler, target) || [];
				if (target.path === 'rotation') created.forEach((track) => exactRotation(track, output, sampler));
				tracks.push(...created);
			}
		}
		const clip = new AnimationClip(animationDef.name ? animationDef.name : 'animation_' + animationIndex,
			undefined, tracks);
		if (animationDef.extras && typeof animationDef.extras === 'object') {
			clip.userData = Object.assign(clip.userData || {}, animationDef.extras);
		}
		return clip;
	}

}
