"""Structure-aware hypothesis strategies that turn valid glTF files into hostile ones (not a test
module: tests/core/test_fuzz_core.py and bench/fuzz_campaign.py use it).

A seed is a real file split into its parts: the JSON tree, the GLB BIN chunk (for .glb) and the
external buffer files (for .gltf). ``cases()`` draws a seed and one to five mutations of it:

- JSON level: replace any value of the tree by another type, an out-of-range, negative or huge
  number, NaN/Infinity, a NaN-like or empty string, a deep nest; delete a key; duplicate an array;
  swap two integers (indices); put cycles into node children;
- accessor / buffer view level: count, byteOffset, byteStride, componentType, type, normalized,
  min/max, sparse fields (whole sparse blocks with hostile numbers);
- animation level: interpolation strings (CUBICSLERP included), sampler, input/output and channel
  node indices, target paths, EXT_animation_sqlerp payloads and extensionsUsed/Required;
- binary level: flip, truncate or extend the BIN chunk or an external .bin, a buffer turned into
  a ``data:`` URI with hostile base64; GLB header and chunk lengths, version, chunk types; raw
  truncation or byte flips of the serialized JSON text.

``Case.write(folder)`` writes the file (and its external buffers) into a folder and returns its path,
for ``core.load``; ``repr(case)`` names the seed and the mutations, so a failure reads as a recipe.
"""

import base64
import copy
import json
import math
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("GLTF_SQLERP_SHARED", ROOT.parent / "shared"))
ASSETS = SHARED / "assets"

SEED_PATHS = (
    [ROOT / "samples" / name for name in
     ("sqlerp_arm.gltf", "sqlerp_arm.glb", "sqlerp_arm_required.gltf")]
    + sorted((ASSETS / "validator").glob("*/*.gltf"))
    + [ASSETS / "khronos" / p for p in (
        "AnimatedTriangle/glTF/AnimatedTriangle.gltf",
        "BoxAnimated/glTF-Binary/BoxAnimated.glb",
        "InterpolationTest/glTF-Binary/InterpolationTest.glb",
        "RiggedSimple/glTF-Binary/RiggedSimple.glb",
        "SimpleSkin/glTF/SimpleSkin.gltf",
        "SimpleMorph/glTF/SimpleMorph.gltf",
        "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
    )]
)


@dataclass
class Seed:
    name: str
    kind: str            # "gltf" or "glb"
    json: dict
    bin: bytes | None = None    # the GLB BIN chunk
    files: dict = field(default_factory=dict)  # external buffer URI -> bytes


def _load_seed(path):
    data = path.read_bytes()
    if data[:4] == b"glTF":
        json_length, = struct.unpack_from("<I", data, 12)
        document = json.loads(data[20:20 + json_length])
        rest = data[20 + json_length:]
        binary = rest[8:8 + struct.unpack_from("<I", rest, 0)[0]] if len(rest) >= 8 else None
        return Seed(path.name, "glb", document, binary)
    document = json.loads(data)
    files = {}
    for buffer in document.get("buffers", []):
        uri = buffer.get("uri", "") if isinstance(buffer, dict) else ""
        if uri and not uri.startswith("data:") and (path.parent / uri).is_file():
            files[uri] = (path.parent / uri).read_bytes()
    return Seed(path.name, "gltf", document, None, files)


def load_seeds():
    missing = [p for p in SEED_PATHS if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"fuzz seeds missing (is ../shared/assets there?): {missing[:3]}")
    return [_load_seed(p) for p in SEED_PATHS]


SEEDS = load_seeds()


