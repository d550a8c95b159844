// EXT_animation_sqlerp for Babylon.js: a glTF 2.0 loader extension that plays CUBICSLERP rotation samplers.
//
//   import '@babylonjs/loaders/glTF/2.0/index.js';
//   import { registerSqlerpExtension } from './EXT_animation_sqlerp.js';
//   registerSqlerpExtension();  // then load as usual: every glTF file loaded from now on
//
// Every channel that carries the extension plays its CUBICSLERP sampler instead of the channel's core
// sampler, in both forms the extension has: with a fallback (the core sampler stays for viewers
// without this extension) and required (`extensionsRequired`, the core sampler a one-key STEP
// placeholder or, in the draft's form, absent), and on KHR_animation_pointer channels to a node's
// rotation (played as that node channel). Every rotation channel, with the extension or not, plays
// the spec's slerp in double precision from keys made unit length (quantized keys included); Babylon
// alone slerps 16-bit keys as decoded, up to 2e-5 off unit length. Translations, scales, weights
// and other pointers play as Babylon plays them. A CUBICSLERP sampler that breaks the extension's
// rules is not played (console.warn says why): its channel plays its core sampler, as a viewer
// without the extension does.
//
// How: the loader extension hook `_loadAnimationChannelAsync` (IGLTFLoaderExtension; Babylon's own
// KHR_animation_pointer uses it) builds each rotation channel's Babylon Animation itself, keyed like
// Babylon's (frame = time * targetFps), from an Animation subclass that overrides
// `quaternionInterpolateFunction`, the public interpolation override point. Babylon finds the key
// interval and the fraction u; the override evaluates ../EXT_animation_sqlerp.js (the spec's formula,
// shared with viewers/three/) for that interval, which each key's value knows. So every frame,
// not only key frames, plays the exact curve, and the animation runs in Babylon's own
// AnimationGroup, blending and all. Only two loader internals are read: `_loadFloatAccessorAsync`
// (the accessor data Babylon's animations use) and a glTF node's `_babylonTransformNode`, both in
// the loader's type declarations.
//
// SPDX-License-Identifier: MIT (viewers/LICENSE; the Blender add-on around it is GPL-3.0).

import { Animation } from '@babylonjs/core/Animations/animation.js';
import { Quaternion } from '@babylonjs/core/Maths/math.vector.js';
import { registerGLTFExtension, unregisterGLTFExtension } from '@babylonjs/loaders/glTF/2.0/glTFLoaderExtensionRegistry.js';
import {
	EXTENSION_NAME, CUBICSLERP, STRIDE, candidateSamplers, cubicSlerpInto, cubicSlerpKeys, firstPlayable,
	nodeTarget, slerpKeysInto, unitKeys,
} from '../EXT_animation_sqlerp.js';

export { EXTENSION_NAME, CUBICSLERP };

const COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const STEP_KEY = 1; // Babylon's AnimationKeyInterpolation.STEP
// Before Babylon's own extensions, whose order is unset (last) or 170 and up: a pointer channel to a
// node rotation must reach this extension before KHR_animation_pointer plays it.
const ORDER = 100;

/**
 * A key's value: the unit quaternion v_k, which knows its curve ({sqlerp, stride, keys}: the keys of
 * cubicSlerpKeys or unitKeys, 12 or 4 numbers per key) and its index.
 */
class SqlerpKeyValue extends Quaternion {

	constructor(curve, index) {
		const o = curve.stride === STRIDE ? index * STRIDE + 4 : index * 4;
		super(curve.keys[o], curve.keys[o + 1], curve.keys[o + 2], curve.keys[o + 3]);
		this.curve = curve;
		this.index = index;
	}

}

/**
 * Whether start and end are consecutive keys of one curve. Not so between a key and the copy
 * AnimationGroup.normalize adds of it at the group's ends (the same value object): there the curve
 * holds the key's value, as glTF holds the first and last key outside the key range.
 */
function isInterval(start, end) {
	return start instanceof SqlerpKeyValue && end.curve === start.curve && end.index === start.index + 1;
}

/** A rotation Animation whose LINEAR and CUBICSLERP intervals play ../EXT_animation_sqlerp.js. */
export class SqlerpAnimation extends Animation {

	quaternionInterpolateFunction(start, end, gradient) {
		if (!isInterval(start, end)) {
			return start instanceof SqlerpKeyValue ? start.clone() : super.quaternionInterpolateFunction(start, end, gradient);
		}
		const out = [0, 0, 0, 0];
		(start.curve.sqlerp ? cubicSlerpInto : slerpKeysInto)(out, 0, start.curve.keys, start.index, gradient);
		return new Quaternion(out[0], out[1], out[2], out[3]);
	}

	quaternionInterpolateFunctionWithTangents(start, outTangent, end, inTangent, gradient) {
		// Babylon's Hermite curve, but a key Babylon added holds its value: AnimationGroup.normalize
		// copies the first and last key, tangents and all, to the group's ends, and Babylon alone
		// plays a CUBICSPLINE curve from a key to its copy (up to 4e-5 off the still pose there).
		if (start instanceof SqlerpKeyValue && !isInterval(start, end)) return start.clone();
		return super.quaternionInterpolateFunctionWithTangents(start, outTangent, end, inTangent, gradient);
	}

	clone() {
		// Animation.clone makes a plain Animation: keep the override on clones (AnimationGroup.clone).
		return Object.setPrototypeOf(super.clone(), SqlerpAnimation.prototype);
	}

}

