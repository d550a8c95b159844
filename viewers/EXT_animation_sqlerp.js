// EXT_animation_sqlerp's arithmetic for every player of this package, with no dependency on any engine:
// the spec's CUBICSLERP evaluation, the glTF 2.0 Appendix C slerp in double precision, unit keys, and
// the rules a CUBICSLERP sampler must keep to be played. viewers/three/ and viewers/babylon/ import it
// ('../EXT_animation_sqlerp.js'), each wrapping it in its engine's interpolation machinery.
//
// Evaluation follows docs/EXT_animation_sqlerp/README.md (this repository): for t_k <= t <= t_k+1,
//   q(t) = slerp(slerp(v_k, v_k+1, u), slerp(b_k, a_k+1, u), 2u(1 - u)),  u = (t - t_k) / (t_k+1 - t_k),
// each slerp the glTF 2.0 Appendix C slerp (shortest path by the sign of the dot product, normalized
// lerp for tiny angles), the result normalized, v_1 / v_n outside the key range. This is the same
// arithmetic as the add-on's numpy evaluator (core/sampling/quaternions.py), so both agree to
// rounding (tests/web/test_three_player.py, tests/web/test_babylon_player.py: within 1e-6 on every file of
// the export benchmarks).
//
// SPDX-License-Identifier: MIT (viewers/LICENSE; the Blender add-on around it is GPL-3.0).

export const EXTENSION_NAME = 'EXT_animation_sqlerp';
export const CUBICSLERP = 'CUBICSLERP';
// A key's in-tangent, value and out-tangent: three (x, y, z, w) quaternions.
export const STRIDE = 12;

// Below this angle (radians in 4D) slerp takes Appendix C's "lerp, then normalize" branch. The
// slerp below is exact to rounding at every larger angle (atan2, not acos), so the branch only has
// to catch 0/0; the same threshold as the add-on's core keeps both evaluators identical.
const NLERP_BELOW = 1e-6;

/** q / |q| into out at o (a zero quaternion becomes the identity, as in the add-on's importer). */
export function normalizeInto(out, o, x, y, z, w) {
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

// Scratch quaternions of the evaluations below (JavaScript runs one evaluation at a time).
const P = new Float64Array(4), S = new Float64Array(4), Q = new Float64Array(4);

/**
 * LINEAR rotation keys (4 numbers per key, unit length: unitKeys) at u between key k and k + 1:
 * the Appendix C slerp, normalized, into out at o.
 */
export function slerpKeysInto(out, o, keys, k, u) {
	slerpInto(Q, keys, 4 * k, keys, 4 * k + 4, u);
	normalizeInto(out, o, Q[0], Q[1], Q[2], Q[3]);
}

/**
 * CUBICSLERP keys (12 numbers per key: a_k, v_k, b_k; cubicSlerpKeys) at u between key k and
 * k + 1: the spec's q(t), normalized, into out at o.
 */
export function cubicSlerpInto(out, o, keys, k, u) {
	const k0 = k * STRIDE, k1 = k0 + STRIDE;
	slerpInto(P, keys, k0 + 4, keys, k1 + 4, u); // slerp(v_k, v_k+1, u)
	slerpInto(S, keys, k0 + 8, keys, k1, u); // slerp(b_k, a_k+1, u)
	slerpInto(Q, P, 0, S, 0, 2 * u * (1 - u));
	normalizeInto(out, o, Q[0], Q[1], Q[2], Q[3]);
}

/**
 * CUBICSLERP outputs made unit length once, in double precision; a_1 and b_n are never used and
 * stay as stored (they may be zero).
 */
export function cubicSlerpKeys(values) {
	const keys = Float64Array.from(values);
	for (let o = 4; o < values.length - 4; o += 4) {
		normalizeInto(keys, o, values[o], values[o + 1], values[o + 2], values[o + 3]);
	}
	return keys;
}

/**
 * A rotation sampler's outputs with every key's value made unit length (decoded 16-bit keys are up
 * to 2e-5 off, float keys a little); CUBICSPLINE tangents are derivatives and stay as they are.
 */
export function unitKeys(values, interpolation, ArrayType = Float64Array) {
	const keys = ArrayType.from(values);
	const cubic = interpolation === 'CUBICSPLINE';
	for (let o = cubic ? 4 : 0; o < values.length; o += cubic ? STRIDE : 4) {
		normalizeInto(keys, o, values[o], values[o + 1], values[o + 2], values[o + 3]);
	}
	return keys;
}

/**
 * Why a CUBICSLERP sampler cannot play (null when it can): the extension's rules (rotations only, at
 * least two keys, three VEC4 outputs per key) and every quaternion evaluation uses finite and
 * non-zero (a_1 and b_n are never used). keys: the input's count; output: {count, components,
 * values} (values decoded to numbers, read only after the shape is right).
 */
export function cubicSlerpProblem(path, keys, output) {
	if (path !== 'rotation') return `it targets ${path}, CUBICSLERP animates rotations only`;
	if (keys < 2) return `${keys} key(s), at least 2 needed`;
	if (output.components !== 4 || output.count !== 3 * keys) {
		return `${output.count} outputs of ${output.components} components for ${keys} keys (3 quaternions per key needed)`;
	}
	const values = output.values;
	for (let o = 4; o < values.length - 4; o += 4) {
		const length = Math.hypot(values[o], values[o + 1], values[o + 2], values[o + 3]);
		if (!(Number.isFinite(length) && length > 0)) return `output ${o / 4} is not a usable quaternion`;
	}
	return null;
}

/**
 * The first playable of a channel's candidate samplers (candidateSamplers' order), each
 * {sampler, keys, outputs} (keys, outputs as cubicSlerpProblem takes them): a CUBICSLERP sampler that breaks the rules
 * is passed over with a console warning naming the channel (`pointer`), so the channel plays its core
 * sampler, as a viewer without the extension does, and never NaN. undefined when none can play.
 */
export function firstPlayable(choices, path, pointer) {
	return choices.find(({ sampler, keys, outputs }) => {
		const problem = sampler.interpolation === CUBICSLERP ? cubicSlerpProblem(path, keys, outputs) : null;
		if (problem) console.warn(`${EXTENSION_NAME}: ${pointer} does not play its CUBICSLERP sampler: ${problem}`);
		return problem === null;
	});
}

const POINTER_NAME = 'KHR_animation_pointer';
const NODE_POINTER = /^\/nodes\/(0|[1-9][0-9]*)\/(translation|rotation|scale|weights)$/;

/**
 * A channel's target as a node and a path: a KHR_animation_pointer to a node's translation,
 * rotation, scale or weights is that node channel (docs/EXT_animation_sqlerp, "Channels through
 * KHR_animation_pointer"), so it plays as the core plays it, with or without this extension.
 */
export function nodeTarget(target) {
	const extension = target.path === 'pointer' && target.extensions ? target.extensions[POINTER_NAME] : undefined;
	const match = extension && typeof extension.pointer === 'string' ? NODE_POINTER.exec(extension.pointer) : null;
	return match ? { node: Number(match[1]), path: match[2] } : target;
}

/**
 * The indices of the samplers a channel may play, best first: the extension's CUBICSLERP sampler,
 * then the channel's core sampler (a fallback or placeholder; absent in the draft's required form).
 */
export function candidateSamplers(animationDef, channel) {
	const extension = channel.extensions ? channel.extensions[EXTENSION_NAME] : undefined;
	return [extension !== undefined ? extension.sampler : undefined, channel.sampler]
		.filter((index) => Number.isInteger(index) && animationDef.samplers[index] !== undefined);
}