@dataclass
class Case:
    """A mutated seed: ``json`` (a tree, or raw text bytes after a text mutation), ``bin``,
    ``files``, and GLB framing overrides; ``steps`` says what was done, for readable failures."""
    seed: str
    kind: str
    json: object
    bin: bytes | None = None
    files: dict = field(default_factory=dict)
    glb: dict = field(default_factory=dict)   # version, length, json_type, bin_type, bin_length ...
    steps: list = field(default_factory=list)

    def __repr__(self):
        return f"Case(seed={self.seed!r}, steps={self.steps!r})"

    def json_bytes(self):
        if isinstance(self.json, bytes):
            return self.json
        return json.dumps(self.json, allow_nan=True).encode()

    def to_bytes(self):
        """The main file's bytes."""
        text = self.json_bytes()
        if self.kind != "glb":
            return text
        text += b" " * (-len(text) % 4)
        g = self.glb
        body = struct.pack("<II", g.get("json_length", len(text)), g.get("json_type", 0x4E4F534A)) + text
        if self.bin is not None:
            padded = self.bin + b"\0" * (-len(self.bin) % 4)
            body += struct.pack("<II", g.get("bin_length", len(padded)),
                                g.get("bin_type", 0x004E4942)) + padded
        body += g.get("trailer", b"")
        header = struct.pack("<4sII", g.get("magic", b"glTF"), g.get("version", 2),
                             g.get("length", 12 + len(body)))
        data = header + body
        if "cut" in g:
            data = data[:g["cut"] % (len(data) + 1)]
        return data

    def write(self, folder):
        folder = Path(folder)
        for uri, blob in self.files.items():
            target = folder / uri
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
        path = folder / ("fuzz.glb" if self.kind == "glb" else "fuzz.gltf")
        path.write_bytes(self.to_bytes())
        return path


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


def _objects(tree, key):
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
    case.steps.append(f"replace {_ptr(path)} = {_short(value)}")


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
    indices = _objects(case.json, key)
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
    case.steps.append(f"set /{key}/{i}/{name} = {_short(value)}")


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
    meshes = _objects(case.json, "meshes")
    if not meshes:
        return
    mesh = draw(st.sampled_from(meshes))
    primitives = case.json["meshes"][mesh].get("primitives")
    if not isinstance(primitives, list) or not primitives or not isinstance(primitives[0], dict):
        return
    name = draw(st.sampled_from(sorted(PRIMITIVE_FIELDS)))
    value = draw(PRIMITIVE_FIELDS[name])
    primitives[0][name] = value
    case.steps.append(f"set /meshes/{mesh}/primitives/0/{name} = {_short(value)}")


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
    animations = _objects(case.json, "animations")
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
        case.steps.append(f"set {where}/samplers/{s}/interpolation = {_short(value)}")
    elif what == "sampler io" and sampler_ids:
        s = draw(st.sampled_from(sampler_ids))
        key = draw(st.sampled_from(["input", "output"]))
        value = draw(st.one_of(st.integers(-1, 30), hostile_values))
        samplers[s][key] = value
        case.steps.append(f"set {where}/samplers/{s}/{key} = {_short(value)}")
    elif what == "channel sampler" and channel_ids:
        c = draw(st.sampled_from(channel_ids))
        value = draw(st.one_of(st.integers(-1, len(samplers) + 1), hostile_values))
        channels[c]["sampler"] = value
        case.steps.append(f"set {where}/channels/{c}/sampler = {_short(value)}")
    elif what == "target" and channel_ids:
        c = draw(st.sampled_from(channel_ids))
        target = channels[c].get("target")
        target = dict(target) if isinstance(target, dict) else {}
        key = draw(st.sampled_from(["node", "path"]))
        value = draw(st.one_of(st.integers(-1, 30) if key == "node" else st.sampled_from(PATHS),
                               hostile_values))
        target[key] = value
        channels[c]["target"] = target
        case.steps.append(f"set {where}/channels/{c}/target/{key} = {_short(value)}")
    elif what == "extension" and channel_ids:
        c = draw(st.sampled_from(channel_ids))
        payload = draw(st.one_of(
            st.fixed_dictionaries({"sampler": st.one_of(st.integers(-1, len(samplers) + 1),
                                                         hostile_values)}),
            hostile_values))
        channels[c]["extensions"] = {"EXT_animation_sqlerp": payload}
        if draw(st.booleans()):
            channels[c].pop("sampler", None)  # the draft's channel without a core sampler
        case.steps.append(f"set {where}/channels/{c}/extensions = {_short(payload)}")
    elif what == "extension lists":
        key = draw(st.sampled_from(["extensionsUsed", "extensionsRequired"]))
        value = draw(st.one_of(st.sampled_from([["EXT_animation_sqlerp"], [], ["KHR_unknown"],
                                                ["EXT_animation_sqlerp"] * 2]), hostile_values))
        case.json[key] = value
        case.steps.append(f"set /{key} = {_short(value)}")
    else:
        accessors = len(case.json.get("accessors", [])) if isinstance(case.json.get("accessors"), list) else 0
        sampler = {"input": draw(st.integers(0, max(accessors, 1))),
                   "output": draw(st.integers(0, max(accessors, 1))),
                   "interpolation": draw(st.sampled_from(INTERPOLATIONS))}
        samplers.append(sampler)
        animation["samplers"] = samplers
        case.steps.append(f"append {where}/samplers {sampler}")


