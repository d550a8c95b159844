// EXT_animation_sqlerp for glTF-Transform (@gltf-transform/core 4.x): read, keep and write the
// extension through every command and function, as @gltf-transform/extensions does for its own.
//
//   import { NodeIO } from '@gltf-transform/core';
//   import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
//   import { EXTAnimationSqlerp } from './EXT_animation_sqlerp.js';
//   const io = new NodeIO().registerExtensions([...ALL_EXTENSIONS, EXTAnimationSqlerp]);
//
// A channel that carries the extension gets an AnimationSqlerp property (channel.getExtension(
// 'EXT_animation_sqlerp')) whose `sampler` is a graph reference to its CUBICSLERP AnimationSampler,
// so that prune, dedup and every other function see the sampler as used, and the writer puts the
// sampler's index in the written animation back into the channel. Without it glTF-Transform drops
// the channel's extension object and extensionsUsed, and leaves the CUBICSLERP samplers unreferenced.
//
// What the extension is: docs/EXT_animation_sqlerp/README.md (this repository). What each command
// does to it, and what this module repairs on reading: README.md beside this file.
//
// SPDX-License-Identifier: MIT (viewers/LICENSE; the Blender add-on around it is GPL-3.0).

import { Accessor, AnimationSampler, Extension, ExtensionProperty, PropertyType } from '@gltf-transform/core';

export const EXT_ANIMATION_SQLERP = 'EXT_animation_sqlerp';
export const CUBICSLERP = 'CUBICSLERP';
const POINTER_NAME = 'KHR_animation_pointer';
const NODE_ROTATION = /^\/nodes\/(0|[1-9][0-9]*)\/rotation$/;

/**
 * The extension object of one animation channel: `sampler`, the channel's CUBICSLERP
 * AnimationSampler (three unit quaternions per key: in-tangent, value, out-tangent). The sampler
 * must belong to the channel's animation; the channel's own sampler stays its fallback.
 */
export class AnimationSqlerp extends ExtensionProperty {
	static EXTENSION_NAME = EXT_ANIMATION_SQLERP;

	// No class fields here: Property's constructor calls init() before a subclass' fields would be
	// set, and a field would then overwrite these with undefined (TypeScript's `declare` in the
	// packaged extensions avoids the same trap).
	init() {
		this.extensionName = EXT_ANIMATION_SQLERP;
		this.propertyType = 'AnimationSqlerp';
		this.parentTypes = [PropertyType.ANIMATION_CHANNEL];
	}

	getDefaults() {
		return Object.assign(super.getDefaults(), { sampler: null });
	}

	/** @returns {AnimationSampler | null} The CUBICSLERP sampler that plays the channel. */
	getSampler() {
		return this.getRef('sampler');
	}

	/** @param {AnimationSampler | null} sampler A CUBICSLERP sampler of the channel's animation. */
	setSampler(sampler) {
		return this.setRef('sampler', sampler);
	}
}

/**
 * Why a sampler cannot play a channel through the extension (null when it can): the checks of
 * viewers/three/EXT_animation_sqlerp.js (CUBICSLERP, rotations only, at least two keys, three VEC4
 * outputs per key, finite non-zero quaternions). Such a channel plays its core sampler in the
 * project's viewers.
 */
export function samplerProblem(sampler, targetPath) {
	if (!sampler) return 'its sampler does not exist';
	if (sampler.getInterpolation() !== CUBICSLERP) return `its sampler is ${sampler.getInterpolation()}, not CUBICSLERP`;
	if (targetPath !== 'rotation') return `it targets ${targetPath}, CUBICSLERP animates rotations only`;
	const input = sampler.getInput(), output = sampler.getOutput();
	if (!input || !output) return 'its sampler has no input or output accessor';
	if (input.getCount() < 2) return `${input.getCount()} key(s), at least 2 needed`;
	if (output.getType() !== Accessor.Type.VEC4 || output.getCount() !== 3 * input.getCount()) {
		return `${output.getCount()} ${output.getType()} outputs for ${input.getCount()} keys (3 quaternions per key needed)`;
	}
	// Every quaternion evaluation uses must be finite and non-zero: all but a_1 and b_n.
	const element = [];
	for (let i = 1; i < output.getCount() - 1; i++) {
		const length = Math.hypot(...output.getElement(i, element));
		if (!(Number.isFinite(length) && length > 0)) return `output ${i} is not a usable quaternion`;
	}
	return null;
}

/**
 * The glTF-Transform extension: `io.registerExtensions([EXTAnimationSqlerp])`, or in a CLI config's
 * `extensions`. `createAnimationSqlerp()` makes the property for channels built in scripts.
 */
export class EXTAnimationSqlerp extends Extension {
	static EXTENSION_NAME = EXT_ANIMATION_SQLERP;
	extensionName = EXT_ANIMATION_SQLERP;

	/** @returns {AnimationSqlerp} A new extension object, for `channel.setExtension(...)`. */
	createAnimationSqlerp() {
		return new AnimationSqlerp(this.document.getGraph());
	}

	/**
	 * After the core reader: it made each animation's samplers and channels in file order
	 * (Animation.listSamplers(), listChannels()), so the file's indices select them directly.
	 */
	read(context) {
		const animationDefs = context.jsonDoc.json.animations || [];
		animationDefs.forEach((animationDef, a) => {
			const animation = context.animations[a];
			// The file's samplers, before any placeholder joins them: indices past them resolve to nothing.
			const file = {
				animation, nodes: context.nodes, samplers: animation.listSamplers(), channels: animation.listChannels(),
			};
			(animationDef.channels || []).forEach((channelDef, c) => {
				const def = channelDef.extensions && channelDef.extensions[EXT_ANIMATION_SQLERP];
				if (def) this._readChannel(file, c, channelDef, def, `/animations/${a}/channels/${c}`);
			});
		});
		return this;
	}

