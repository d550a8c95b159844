// Type declarations of EXT_animation_sqlerp.js beside this file: the extension's arithmetic, shared
// by the players, with no engine.
//
// SPDX-License-Identifier: MIT (viewers/LICENSE).

/** Numbers by index: a typed array or a plain array. */
type Numbers = ArrayLike<number> & { [index: number]: number };

export declare const EXTENSION_NAME = 'EXT_animation_sqlerp';
export declare const CUBICSLERP = 'CUBICSLERP';
/** Numbers per CUBICSLERP or CUBICSPLINE key: in-tangent, value and out-tangent quaternions. */
export declare const STRIDE = 12;

/** q / |q| into out at o (a zero quaternion becomes the identity). */
export declare function normalizeInto(out: Numbers, o: number, x: number, y: number, z: number, w: number): void;
/** LINEAR rotation keys (unitKeys) at u between key k and k + 1: the glTF slerp, into out at o. */
export declare function slerpKeysInto(out: Numbers, o: number, keys: ArrayLike<number>, k: number, u: number): void;
/** CUBICSLERP keys (cubicSlerpKeys) at u between key k and k + 1: the spec's q(t), into out at o. */
export declare function cubicSlerpInto(out: Numbers, o: number, keys: ArrayLike<number>, k: number, u: number): void;
/** CUBICSLERP outputs made unit length once, in double precision. */
export declare function cubicSlerpKeys(values: ArrayLike<number>): Float64Array;
/** A rotation sampler's outputs with every key's value made unit length. */
export declare function unitKeys<T extends Numbers = Float64Array>(values: ArrayLike<number>, interpolation: string,
	ArrayType?: { from(values: ArrayLike<number>): T }): T;

/** A sampler's outputs as cubicSlerpProblem reads them. */
export interface Outputs {
	count: number;
	components: number;
	values: ArrayLike<number>;
}
/** Why a CUBICSLERP sampler cannot play (null when it can). */
export declare function cubicSlerpProblem(path: string, keys: number, output: Outputs): string | null;

/** One of a channel's candidate samplers, as firstPlayable takes it. */
export interface Choice {
	sampler: { interpolation?: string };
	keys: number;
	outputs: Outputs;
}
/** The first candidate that can play; a broken CUBICSLERP sampler is passed over with a warning. */
export declare function firstPlayable<T extends Choice>(choices: T[], path: string, pointer: string): T | undefined;

/** A channel's target; a KHR_animation_pointer to a node's TRS or weights becomes that node channel. */
export declare function nodeTarget(target: { node?: number; path: string; extensions?: Record<string, unknown> }):
	{ node?: number; path: string };
/** The indices of the samplers a channel may play, best first: the extension's, then its own. */
export declare function candidateSamplers(animationDef: { samplers: unknown[] },
	channel: { sampler?: number; extensions?: Record<string, unknown> }): number[];