def _mutate_bytes(draw, blob, what):
    """Flip, truncate or extend a byte string; returns (new bytes, description)."""
    op = draw(st.sampled_from(["flip", "truncate", "extend", "zero"]))
    if op == "flip" and blob:
        at = draw(st.integers(0, len(blob) - 1))
        mask = draw(st.integers(1, 255))
        blob = blob[:at] + bytes([blob[at] ^ mask]) + blob[at + 1:]
        return blob, f"flip {what}[{at}] ^ {mask}"
    if op == "truncate":
        cut = draw(st.integers(0, len(blob)))
        return blob[:cut], f"truncate {what} to {cut}"
    if op == "zero" and blob:
        at = draw(st.integers(0, len(blob) - 1))
        size = draw(st.integers(1, 64))
        return blob[:at] + b"\xff" * min(size, len(blob) - at) + blob[at + size:], \
            f"0xff {what}[{at}:{at + size}]"
    extra = draw(st.sampled_from([1, 3, 4, 1000]))
    return blob + b"\x7f" * extra, f"extend {what} by {extra}"


def m_deep(draw, case):
    """A JSON nest far deeper than Python's recursion limit, as the value of a top-level key."""
    depth = draw(st.sampled_from([1000, 100_000]))
    key = draw(st.sampled_from(["asset", "nodes", "animations", "accessors", "extras"]))
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b'{"a":', b"}")]))
    text = case.json_bytes()
    cut = text.rfind(b"}")
    case.json = text[:cut] + b',"' + key.encode() + b'":' + opener * depth + b"0" + closer * depth + b"}"
    case.steps.append(f"nest {depth} deep at /{key}")


def m_binary(draw, case):
    if case.kind == "glb" and case.bin is not None and draw(st.booleans()):
        case.bin, step = _mutate_bytes(draw, case.bin, "BIN")
        case.steps.append(step)
    elif case.files:
        uri = draw(st.sampled_from(sorted(case.files)))
        case.files[uri], step = _mutate_bytes(draw, case.files[uri], uri)
        case.steps.append(step)
    elif case.kind == "glb":
        m_glb(draw, case)
    else:
        m_data_uri(draw, case)


def m_data_uri(draw, case):
    buffers = _objects(case.json, "buffers")
    if not buffers:
        return
    b = draw(st.sampled_from(buffers))
    payload = draw(st.one_of(st.binary(max_size=64).map(lambda x: base64.b64encode(x).decode()),
                             st.sampled_from(["!!!", "AAA", "AAAA=", "", "====", "A" * 4001])))
    header = draw(st.sampled_from(["data:application/octet-stream;base64,", "data:;base64,",
                                   "data:application/gltf-buffer;base64,", "data:text/plain,"]))
    case.json["buffers"][b]["uri"] = header + payload
    case.steps.append(f"set /buffers/{b}/uri = {_short(header + payload)}")


