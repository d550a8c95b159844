// Type declarations of gltf-transform.config.mjs: the CLI configuration it exports.
//
// SPDX-License-Identifier: MIT (viewers/LICENSE).

import type { Extension } from '@gltf-transform/core';

declare const config: { extensions: (typeof Extension)[] };
export default config;
