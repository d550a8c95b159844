// The resolve hook registered by resolve_three.mjs: the pinned web packages (`three`, `three/...`,
// `@babylonjs/...`) resolve as if imported from a module inside the pinned node_modules folder;
// every other specifier as usual.

let parentURL;

const PINNED = /^(three|@babylonjs\/[^/]+|babylonjs-gltf2interface)(\/|$)/;

export async function initialize(data) {
	parentURL = data.parentURL;
}

export async function resolve(specifier, context, nextResolve) {
	if (PINNED.test(specifier)) {
		return nextResolve(specifier, { ...context, parentURL });
	}
	return nextResolve(specifier, context);
}
