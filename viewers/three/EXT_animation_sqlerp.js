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
// Evaluation follows docs/EXT_animation_sqlerp/README.md (this repository): for t_k <= t <= t_k+1,
//   q(t) = slerp(slerp(v_k, v_k+1, u), slerp(b_k, a_k+1, u), 2u(1 - u)),  u = (t - t_k) / (t_k+1 - t_k),
// each slerp the glTF 2.0 Appendix C slerp (shortest path by the sign of the dot product, normalized
// lerp for tiny angles), the result normalized, v_1 / v_n outside the key range. This is the same
// arithmetic as the add-on's numpy evaluator (core/sampling/quaternions.py), so both agree to
// rounding (tests/test_three_player.py: within 1e-6 on every file of the export benchmarks). No
// dependency but three.
//
// SPDX-License-Identifier: MIT (viewers/three/LICENSE; the Blender add-on around it is GPL-3.0).

import { Interpolant, QuaternionKeyframeTrack, AnimationClip } from 'three';

export const EXTENSION_NAME = 'EXT_animation_sqlerp';
export const CUBICSLERP = 'CUBICSLERP';

// Below this angle (radians in 4D) slerp takes Appendix C's "lerp, then normalize" branch. The
// slerp below is exact to rounding at every larger angle (atan2, not acos), so the branch only has
// to catch 0/0; the same threshold as the add-on's core keeps both evaluators identical.
const NLERP_BELOW = 1e-6;
const STRIDE = 12; // a key's in-tangent, value and out-tangent: three (x, y, z, w) quaternions

// Normalized integer outputs decode with the glTF 2.0 formulas (signed: max(c / max, -1)).
const NORMALIZED_DECODE = new Map([
	[Int8Array, (c) => Math.max(c / 127, -1)],
	[Uint8Array, (c) => c / 255],
	[Int16Array, (c) => Math.max(c / 32767, -1)],
	[Uint16Array, (c) => c / 65535],
]);

/** q / |q| into out at o (a zero quaternion becomes the identity, as in the add-on's importer). */
function normalizeInto(out, o, x, y, z, w) {
	const length = Math.sqrt(x * x + y * y + z * z + w * w);
	if (length > 0) {
		out[o] = x / length; out[o + 1] = y / length; out[o + 2] = z / length; out[o + 3] = w / length;
	} else {
		out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
	}
}

/** glTF Appendix C slerp of the unit quaternions a (at ao) and b (at bo), by u, into out at 0. */
function slerpInto(out, a, ao, b, bo, u) {
	const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
	const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
	const d = ax * bx + ay * by + az * bz + aw * bw;
	const sign = d < 0 ? -1 : 1; // sign(0) counts as +1
	// The part of b orthogonal to a, its length, and the angle from atan2, exact where acos is not.
	const ox = bx - ax * d, oy = by - ay * d, oz = bz - az * d, ow = bw - aw * d;
	const length = Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
	const angle = Math.atan2(length, Math.abs(d));
	if (angle < NLERP_BELOW) {
		normalizeInto(out, 0, ax + u * (sign * bx - ax), ay + u * (sign * by - ay),
			az + u * (sign * bz - az), aw + u * (sign * bw - aw));
		return;
	}
	const c = Math.cos(u * angle), s = Math.sin(u * angle) * sign / length;
	out[0] = ax * c + ox * s; out[1] = ay * c + oy * s; out[2] = az * c + oz * s; out[3] = aw * c + ow * s;
}

/**
 * A three.js Interpolant over CUBICSLERP keys: sampleValues holds a_k, v_k, b_k per key (x, y, z, w
 * each), sampleSize is 4. The keys are normalized once, in double precision (a_1 and b_n are never
 * used and stay as stored).
 */
export class CubicSlerpInterpolant extends Interpolant {

	constructor(parameterPositions, sampleValues, sampleSize, resultBuffer) {
		super(parameterPositions, sampleValues, sampleSize, resultBuffer);
		const keys = new Float64Array(sampleValues.length);
		const last = sampleValues.length - 4;
		for (let o = 0; o < sampleValues.length; o += 4) {
			const [x, y, z, w] = [sampleValues[o], sampleValues[o + 1], sampleValues[o + 2], sampleValues[o + 3]];
			if (o === 0 || o === last) {
				keys[o] = x; keys[o + 1] = y; keys[o + 2] = z; keys[o + 3] = w;
			} else {
				normalizeInto(keys, o, x, y, z, w);
			}
		}
		this.keys = keys;
		this.p = new Float64Array(4);
		this.s = new Float64Array(4);
		this.q = new Float64Array(4);
	}

	copySampleValue_(index) {
		// Before the first key and from the last key on: that key's value, not a tangent.
		const result = this.resultBuffer, o = index * STRIDE + 4;
		for (let i = 0; i !== 4; i++) result[i] = this.keys[o + i];
		return result;
	}