/**
 * The Babylon Animation of `rotationQuaternion` for one sampler's data (times, decoded outputs),
 * at `fps` frames a second as Babylon's loader keys it.
 */
export function rotationAnimation(name, fps, times, values, interpolation = 'LINEAR') {
	const animation = new SqlerpAnimation(name, 'rotationQuaternion', fps, Animation.ANIMATIONTYPE_QUATERNION);
	const sqlerp = interpolation === CUBICSLERP;
	const curve = {
		sqlerp, stride: sqlerp || interpolation === 'CUBICSPLINE' ? STRIDE : 4,
		keys: sqlerp ? cubicSlerpKeys(values) : unitKeys(values, interpolation),
	};
	const keys = Array.from(times, (time, index) => ({ frame: time * fps, value: new SqlerpKeyValue(curve, index) }));
	if (interpolation === 'STEP') {
		for (const key of keys) key.interpolation = STEP_KEY;
	} else if (interpolation === 'CUBICSPLINE') {
		// Babylon's own Hermite curve (normalized), its tangents per frame as its loader stores them.
		const v = curve.keys;
		keys.forEach((key, k) => {
			key.inTangent = Quaternion.FromArray(v, k * STRIDE).scaleInPlace(1 / fps);
			key.outTangent = Quaternion.FromArray(v, k * STRIDE + 8).scaleInPlace(1 / fps);
		});
	} else if (interpolation !== 'LINEAR' && !sqlerp) {
		throw new Error(`interpolation: Invalid value (${interpolation})`);
	}
	animation.setKeys(keys, true);
	return animation;
}

/** The Babylon.js glTF 2.0 loader extension (registerSqlerpExtension registers it for every file). */
export class GLTFAnimationSqlerpExtension {

	constructor(loader) {
		this.name = EXTENSION_NAME;
		this.enabled = true;
		this.order = ORDER;
		this._loader = loader;
	}

	dispose() {
		this._loader = null;
	}

	/**
	 * Every rotation channel (a node's, or a KHR_animation_pointer to one) plays here; other channels
	 * play as Babylon plays them (null), through the channel's core sampler.
	 */
	_loadAnimationChannelAsync(context, animationContext, animation, channel, onLoad) {
		const target = nodeTarget(channel.target);
		const samplers = candidateSamplers(animation, channel);
		if (target.node === undefined) return null;
		if (target.path !== 'rotation') {
			return this._otherChannel(context, animationContext, animation, channel, target.path, samplers, onLoad);
		}
		const node = (this._loader.gltf.nodes || [])[target.node];
		if (samplers.length === 0 || !node || !node._babylonTransformNode) return Promise.resolve();
		if (!this._loader.parent.loadNodeAnimations && !node._isJoint) return Promise.resolve();
		const name = `${animation.name || `animation${animation.index}`}_channel${channel.index}_0`; // as Babylon's
		return this._rotationChannel(context, name, animation, samplers).then((played) => {
			if (played) onLoad(node._babylonTransformNode, played);
		});
	}

	/** A channel of another path: a CUBICSLERP sampler on it is broken; Babylon plays the rest. */
	_otherChannel(context, animationContext, animation, channel, path, samplers, onLoad) {
		const choices = samplers.map((index) => this._shape(animation, index));
		const choice = firstPlayable(choices, path, context);
		if (choice === undefined) return Promise.resolve(); // nothing else to play (the draft's form)
		if (choice.index === channel.sampler) return null;
		// An extension's sampler of another interpolation, which the channel plays as its own.
		return this._loader._loadAnimationChannelAsync(context, animationContext, animation,
			{ ...channel, sampler: choice.index, extensions: undefined }, onLoad);
	}

	/** The sampler at `index` as firstPlayable takes it, its output values loaded when needed. */
	_shape(animation, index, values) {
		const sampler = animation.samplers[index];
		const accessors = this._loader.gltf.accessors || [];
		const input = accessors[sampler.input] || { count: 0 }, output = accessors[sampler.output] || { count: 0 };
		return {
			index, sampler, keys: input.count,
			outputs: { count: output.count, components: COMPONENTS[output.type], values: values || [] },
		};
	}

	async _rotationChannel(context, name, animation, samplers) {
		const data = await Promise.all(samplers.map((index) => this._samplerData(animation, index)));
		const choices = samplers.map((index, i) => ({ ...this._shape(animation, index, data[i].output), ...data[i] }));
		const choice = firstPlayable(choices, 'rotation', context);
		if (choice === undefined) return null;
		return rotationAnimation(name, this._loader.parent.targetFps, choice.input, choice.output,
			choice.sampler.interpolation || 'LINEAR');
	}

	async _samplerData(animation, index) {
		const sampler = animation.samplers[index];
		const read = (accessor) => this._loader._loadFloatAccessorAsync(`/accessors/${accessor}`,
			this._loader.gltf.accessors[accessor]);
		const [input, output] = await Promise.all([read(sampler.input), read(sampler.output)]);
		return { input, output };
	}

}

/** Make every glTF file loaded from now on play EXT_animation_sqlerp (and exact rotations). */
export function registerSqlerpExtension() {
	unregisterGLTFExtension(EXTENSION_NAME); // registering twice is harmless, without Babylon's warning
	// Not a "glTF extension" to Babylon's registry: it loads for every file, also those without the
	// extension, so that every rotation plays exactly.
	registerGLTFExtension(EXTENSION_NAME, false, (loader) => new GLTFAnimationSqlerpExtension(loader));
}

/** Back to Babylon alone. */
export function unregisterSqlerpExtension() {
	return unregisterGLTFExtension(EXTENSION_NAME);
}
