// Compiled with TypeScript (strict) in the scratch project of tests/test_web_package.py: every entry
// point's declarations, used as a user's TypeScript code uses them. It is type-checked only, never run.

import { NodeIO } from '@gltf-transform/core';
import { EXTAnimationSqlerp, AnimationSqlerp, samplerProblem } from 'ext-animation-sqlerp/gltf-transform';
import config from 'ext-animation-sqlerp/gltf-transform/config';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { GLTFAnimationSqlerpExtension, cubicSlerpTrack, CubicSlerpInterpolant } from 'ext-animation-sqlerp/three';

const io = new NodeIO().registerExtensions([EXTAnimationSqlerp, ...config.extensions]);
const loader = new GLTFLoader().register((parser) => new GLTFAnimationSqlerpExtension(parser));
const track = cubicSlerpTrack('a.quaternion', [0, 1], new Float32Array(24));
const interpolant: CubicSlerpInterpolant = new CubicSlerpInterpolant([0, 1], new Float64Array(24), 4);
async function main(): Promise<void> {
	const document = await io.read('x.glb');
	const channel = document.getRoot().listAnimations()[0].listChannels()[0];
	const extension = channel.getExtension<AnimationSqlerp>('EXT_animation_sqlerp');
	const problem: string | null = samplerProblem(extension ? extension.getSampler() : null, channel.getTargetPath());
	console.log(problem, loader, track, interpolant);
}
void main();