GLB_FIELDS = {
    "magic": st.sampled_from([b"glTF", b"gltf", b"\0\0\0\0"]),
    "version": st.sampled_from([0, 1, 2, 3, 2**32 - 1]),
    "length": st.one_of(st.integers(0, 2**32 - 1), st.sampled_from([0, 11, 12, 20])),
    "json_length": st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 64)),
    "json_type": st.sampled_from([0x004E4942, 0, 0x4E4F534A + 1]),
    "bin_length": st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 64)),
    "bin_type": st.sampled_from([0x4E4F534A, 0, 0x12345678]),
    "trailer": st.sampled_from([b"\0" * 4, b"\0" * 8, struct.pack("<II", 4, 0x004E4942) + b"\0" * 4,
                                struct.pack("<II", 2**31, 0)]),
    "cut": st.integers(0, 2**16),
}


def m_glb(draw, case):
    if case.kind != "glb":
        m_text(draw, case)
        return
    name = draw(st.sampled_from(sorted(GLB_FIELDS)))
    case.glb[name] = draw(GLB_FIELDS[name])
    case.steps.append(f"glb {name} = {_short(case.glb[name])}")


def m_text(draw, case):
    """Byte-level damage to the serialized JSON (after this, no more tree mutations apply)."""
    text = case.json_bytes()
    text, step = _mutate_bytes(draw, text, "JSON")
    case.json = text
    case.steps.append(step)


TREE_MUTATIONS = [m_replace, m_delete, m_duplicate_array, m_swap_ints, m_cycle, m_accessor,
                  m_buffer_view, m_animation, m_mesh, m_skin, m_material]
# Structured mutations are drawn more often than blind ones: they reach the validator's deep checks.
WEIGHTED = (TREE_MUTATIONS * 2 + [m_accessor, m_accessor, m_buffer_view, m_animation, m_animation,
                              m_animation, m_mesh, m_skin, m_material]
            + [m_binary, m_glb, m_data_uri, m_text, m_deep])


@st.composite
def cases(draw, seeds=None, max_steps=5):
    seed = draw(st.sampled_from(seeds or SEEDS))
    case = Case(seed.name, seed.kind, copy.deepcopy(seed.json), seed.bin, dict(seed.files))
    for _ in range(draw(st.integers(1, max_steps))):
        mutation = draw(st.sampled_from(WEIGHTED))
        if isinstance(case.json, bytes) and mutation in TREE_MUTATIONS + [m_data_uri, m_deep]:
            continue  # the JSON is raw text now
        if not isinstance(case.json, dict) and not isinstance(case.json, bytes):
            break
        mutation(draw, case)
    return case


def _ptr(path):
    return "/" + "/".join(str(p) for p in path)