	_readChannel(file, c, channelDef, def, pointer) {
		const logger = this.document.getLogger();
		const channel = file.channels[c];
		const sampler = Number.isInteger(def.sampler) ? file.samplers[def.sampler] : undefined;
		if (sampler === undefined) {
			// A reference the graph cannot hold: the channel keeps its core sampler, which is what
			// every viewer plays for it (the rule for a sampler that breaks the extension's rules).
			logger.warn(`${EXT_ANIMATION_SQLERP}: ${pointer} names sampler ${JSON.stringify(def.sampler)}, which ` +
				'the animation does not have; the extension object is dropped and the channel keeps its core sampler.');
			return;
		}
		this._readPointer(file, channel, channelDef.target, pointer);
		const problem = samplerProblem(sampler, channel.getTargetPath());
		if (problem) {
			// Kept as it is: a viewer that follows the extension's rules plays the core sampler
			// for it, before and after this tool alike.
			logger.warn(`${EXT_ANIMATION_SQLERP}: ${pointer} does not play through the extension: ${problem}.`);
		}
		channel.setExtension(EXT_ANIMATION_SQLERP, this.createAnimationSqlerp().setSampler(sampler));
		if (channelDef.sampler === undefined && !problem) {
			channel.setSampler(this._placeholder(sampler, file.animation));
			logger.info(`${EXT_ANIMATION_SQLERP}: ${pointer} had no core sampler (the draft's required form); ` +
				'it gets a one-key STEP sampler holding the first value, the schema-valid required form.');
		}
	}

	/**
	 * A KHR_animation_pointer target "/nodes/{i}/rotation" is the node channel {node: i, path:
	 * rotation} (docs/EXT_animation_sqlerp, "Channels through KHR_animation_pointer"). glTF-Transform
	 * 4.x does not read that extension: the channel would lose its target and prune would remove it.
	 * So a channel of ours becomes the node channel it stands for.
	 */
	_readPointer(file, channel, target, pointer) {
		const extension = target && target.path === 'pointer' && target.extensions ? target.extensions[POINTER_NAME] : undefined;
		const match = extension && typeof extension.pointer === 'string' ? NODE_ROTATION.exec(extension.pointer) : null;
		const node = match ? file.nodes[Number(match[1])] : undefined;
		if (node === undefined) return;
		channel.setTargetNode(node).setTargetPath('rotation');
		this.document.getLogger().info(`${EXT_ANIMATION_SQLERP}: ${pointer} targets ${extension.pointer} through ` +
			`${POINTER_NAME}, which glTF-Transform does not read; it becomes the node channel it stands for.`);
	}

	/**
	 * The core sampler of the schema-valid required form: one STEP key at t_1 holding v_1
	 * (docs/EXT_animation_sqlerp, "Channel forms"). glTF requires channel.sampler; without one the
	 * written file fails glTF-Validator and crashes three.js.
	 */
	_placeholder(cubic, animation) {
		const input = cubic.getInput(), output = cubic.getOutput();
		const value = unitQuaternion(output.getElement(1, [])); // getElement decodes normalized integers
		const buffer = input.getBuffer() || output.getBuffer() || this.document.getRoot().listBuffers()[0] || null;
		const time = this.document.createAccessor().setType(Accessor.Type.SCALAR)
			.setArray(new Float32Array([input.getElement(0, [])[0]])).setBuffer(buffer);
		const held = this.document.createAccessor().setType(Accessor.Type.VEC4)
			.setArray(new Float32Array(value)).setBuffer(buffer);
		const step = this.document.createAnimationSampler().setInput(time).setOutput(held)
			.setInterpolation(AnimationSampler.Interpolation.STEP);
		animation.addSampler(step);
		return step;
	}

	/**
	 * After the core writer, which wrote each animation's samplers and channels in list order:
	 * the extension's sampler index is its place in animation.listSamplers().
	 */
	write(context) {
		const animationDefs = context.jsonDoc.json.animations || [];
		for (const animation of this.document.getRoot().listAnimations()) {
			const animationDef = animationDefs[context.animationIndexMap.get(animation)];
			const samplers = animation.listSamplers();
			animation.listChannels().forEach((channel, c) => {
				const extension = channel.getExtension(EXT_ANIMATION_SQLERP);
				if (extension) this._writeChannel(animationDef.channels[c], extension, samplers, animation);
			});
		}
		return this;
	}

	_writeChannel(channelDef, extension, samplers, animation) {
		const index = samplers.indexOf(extension.getSampler());
		if (index < 0) {
			this.document.getLogger().warn(`${EXT_ANIMATION_SQLERP}: a channel of animation ` +
				`"${animation.getName()}" names a sampler that is not in that animation; not written.`);
			return;
		}
		channelDef.extensions = channelDef.extensions || {};
		channelDef.extensions[EXT_ANIMATION_SQLERP] = { sampler: index };
	}
}

/** q / |q| (a zero quaternion becomes the identity, as in the project's other readers). */
function unitQuaternion(q) {
	const length = Math.hypot(...q);
	return length > 0 ? q.map((c) => c / length) : [0, 0, 0, 1];
}
