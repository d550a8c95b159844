// The resolve hook registered by resolve_modules.mjs: `@gltf-transform/...` and the CLI's codecs
// (`meshoptimizer`, `draco3dgltf`) resolve as if imported from a module inside the pinned
// node_modules folder; every other specifier as usual.

const CODECS = new Set(['meshoptimizer', 'draco3dgltf']);
let parentURL;

export async function initialize(data) {
	parentURL = data.parentURL;
}

export async function resolve(specifier, context, nextResolve) {
	if (specifier.startsWith('@gltf-transform/') || CODECS.has(specifier)) {
		return nextResolve(specifier, { ...context, parentURL });
	}
	return nextResolve(specifier, context);
}
