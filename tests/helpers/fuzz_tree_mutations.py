"""The fuzzer's mutations of the JSON tree (tests/helpers/fuzz_strategies.py draws them).

Hostile values (numbers out of range, NaN, strings that look like other types, deep nests) put
anywhere in the tree, keys deleted, arrays duplicated, integers (indices) swapped, cycles in node
children; and structured ones that know the schema: the fields of accessors, buffer views,
mesh primitives, skins and materials, and animations' samplers, channels, targets and
EXT_animation_sqlerp payloads. Each mutation takes (draw, case) and changes the case in place.
"""

import copy
import math

from hypothesis import strategies as st

# --- hostile values ---------------------------------------------------------------------------

HOSTILE_NUMBERS = [-1, 0, 1, 2, 3, 4, 5, 7, 255, 256, 5120, 5121, 5122, 5123, 5125, 5126, 5124,
                   65535, 2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**53, 2**63, 2**64, -2**63, 10**30,
                   0.5, -0.0, 1e-300, 1e308, -1e308, math.nan, math.inf, -math.inf]
HOSTILE_STRINGS = ["", "NaN", "Infinity", "-1", "0", "null", "CUBICSLERP", "CUBICSPLINE", "LINEAR",
                   "STEP", "cubicslerp", "SCALAR", "VEC4", "MAT4", "rotation", "weights",
                   "translation", "scale", "pointer", "../escape.bin", "/etc/passwd",
                   "data:application/octet-stream;base64,AAAA", "data:,x", "a" * 300, "\u0000",
                   "\ud7ff\ufffd", "~1/~0"]

hostile_numbers = st.one_of(st.sampled_from(HOSTILE_NUMBERS),
                            st.integers(-2**70, 2**70), st.floats(allow_nan=True))
hostile_scalars = st.one_of(st.none(), st.booleans(), hostile_numbers, st.sampled_from(HOSTILE_STRINGS))


