// Compiled with TypeScript (strict) in the scratch project of tests/web/test_web_package.py: every entry
// point's declarations, used as a user's TypeScript code uses them. It is type-checked only, never run.

import { NodeIO } from '@gltf-transform/core';
import { EXTAnimationSqlerp, AnimationSqlerp, samplerProblem } from 'ext-animation-sqlerp/gltf-transform';
import config from 'ext-animation-sqlerp/gltf-transform/config';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { GLTFAnimationSqlerpExtension, cubicSlerpTrack, CubicSlerpInterpolant } from 'ext-animation-sqlerp/three';
import { registerSqlerpExtension, rotationAnimation, SqlerpAnimation } from 'ext-animation-sqlerp/babylon';
import { cubicSlerpInto, cubicSlerpKeys, EXTENSION_NAME } from 'ext-animation-sqlerp';

const io = new NodeIO().registerExtensions([EXTAnimationSqlerp, ...config.extensions]);
const loader = new GLTFLoader().register((parser) => new GLTFAnimationSqlerpExtension(parser));
const track = cubicSlerpTrack('a.quaternion', [0, 1], new Float32Array(24));
const interpolant: CubicSlerpInterpolant = new CubicSlerpInterpolant([0, 1], new Float64Array(24), 4);
registerSqlerpExtension();
const played: SqlerpAnimation = rotationAnimation('turn', 60, [0, 1], new Float32Array(24), 'CUBICSLERP');
const out = new Float64Array(4);
cubicSlerpInto(out, 0, cubicSlerpKeys(new Float32Array(24)), 0, 0.5);
const name: 'EXT_animation_sqlerp' = EXTENSION_NAME;
async function main(): Promise<void> {
	const document = await io.read('x.glb');
	const channel = document.getRoot().listAnimations()[0].listChannels()[0];
	const extension = channel.getExtension<AnimationSqlerp>('EXT_animation_sqlerp');
	const problem: string | null = samplerProblem(extension ? extension.getSampler() : null, channel.getTargetPath());
	console.log(problem, loader, track, interpolant, played, out, name);
}
void main();
