// Must NOT compile (tests/test_web_package.py expects exactly these two errors): the declarations are
// in effect, not an `any` that accepts everything.

import { GLTFAnimationSqlerpExtension } from 'ext-animation-sqlerp/three';
import { AnimationSqlerp } from 'ext-animation-sqlerp/gltf-transform';

export const plugin = new GLTFAnimationSqlerpExtension(42); // TS2345: a number is not a GLTFParser
export const sampler: number = (null as unknown as AnimationSqlerp).getSampler(); // TS2322: not a number
