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
// How: only three.js' public plugin API. `beforeRoot` rewrites the animations of `parser.json`
// (copies, restored in `afterRoot`) so that three.js' own loadAnimation loads every channel: each channel
// points at the sampler it plays (the CUBICSLERP one, or the core one beside it), a pointer channel
// at its node, and a channel with nothing to play is left out (three.js alone crashes on a channel
// without `sampler`). three.js then builds every track as it always does: clip names, extras in
// userData, CUBICSPLINE, the weights of meshes of several primitives, sanitized node names.
// `afterRoot` replaces the track of each CUBICSLERP channel with a cubicSlerpTrack and makes every
// other rotation track exact, finding them by the names three.js gives them (a node's name, else its
// uuid, + '.quaternion'; the node from `parser.getDependency`). Accessor data comes from
// `getDependency('accessor', ...)`, three's cache, so nothing is loaded twice. The plugin has no
// `loadAnimation` hook: building tracks there would need the parser's private track factory and
// three's module-private CUBICSPLINE interpolant (tests/web/test_three_player.py checks the source
// names no underscore member).
//
// Evaluation is the spec's, in double precision, from ../EXT_animation_sqlerp.js (this package's
// engine-free arithmetic, shared with viewers/babylon/): the add-on's core plays the same to rounding
// (tests/web/test_three_player.py: within 1e-6 on every file of the export benchmarks). No dependency
// but three.
//
// SPDX-License-Identifier: MIT (viewers/LICENSE; the Blender add-on around it is GPL-3.0).

import { Interpolant, QuaternionKeyframeTrack } from 'three';

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

/**
 * How three.js should load one channel: `channel` the channel rewritten so that three.js' own
 * loadAnimation builds its track (a node target, the sampler to play), or null to leave it out;
 * `fix` what afterRoot does to that track (null: nothing).
 */
function planChannel(parser, animationDef, a, channel, c) {
	const samplers = candidateSamplers(animationDef, channel);
	const target = nodeTarget(channel.target);
	const nodes = parser.json.nodes || [];
	if (target.node === undefined || nodes[target.node] === undefined || samplers.length === 0) return null;
	const pointer = `/animations/${a}/channels/${c}`;
	return Promise.all(samplers.map((index) => Promise.all([
		parser.getDependency('accessor', animationDef.samplers[index].input),
		parser.getDependency('accessor', animationDef.samplers[index].output),
	]))).then((data) => {
		const choices = data.map(([input, output], i) => ({
			input, output, index: samplers[i], sampler: animationDef.samplers[samplers[i]], keys: input.count,
			outputs: { count: output.count, components: output.itemSize, get values() { return decodeOutput(output); } },
		}));
		// The first playable of the channel's samplers: ours, else the core sampler beside it (what a
		// viewer without the extension plays), so that a broken CUBICSLERP sampler never plays NaN.
		const choice = firstPlayable(choices, target.path, pointer);
		if (choice === undefined) return null;
		const cubic = choice.sampler.interpolation === CUBICSLERP;
		// For a CUBICSLERP sampler three.js builds a linear track of its times, which afterRoot replaces.
		const rewritten = { ...channel, sampler: choice.index, target: { ...channel.target, ...target } };
		return { channel: rewritten, fix: target.path === 'rotation' ? { node: target.node, cubic, ...choice } : null };
	});
}

/**
 * An animation of parser.json as a copy three.js can load whole (planChannel on every channel),
 * with the fix of every rotation channel kept, for afterRoot.
 */
async function rewriteAnimation(parser, animationDef, a) {
	const plans = (await Promise.all(animationDef.channels.map((channel, c) => planChannel(parser, animationDef, a,
		channel, c)))).filter((plan) => plan !== null);
	return {
		original: animationDef, rewritten: { ...animationDef, channels: plans.map((plan) => plan.channel) },
		fixes: plans.flatMap((plan) => (plan.fix ? [plan.fix] : [])),
	};
}

/**
 * A clip three.js built, its rotation tracks made ours: the CUBICSLERP channels' a cubicSlerpTrack,
 * the others exact (exactRotation). `nodes`: each fix's node object, whose track three.js named by
 * the node's name (made unique and sanitized by three.js' createUniqueName), else its uuid.
 */
function fixClip(clip, fixes, nodes) {
	const replaced = new Set();
	fixes.forEach(({ cubic, input, output, sampler }, f) => {
		const name = (nodes[f].name ? nodes[f].name : nodes[f].uuid) + '.quaternion';
		const t = clip.tracks.findIndex((track, i) => track.name === name && !replaced.has(i));
		if (t < 0) return;
		replaced.add(t);
		if (cubic) clip.tracks[t] = cubicSlerpTrack(name, input.array, decodeOutput(output));
		else exactRotation(clip.tracks[t], output, sampler);
	});
	clip.resetDuration();
}

/**
 * The GLTFLoader plugin: `loader.register((parser) => new GLTFAnimationSqlerpExtension(parser))`.
 * Public hooks only: beforeRoot rewrites parser.json's animations so that three.js' own
 * loadAnimation loads every channel, afterRoot plays the rotation tracks it built exactly.
 */
export class GLTFAnimationSqlerpExtension {

	constructor(parser) {
		this.parser = parser;
		this.name = EXTENSION_NAME;
		this.animations = []; // per animation of the file: rewriteAnimation's {original, rewritten, fixes}
	}

	/**
	 * Before three.js loads the animations: each one's JSON becomes a copy that three.js can load
	 * whole. A channel plays its first playable sampler (firstPlayable: a broken CUBICSLERP sampler
	 * warns and gives way to the core one), a KHR_animation_pointer channel to a node's TRS or
	 * weights targets that node, and a channel without any playable sampler is left out.
	 */
	async beforeRoot() {
		const definitions = this.parser.json.animations || [];
		this.animations = await Promise.all(definitions.map((animationDef, a) => rewriteAnimation(this.parser,
			animationDef, a)));
		this.animations.forEach(({ rewritten }, a) => {
			definitions[a] = rewritten;
		});
	}

	/**
	 * After three.js built gltf.animations from those copies: parser.json gets the file's animations
	 * back, and every clip's rotation tracks become ours (fixClip), found by the names three.js gave
	 * them, each node from parser.getDependency (three.js' cache: the very objects of the scene).
	 */
	async afterRoot(gltf) {
		const parser = this.parser;
		await Promise.all(this.animations.map(async ({ original, fixes }, a) => {
			parser.json.animations[a] = original;
			const nodes = await Promise.all(fixes.map((fix) => parser.getDependency('node', fix.node)));
			if (gltf.animations[a] !== undefined) fixClip(gltf.animations[a], fixes, nodes);
		}));
	}

}
