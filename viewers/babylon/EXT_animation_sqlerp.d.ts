// Type declarations of EXT_animation_sqlerp.js beside this file (types from @babylonjs/core and
// @babylonjs/loaders).
//
// SPDX-License-Identifier: MIT (viewers/LICENSE).

import { Animation } from '@babylonjs/core/Animations/animation.js';
import { Quaternion } from '@babylonjs/core/Maths/math.vector.js';
import type { GLTFLoader } from '@babylonjs/loaders/glTF/2.0/glTFLoader.js';
import type { IGLTFLoaderExtension } from '@babylonjs/loaders/glTF/2.0/glTFLoaderExtension.js';

export declare const EXTENSION_NAME = 'EXT_animation_sqlerp';
export declare const CUBICSLERP = 'CUBICSLERP';

/** A rotation Animation whose LINEAR and CUBICSLERP intervals play the spec's formula exactly. */
export declare class SqlerpAnimation extends Animation {
	quaternionInterpolateFunction(startValue: Quaternion, endValue: Quaternion, gradient: number): Quaternion;
	quaternionInterpolateFunctionWithTangents(startValue: Quaternion, outTangent: Quaternion, endValue: Quaternion,
		inTangent: Quaternion, gradient: number): Quaternion;
	clone(): SqlerpAnimation;
}

/** The Animation of `rotationQuaternion` for one sampler's times and decoded outputs, at `fps`. */
export declare function rotationAnimation(name: string, fps: number, times: ArrayLike<number>,
	values: ArrayLike<number>, interpolation?: 'STEP' | 'LINEAR' | 'CUBICSPLINE' | 'CUBICSLERP'): SqlerpAnimation;

/** The glTF 2.0 loader extension (registerSqlerpExtension registers it for every file). */
export declare class GLTFAnimationSqlerpExtension implements IGLTFLoaderExtension {
	readonly name: typeof EXTENSION_NAME;
	enabled: boolean;
	order: number;
	constructor(loader: GLTFLoader);
	dispose(): void;
}

/** Make every glTF file loaded from now on play EXT_animation_sqlerp (and exact rotations). */
export declare function registerSqlerpExtension(): void;
/** Back to Babylon alone; whether the extension was registered. */
export declare function unregisterSqlerpExtension(): boolean;