def _short(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# --- the property -----------------------------------------------------------------------------

class Escape(AssertionError):
    """The core broke its contract on an input: ``kind`` is 'exception', 'hang', 'memory' or
    'error-shape' (a GltfError without a usable code, pointer or message)."""

    def __init__(self, kind, detail, case):
        self.kind, self.detail, self.case = kind, detail, case
        super().__init__(f"{kind}: {detail}\n  input: {case!r}")


class _Hang(BaseException):
    """Raised by the interval timer; a BaseException, so no `except Exception` in the core eats it."""


MAX_POSED_ANIMATIONS = 8
EVAL_TIMES = (-1.0, 0.0, 0.25, 0.5, 1.0, 2.5, 1e6)


def exercise(document):
    """What callers do with a loaded file: every channel at a few times, with and without the
    fallback; poses and global matrices of every animation and of the rest pose; meshes of a few nodes."""
    for a, animation in enumerate(document.animations):
        duration = animation.duration
        times = list(EVAL_TIMES) + [duration, duration / 3]
        for channel in animation.channels:
            channel.evaluate(times)
            channel.evaluate(times, use_fallback=True)
        if a >= MAX_POSED_ANIMATIONS:
            continue  # a file of 2,500 copies of one clip: posing each is the harness's cost, not the core's
        for time in (0.0, duration / 2, duration + 1):
            document.pose(animation, time)
            document.node_matrices(animation, time, use_fallback=True)
    document.node_matrices(None, 0)
    nodes = document.json.get("nodes") if isinstance(document.json.get("nodes"), list) else []
    meshed = [i for i, node in enumerate(nodes) if isinstance(node, dict) and "mesh" in node][:3]
    for node in meshed:
        document.mesh_positions(node, 0 if document.animations else None, 0.5)


# Per input MB (main file and buffers), on top of the fixed limits: parsing JSON into Python
# objects takes up to ~15x the text (tracemalloc counts it), and tracing slows allocation-heavy
# validation up to ~7x (a 14 MB file of 250,000 channels: 3.4 s untraced, 23 s traced). So "bounded"
# means: a fixed amount plus a multiple of the input's own size, never of a length the file declares.
MEMORY_PER_INPUT_BYTE = 32
SECONDS_PER_INPUT_MB = 4.0


def run_case(core, case, folder, memory_limit_mb=256, time_limit_s=10.0):
    """Load ``case`` with ``core.load`` and exercise the document.

    Returns (outcome, peak_bytes, seconds): outcome is "ok", "GltfError:<code>" (load) or
    "eval:<code>" (GltfError while evaluating). Raises Escape when the contract is broken: another
    exception, more than ``time_limit_s`` (+ SECONDS_PER_INPUT_MB), a tracemalloc peak over
    ``memory_limit_mb`` (or MEMORY_PER_INPUT_BYTE x the input size, if larger)."""
    import signal
    import time
    import tracemalloc

    import shutil
    import tempfile

    # A fresh folder per input: a mutated URI must not find another input's leftover files.
    folder = tempfile.mkdtemp(dir=folder)
    path = case.write(folder)
    size = path.stat().st_size + sum(len(blob) for blob in case.files.values())
    time_limit_s += SECONDS_PER_INPUT_MB * size / 2**20
    memory_limit = max(memory_limit_mb * 2**20, MEMORY_PER_INPUT_BYTE * size)
    use_timer = hasattr(signal, "setitimer")
    alarm = []

    def on_alarm(signum, frame):
        alarm.append(True)  # raised inside a gc callback, _Hang is only printed: the flag stays
        raise _Hang()

    if use_timer:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, time_limit_s)
    tracemalloc.start()
    started = time.perf_counter()
    stage = "load"
    try:
        try:
            document = core.load(path)
            stage = "eval"
            exercise(document)
            outcome = "ok"
        except core.GltfError as error:
            if not (isinstance(error.code, str) and error.code and isinstance(error.pointer, str)
                    and (error.pointer == "" or error.pointer.startswith("/"))
                    and isinstance(error.message, str) and error.message and str(error)):
                raise Escape("error-shape", f"{error.code!r} {error.pointer!r} {error.message!r}",
                             case) from error
            outcome = f"{'GltfError' if stage == 'load' else 'eval'}:{error.code}"
        except _Hang:
            raise Escape("hang", f"over {time_limit_s:.1f} s in {stage}", case) from None
        except Escape:
            raise
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):
                raise
            raise Escape("exception", f"{type(error).__name__} in {stage}: {error}"[:500], case) from error
    finally:
        seconds = time.perf_counter() - started
        if use_timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        shutil.rmtree(folder, ignore_errors=True)
    if alarm:
        raise Escape("hang", f"over {time_limit_s:.1f} s in {stage}", case)
    if peak > memory_limit:
        raise Escape("memory", f"peak {peak / 2**20:.1f} MB > {memory_limit / 2**20:.0f} MB "
                               f"({size} input bytes) in {stage}", case)
    return outcome, peak, seconds
