// Node.js module hooks for the glTF-Transform tests: resolve `@gltf-transform/...` from the pinned
// node_modules folder that dev.py installs (GLTF_SQLERP_VALIDATOR, by default
// <repository>/.node/node_modules). viewers/gltf-transform/ and the tests import the packages by
// their bare names, as a user's project does, but have no node_modules beside them; the CLI itself
// lives in that folder, so it and our extension share one copy of @gltf-transform/core (the
// Extension and ExtensionProperty classes must be the same objects for the graph to take ours).
//
//   node --import ./tests/gltf_transform/resolve_modules.mjs tests/gltf_transform/transform.mjs JOB.json

import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.GLTF_SQLERP_VALIDATOR || path.resolve(here, '..', '..', '.node', 'node_modules');

register('./module_hooks.mjs', import.meta.url, { data: { parentURL: pathToFileURL(path.join(modules, 'x.mjs')).href } });
