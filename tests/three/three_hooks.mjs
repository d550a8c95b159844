// The resolve hook registered by resolve_three.mjs: `three` and `three/...` resolve as if imported
// from a module inside the pinned node_modules folder; every other specifier as usual.

let parentURL;

export async function initialize(data) {
	parentURL = data.parentURL;
}

export async function resolve(specifier, context, nextResolve) {
	if (specifier === 'three' || specifier.startsWith('three/')) {
		return nextResolve(specifier, { ...context, parentURL });
	}
	return nextResolve(specifier, context);
}
