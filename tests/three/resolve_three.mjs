// Node.js module hooks for the web players' tests: resolve the bare specifiers `three`, `three/...` and
// `@babylonjs/...`
// from the pinned node_modules folder that dev.py installs (GLTF_SQLERP_VALIDATOR, by default
// <repository>/.node/node_modules), as a browser's import map does for viewers/three/. Without this,
// Node.js would look for node_modules beside viewers/three/ and tests/three/, where there is none.
//
//   node --import ./tests/three/resolve_three.mjs tests/three/play.mjs JOB.json

import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.GLTF_SQLERP_VALIDATOR || path.resolve(here, '..', '..', '.node', 'node_modules');

register('./three_hooks.mjs', import.meta.url, { data: { parentURL: pathToFileURL(path.join(modules, 'x.mjs')).href } });
