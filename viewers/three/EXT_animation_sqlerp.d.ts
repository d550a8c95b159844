// Type declarations of EXT_animation_sqlerp.js beside this file (types from @types/three).
//
// SPDX-License-Identifier: MIT (viewers/LICENSE).

import { Interpolant, QuaternionKeyframeTrack, TypedArray } from 'three';
import { GLTF, GLTFLoaderPlugin, GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';

export declare const EXTENSION_NAME = 'EXT_animation_sqlerp';
export declare const CUBICSLERP = 'CUBICSLERP';

/** An Interpolant over CUBICSLERP keys: in-tangent, value and out-tangent quaternion per key. */
export declare class CubicSlerpInterpolant extends Interpolant {
	constructor(parameterPositions: ArrayLike<number>, sampleValues: ArrayLike<number>, sampleSize: number,
		resultBuffer?: TypedArray);
	interpolate_(i1: number, t0: number, t: number, t1: number): TypedArray;
}

/** LINEAR rotation keys played with glTF 2.0 Appendix C's slerp in double precision. */
export declare class SlerpInterpolant extends Interpolant {
	constructor(parameterPositions: ArrayLike<number>, sampleValues: ArrayLike<number>, sampleSize: number,
		resultBuffer?: TypedArray);
	interpolate_(i1: number, t0: number, t: number, t1: number): TypedArray;
}

/** A QuaternionKeyframeTrack that plays CUBICSLERP keys (times, and 12 values per key). */
export declare function cubicSlerpTrack(name: string, times: TypedArray | ArrayLike<number>,
	values: TypedArray | ArrayLike<number>): QuaternionKeyframeTrack;

/**
 * The GLTFLoader plugin: `loader.register((parser) => new GLTFAnimationSqlerpExtension(parser))`.
 * Public plugin hooks only: three.js' own loadAnimation builds every clip.
 */
export declare class GLTFAnimationSqlerpExtension implements GLTFLoaderPlugin {
	readonly name: typeof EXTENSION_NAME;
	readonly parser: GLTFParser;
	constructor(parser: GLTFParser);
	/** Rewrites copies of parser.json's animations so that three.js loads every channel. */
	beforeRoot(): Promise<void>;
	/** Restores parser.json's animations and plays the rotation tracks of `result.animations` exactly. */
	afterRoot(result: GLTF): Promise<void>;
}
