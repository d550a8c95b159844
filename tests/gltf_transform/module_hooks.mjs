// The resolve hook registered by resolve_modules.mjs: `@gltf-transform/...` resolves as if imported
// from a module inside the pinned node_modules folder; every other specifier as usual.

let parentURL;

export async function initialize(data) {
	parentURL = data.parentURL;
}

export async function resolve(specifier, context, nextResolve) {
	if (specifier.startsWith('@gltf-transform/')) {
		return nextResolve(specifier, { ...context, parentURL });
	}
	return nextResolve(specifier, context);
}
