// Build a glTF file from a script with viewers/gltf-transform/EXT_animation_sqlerp.js, the way its
// README shows: one node turned about Z by a CUBICSLERP channel in the schema-valid required form.
//
//   node --import ./tests/gltf_transform/resolve_modules.mjs tests/gltf_transform/build.mjs OUT.gltf
//
// Keys at 0 s and 1 s: v_1 the identity, v_2 90 degrees about Z, b_1 = a_2 45 degrees about Z
// (tests/web/test_three_player.py works the curve out by hand). a_1 = v_1 and b_2 = v_2. The channel's
// core sampler is one STEP key holding v_1; the CUBICSLERP sampler is added to the animation first,
// so that its written index (0) differs from the core sampler's (1) and from the order of creation.

import { Accessor, Document, NodeIO } from '@gltf-transform/core';
import { EXTAnimationSqlerp } from '../../viewers/gltf-transform/EXT_animation_sqlerp.js';

function aboutZ(degrees) {
	const half = (degrees * Math.PI) / 360;
	return [0, 0, Math.sin(half), Math.cos(half)];
}

function accessor(document, buffer, type, values) {
	return document.createAccessor().setType(type).setArray(new Float32Array(values)).setBuffer(buffer);
}

const document = new Document();
const buffer = document.createBuffer();
const node = document.createNode('turned');
document.createScene().addChild(node);

const step = document.createAnimationSampler().setInterpolation('STEP')
	.setInput(accessor(document, buffer, Accessor.Type.SCALAR, [0]))
	.setOutput(accessor(document, buffer, Accessor.Type.VEC4, aboutZ(0)));
const cubic = document.createAnimationSampler().setInterpolation('CUBICSLERP')
	.setInput(accessor(document, buffer, Accessor.Type.SCALAR, [0, 1]))
	.setOutput(accessor(document, buffer, Accessor.Type.VEC4,
		[aboutZ(0), aboutZ(0), aboutZ(45), aboutZ(45), aboutZ(90), aboutZ(90)].flat()));
const channel = document.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(step);
document.createAnimation('Turn').addSampler(cubic).addSampler(step).addChannel(channel);

const extension = document.createExtension(EXTAnimationSqlerp).setRequired(true);
channel.setExtension('EXT_animation_sqlerp', extension.createAnimationSqlerp().setSampler(cubic));

await new NodeIO().registerExtensions([EXTAnimationSqlerp]).write(process.argv[2], document);
