// A glTF-Transform CLI configuration that adds EXT_animation_sqlerp to every extension the CLI knows:
//
//   npx gltf-transform copy in.glb out.glb --config gltf-transform.config.mjs
//
// The CLI's own list is replaced by `extensions`, hence ALL_EXTENSIONS. Keep this file beside
// EXT_animation_sqlerp.js, in a project where @gltf-transform/cli is installed (README.md).
//
// SPDX-License-Identifier: MIT (viewers/LICENSE).

import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { EXTAnimationSqlerp } from './EXT_animation_sqlerp.js';

export default { extensions: [...ALL_EXTENSIONS, EXTAnimationSqlerp] };
