// Must NOT compile (tests/web/test_web_package.py expects exactly these three errors): the declarations are
// in effect, not an `any` that accepts everything.

import { GLTFAnimationSqlerpExtension } from 'ext-animation-sqlerp/three';
import { AnimationSqlerp } from 'ext-animation-sqlerp/gltf-transform';
import { rotationAnimation } from 'ext-animation-sqlerp/babylon';

export const plugin = new GLTFAnimationSqlerpExtension(42); // TS2345: a number is not a GLTFParser
export const sampler: number = (null as unknown as AnimationSqlerp).getSampler(); // TS2322: not a number
export const turn = rotationAnimation('turn', 60, [0, 1], [0, 0, 0, 1], 'SLERP'); // TS2345: not an interpolation