def _nest(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


hostile_values = st.one_of(
    hostile_scalars,
    st.lists(hostile_scalars, max_size=5),
    st.dictionaries(st.sampled_from(["sampler", "input", "output", "node", "path", "count", "x"]),
                    hostile_scalars, max_size=3),
    st.builds(_nest, st.sampled_from([50, 500])),  # deeper nests: m_text "deep" (json.dumps recurses)
)


# --- tree helpers -----------------------------------------------------------------------------

def _paths(tree, prefix=()):
    """Every (path, value) in the tree, the root excluded."""
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else ()
    for key, value in items:
        path = prefix + (key,)
        yield path, value
        yield from _paths(value, path)


def _get(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def _set(tree, path, value):
    _get(tree, path[:-1])[path[-1]] = value


def object_indices(tree: object, key: str) -> list[int]:
    """The indices of the objects in ``tree[key]`` (an array whose other items are skipped)."""
    value = tree.get(key) if isinstance(tree, dict) else None
    return [i for i, item in enumerate(value) if isinstance(item, dict)] if isinstance(value, list) else []


# --- mutations: each takes (draw, case) and mutates the case in place --------------------------

def m_replace(draw, case):
    paths = [p for p, _ in _paths(case.json)]
    if not paths:
        return
    path = draw(st.sampled_from(paths))
    value = draw(hostile_values)
    _set(case.json, path, value)
    case.steps.append(f"replace {_ptr(path)} = {short_repr(value)}")


def m_delete(draw, case):
    paths = [p for p, _ in _paths(case.json)]
    if not paths:
        return
    path = draw(st.sampled_from(paths))
    parent = _get(case.json, path[:-1])
    del parent[path[-1]]
    case.steps.append(f"delete {_ptr(path)}")


def m_duplicate_array(draw, case):
    arrays = [p for p, v in _paths(case.json) if isinstance(v, list) and v]
    if not arrays:
        return
    path = draw(st.sampled_from(arrays))
    array = _get(case.json, path)
    times = draw(st.sampled_from([2, 3, 50]))
    if len(array) * times > 5000:
        times = 2  # inputs stay a few MB at most: time goes into variety, not json.loads
    _set(case.json, path, copy.deepcopy(array) * times)
    case.steps.append(f"duplicate {_ptr(path)} x{times}")


def m_swap_ints(draw, case):
    ints = [p for p, v in _paths(case.json) if isinstance(v, int) and not isinstance(v, bool)]
    if len(ints) < 2:
        return
    a, b = draw(st.sampled_from(ints)), draw(st.sampled_from(ints))
    va, vb = _get(case.json, a), _get(case.json, b)
    _set(case.json, a, vb)
    _set(case.json, b, va)
    case.steps.append(f"swap {_ptr(a)} <-> {_ptr(b)}")


def m_cycle(draw, case):
    nodes = case.json.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        case.json["nodes"] = nodes = [{}]
    size = len(nodes)
    a = draw(st.integers(0, size - 1))
    b = draw(st.integers(0, size - 1))
    for parent, child in ((a, b), (b, a)):
        if isinstance(nodes[parent], dict):
            children = nodes[parent].get("children")
            nodes[parent]["children"] = (children if isinstance(children, list) else []) + [child]
    case.steps.append(f"cycle nodes {a} <-> {b}")


ACCESSOR_FIELDS = {
    "count": st.one_of(st.sampled_from([0, 1, 2, 3, 1000, 2**24, 2**31, 2**62, -1]), hostile_values),
    "byteOffset": st.one_of(st.sampled_from([1, 2, 3, 4, 4096, 2**31, -4]), hostile_values),
    "componentType": st.one_of(st.sampled_from([5120, 5121, 5122, 5123, 5124, 5125, 5126, 0]),
                               hostile_values),
    "type": st.one_of(st.sampled_from(["SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4", "VEC5"]),
                      hostile_values),
    "normalized": st.one_of(st.booleans(), hostile_values),
    "min": st.one_of(st.lists(hostile_numbers, max_size=17), hostile_values),
    "max": st.one_of(st.lists(hostile_numbers, max_size=17), hostile_values),
    "bufferView": st.one_of(st.integers(-1, 40), hostile_values),
}

small_ints = st.one_of(st.integers(-2, 40), st.sampled_from([2**31, 2**32, 2**62]))
sparse_blocks = st.fixed_dictionaries(
    {"count": st.one_of(st.integers(-1, 100), st.sampled_from([2**24, 2**40]))},
    optional={
        "indices": st.fixed_dictionaries(
            {"bufferView": small_ints,
             "componentType": st.sampled_from([5121, 5123, 5125, 5126, 5120, 7])},
            optional={"byteOffset": small_ints}),
        "values": st.fixed_dictionaries({"bufferView": small_ints}, optional={"byteOffset": small_ints}),
    })
ACCESSOR_FIELDS["sparse"] = st.one_of(sparse_blocks, hostile_values)

VIEW_FIELDS = {
    "byteLength": st.one_of(st.sampled_from([0, 1, 3, 4, 2**31, 2**40, -8]), hostile_values),
    "byteOffset": st.one_of(st.sampled_from([1, 2, 3, 4, 4096, 2**31, -4]), hostile_values),
    "byteStride": st.one_of(st.sampled_from([0, 1, 3, 4, 8, 12, 16, 252, 256, 2**31]), hostile_values),
    "buffer": st.one_of(st.integers(-1, 3), hostile_values),
    "target": st.one_of(st.sampled_from([34962, 34963]), hostile_values),
}


def _mutate_field(draw, case, key, fields):
    indices = object_indices(case.json, key)
    if not indices:
        return
    i = draw(st.sampled_from(indices))
    name = draw(st.sampled_from(sorted(fields)))
    if draw(st.booleans()) and name in case.json[key][i] and draw(st.booleans()):
        del case.json[key][i][name]
        case.steps.append(f"delete /{key}/{i}/{name}")
        return
    value = draw(fields[name])
    case.json[key][i][name] = value
    case.steps.append(f"set /{key}/{i}/{name} = {short_repr(value)}")


# Meshes, skins and materials (what Blender's importer builds besides the animations).
PRIMITIVE_FIELDS = {
    "attributes": st.one_of(st.dictionaries(
        st.sampled_from(["POSITION", "NORMAL", "TANGENT", "TEXCOORD_0", "COLOR_0", "JOINTS_0",
                         "WEIGHTS_0", "_CUSTOM"]), st.one_of(small_ints, hostile_values), max_size=4),
        hostile_values),
    "indices": st.one_of(small_ints, hostile_values),
    "material": st.one_of(small_ints, hostile_values),
    "mode": st.one_of(st.integers(-1, 8), hostile_values),
    "targets": st.one_of(st.lists(st.dictionaries(st.sampled_from(["POSITION", "NORMAL"]), small_ints,
                                                  max_size=2), max_size=3), hostile_values),
}
SKIN_FIELDS = {
    "joints": st.one_of(st.lists(small_ints, max_size=6), hostile_values),
    "inverseBindMatrices": st.one_of(small_ints, hostile_values),
    "skeleton": st.one_of(small_ints, hostile_values),
}
MATERIAL_FIELDS = {
    "pbrMetallicRoughness": st.one_of(st.fixed_dictionaries({}, optional={
        "baseColorTexture": st.fixed_dictionaries({"index": st.one_of(small_ints, hostile_values)}),
        "baseColorFactor": st.one_of(st.lists(hostile_numbers, max_size=5), hostile_values)}), hostile_values),
    "normalTexture": st.one_of(st.fixed_dictionaries({"index": small_ints}), hostile_values),
    "alphaMode": st.one_of(st.sampled_from(["OPAQUE", "MASK", "BLEND", "NONE"]), hostile_values),
}


def m_mesh(draw, case):
    meshes = object_indices(case.json, "meshes")
    if not meshes:
        return
    mesh = draw(st.sampled_from(meshes))
    primitives = case.json["meshes"][mesh].get("primitives")
    if not isinstance(primitives, list) or not primitives or not isinstance(primitives[0], dict):
        return
    name = draw(st.sampled_from(sorted(PRIMITIVE_FIELDS)))
    value = draw(PRIMITIVE_FIELDS[name])
    primitives[0][name] = value
    case.steps.append(f"set /meshes/{mesh}/primitives/0/{name} = {short_repr(value)}")


def m_skin(draw, case):
    _mutate_field(draw, case, "skins", SKIN_FIELDS)


def m_material(draw, case):
    if not isinstance(case.json.get("materials"), list) or not case.json["materials"]:
        case.json["materials"] = [{}]
    _mutate_field(draw, case, "materials", MATERIAL_FIELDS)


def m_accessor(draw, case):
    _mutate_field(draw, case, "accessors", ACCESSOR_FIELDS)


def m_buffer_view(draw, case):
    _mutate_field(draw, case, "bufferViews", VIEW_FIELDS)


INTERPOLATIONS = ["STEP", "LINEAR", "CUBICSPLINE", "CUBICSLERP", "cubicslerp", "SLERP", "", "CUBIC"]
PATHS = ["translation", "rotation", "scale", "weights", "matrix", "pointer", ""]


def m_animation(draw, case):
    animations = object_indices(case.json, "animations")
    if not animations:
        return
    a = draw(st.sampled_from(animations))
    animation = case.json["animations"][a]
    where = f"/animations/{a}"
    what = draw(st.sampled_from(["interpolation", "sampler io", "channel sampler", "target",
                                 "extension", "extension lists", "new sampler"]))
    samplers = animation.get("samplers") if isinstance(animation.get("samplers"), list) else []
    channels = animation.get("channels") if isinstance(animation.get("channels"), list) else []
    sampler_ids = [i for i, s in enumerate(samplers) if isinstance(s, dict)]
    channel_ids = [i for i, c in enumerate(channels) if isinstance(c, dict)]
    if what == "interpolation" and sampler_ids:
        s = draw(st.sampled_from(sampler_ids))
        value = draw(st.one_of(st.sampled_from(INTERPOLATIONS), hostile_values))
        samplers[s]["interpolation"] = value
        case.steps.append(f"set {where}/samplers/{s}/interpolation = {short_repr(value)}")
    elif what == "sampler io" and sampler_ids:
        s = draw(st.sampled_from(sampler_ids))
        key = draw(st.sampled_from(["input", "output"]))
        value = draw(st.one_of(st.integers(-1, 30), hostile_values))
        samplers[s][key] = value
        case.steps.append(f"set {where}/samplers/{s}/{key} = {short_repr(value)}")
    elif what == "channel sampler" and channel_ids:
        c = draw(st.sampled_from(channel_ids))
        value = draw(st.one_of(st.integers(-1, len(samplers) + 1), hostile_values))
        channels[c]["sampler"] = value
        case.steps.append(f"set {where}/channels/{c}/sampler = {short_repr(value)}")
    elif what == "target" and channel_ids:
        c = draw(st.sampled_from(channel_ids))
        target = channels[c].get("target")
        target = dict(target) if isinstance(target, dict) else {}
        key = draw(st.sampled_from(["node", "path"]))
        value = draw(st.one_of(st.integers(-1, 30) if key == "node" else st.sampled_from(PATHS),
                               hostile_values))
        target[key] = value
        channels[c]["target"] = target
        case.steps.append(f"set {where}/channels/{c}/target/{key} = {short_repr(value)}")
    elif what == "extension" and channel_ids:
        c = draw(st.sampled_from(channel_ids))
        payload = draw(st.one_of(
            st.fixed_dictionaries({"sampler": st.one_of(st.integers(-1, len(samplers) + 1),
                                                         hostile_values)}),
            hostile_values))
        channels[c]["extensions"] = {"EXT_animation_sqlerp": payload}
        if draw(st.booleans()):
            channels[c].pop("sampler", None)  # the draft's channel without a core sampler
        case.steps.append(f"set {where}/channels/{c}/extensions = {short_repr(payload)}")
    elif what == "extension lists":
        key = draw(st.sampled_from(["extensionsUsed", "extensionsRequired"]))
        value = draw(st.one_of(st.sampled_from([["EXT_animation_sqlerp"], [], ["KHR_unknown"],
                                                ["EXT_animation_sqlerp"] * 2]), hostile_values))
        case.json[key] = value
        case.steps.append(f"set /{key} = {short_repr(value)}")
    else:
        accessors = len(case.json.get("accessors", [])) if isinstance(case.json.get("accessors"), list) else 0
        sampler = {"input": draw(st.integers(0, max(accessors, 1))),
                   "output": draw(st.integers(0, max(accessors, 1))),
                   "interpolation": draw(st.sampled_from(INTERPOLATIONS))}
        samplers.append(sampler)
        animation["samplers"] = samplers
        case.steps.append(f"append {where}/samplers {sampler}")


def _ptr(path):
    return "/" + "/".join(str(p) for p in path)


def short_repr(value: object) -> str:
    """``repr(value)``, cut to 80 characters: a step of a case's recipe."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
