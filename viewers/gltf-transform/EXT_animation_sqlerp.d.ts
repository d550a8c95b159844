// Type declarations of EXT_animation_sqlerp.js beside this file, in the style of
// @gltf-transform/extensions' own (an ExtensionProperty and its Extension).
//
// SPDX-License-Identifier: MIT (viewers/LICENSE).

import {
	AnimationSampler, Extension, ExtensionProperty, IProperty, Nullable, PropertyType, ReaderContext, WriterContext,
} from '@gltf-transform/core';

export declare const EXT_ANIMATION_SQLERP = 'EXT_animation_sqlerp';
export declare const CUBICSLERP = 'CUBICSLERP';

interface IAnimationSqlerp extends IProperty {
	sampler: AnimationSampler;
}

/** The extension object of one animation channel: its CUBICSLERP sampler, a graph reference. */
export declare class AnimationSqlerp extends ExtensionProperty<IAnimationSqlerp> {
	static EXTENSION_NAME: typeof EXT_ANIMATION_SQLERP;
	extensionName: typeof EXT_ANIMATION_SQLERP;
	propertyType: 'AnimationSqlerp';
	parentTypes: [PropertyType.ANIMATION_CHANNEL];
	protected init(): void;
	protected getDefaults(): Nullable<IAnimationSqlerp>;
	/** The CUBICSLERP sampler that plays the channel. */
	getSampler(): AnimationSampler | null;
	/** A CUBICSLERP sampler of the channel's animation. */
	setSampler(sampler: AnimationSampler | null): this;
}

/** Why a sampler cannot play a channel through the extension, or null when it can. */
export declare function samplerProblem(sampler: AnimationSampler | null, targetPath: string | null): string | null;

/** The extension: `io.registerExtensions([EXTAnimationSqlerp])`, or in a CLI config's `extensions`. */
export declare class EXTAnimationSqlerp extends Extension {
	static readonly EXTENSION_NAME: typeof EXT_ANIMATION_SQLERP;
	readonly extensionName: typeof EXT_ANIMATION_SQLERP;
	/** A new extension object, for `channel.setExtension('EXT_animation_sqlerp', ...)`. */
	createAnimationSqlerp(): AnimationSqlerp;
	read(context: ReaderContext): this;
	write(context: WriterContext): this;
}