	interpolate_(i1, t0, t, t1) {
		const u = (t - t0) / (t1 - t0);
		const keys = this.keys, k0 = (i1 - 1) * STRIDE, k1 = i1 * STRIDE;
		slerpInto(this.p, keys, k0 + 4, keys, k1 + 4, u); // slerp(v_k, v_k+1, u)
		slerpInto(this.s, keys, k0 + 8, keys, k1, u); // slerp(b_k, a_k+1, u)
		slerpInto(this.q, this.p, 0, this.s, 0, 2 * u * (1 - u));
		const q = this.q;
		normalizeInto(this.resultBuffer, 0, q[0], q[1], q[2], q[3]);
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
		this.keys = new Float64Array(sampleValues.length);
		for (let o = 0; o < sampleValues.length; o += 4) {
			normalizeInto(this.keys, o, sampleValues[o], sampleValues[o + 1], sampleValues[o + 2], sampleValues[o + 3]);
		}
		this.q = new Float64Array(4);
	}

	copySampleValue_(index) {
		for (let i = 0; i !== 4; i++) this.resultBuffer[i] = this.keys[index * 4 + i];
		return this.resultBuffer;
	}

	interpolate_(i1, t0, t, t1) {
		slerpInto(this.q, this.keys, (i1 - 1) * 4, this.keys, i1 * 4, (t - t0) / (t1 - t0));
		const q = this.q;
		normalizeInto(this.resultBuffer, 0, q[0], q[1], q[2], q[3]);
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

/**
 * A rotation sampler's normalized-integer outputs, decoded and made unit length again (the keys'
 * values; CUBICSPLINE tangents are derivatives and stay as decoded). three.js alone plays the decoded
 * values, up to 2e-5 off unit length for 16-bit keys, and a node's matrix then scales by |q|^2.
 */
function unitKeys(output, interpolation) {
	const values = decodeOutput(output);
	const keys = new Float32Array(values.length);
	const step = interpolation === 'CUBICSPLINE' ? STRIDE : 4, first = interpolation === 'CUBICSPLINE' ? 4 : 0;
	keys.set(values);
	for (let o = first; o < values.length; o += step) {
		normalizeInto(keys, o, values[o], values[o + 1], values[o + 2], values[o + 3]);
	}
	return keys;
}

/** A rotation track of three.js' own made exact: unit keys, and LINEAR through SlerpInterpolant. */
function exactRotation(track, output, sampler) {
	if (output.normalized) track.values = unitKeys(output, sampler.interpolation);
	if ((sampler.interpolation || 'LINEAR') === 'LINEAR') {
		track.createInterpolant = function InterpolantFactoryMethodSlerp(result) {
			return new SlerpInterpolant(this.times, this.values, this.getValueSize(), result);
		};
	}
}

/**
 * Why a CUBICSLERP sampler cannot play (null when it can): the extension's rules (rotations only, at
 * least two keys, three VEC4 outputs per key) and every quaternion evaluation uses finite and
 * non-zero (a_1 and b_n are never used).
 */
function cubicSlerpProblem(input, output, target) {
	if (target.path !== 'rotation') return `it targets ${target.path}, CUBICSLERP animates rotations only`;
	if (input.count < 2) return `${input.count} key(s), at least 2 needed`;
	if (output.itemSize !== 4 || output.count !== 3 * input.count) {
		return `${output.count} outputs of ${output.itemSize} components for ${input.count} keys (3 quaternions per key needed)`;
	}
	const values = decodeOutput(output);
	for (let o = 4; o < values.length - 4; o += 4) {
		const length = Math.hypot(values[o], values[o + 1], values[o + 2], values[o + 3]);
		if (!(Number.isFinite(length) && length > 0)) return `output ${o / 4} is not a usable quaternion`;
	}
	return null;
}

const POINTER_NAME = 'KHR_animation_pointer';
const NODE_POINTER = /^\/nodes\/(0|[1-9][0-9]*)\/(translation|rotation|scale|weights)$/;

/**
 * A channel's target as a node and a path: a KHR_animation_pointer to a node's translation,
 * rotation, scale or weights is that node channel (docs/EXT_animation_sqlerp, "Channels through
 * KHR_animation_pointer"), so it plays here, with or without this extension, as the core plays it.
 */
function nodeTarget(target) {
	const extension = target.path === 'pointer' && target.extensions ? target.extensions[POINTER_NAME] : undefined;
	const match = extension && typeof extension.pointer === 'string' ? NODE_POINTER.exec(extension.pointer) : null;
	return match ? { node: Number(match[1]), path: match[2] } : target;
}

function extensionOf(channel) {
	return channel.extensions ? channel.extensions[EXTENSION_NAME] : undefined;
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
			const extension = extensionOf(channel);
			const samplers = [extension !== undefined ? extension.sampler : undefined, channel.sampler]
				.filter((index) => Number.isInteger(index) && animationDef.samplers[index] !== undefined);
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
				choices: data.map(([input, output], i) => ({ input, output, sampler: animationDef.samplers[samplers[i]] })),
			})));
		});
		const tracks = [];
		for (const { node, target, pointer, choices } of await Promise.all(pending)) {
			if (node === undefined) continue;
			if (node.updateMatrix) node.updateMatrix();
			// The first playable of the channel's samplers: ours, else the core sampler beside it (what a
			// viewer without the extension plays), so that a broken CUBICSLERP sampler never plays NaN.
			const choice = choices.find(({ input, output, sampler }) => {
				const problem = sampler.interpolation === CUBICSLERP ? cubicSlerpProblem(input, output, target) : null;
				if (problem) console.warn(`EXT_animation_sqlerp: ${pointer} does not play its CUBICSLERP sampler: ${problem}`);
				return problem === null;
			});
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
