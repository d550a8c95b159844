"""Valid glTF files that animate through KHR_animation_pointer, for the import corpus and the
pointer tests.

One scene (``base_document``): a mesh node "Spinner" (node 0) with material "Paint" (with the
material extensions the bundled importer animates), a second mesh node "Other" (node 1) with morph
targets and the textured material "Printed" (KHR_texture_transform), a perspective camera node, a
point light node, a spot light node and an orthographic camera node (KHR_lights_punctual). Each
file adds one animation of ``Track`` entries: a target (a JSON pointer, or a plain node channel
``(node, path)``), an interpolation, key times and values. Tracks that name the same ``times`` key
share their input accessor, tracks that name the same ``output`` key their output accessor, and
tracks that name the same ``sampler`` key one sampler, as real exporters write them.

    python tools/pointer_files.py OUTDIR     # writes OUTDIR/<name>.gltf for every file in FILES

From Python: ``FILES`` (name -> list of Track), ``write(name, folder)`` (returns the path).
Every file is checked with the Khronos glTF-Validator by the tests (0 errors).
"""

import base64
import json
import math
import struct
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import devpath  # tools/devpath.py: how dev scripts import this repository

devpath.import_package()
from gltf_sqlerp.core.gltf import BufferBuilder  # noqa: E402

POINTER = "KHR_animation_pointer"
LIGHTS = "KHR_lights_punctual"
TRANSFORM = "KHR_texture_transform"
# Material extensions whose factors the bundled importer animates through pointers.
MATERIAL_EXTENSIONS = {
    "KHR_materials_emissive_strength": {"emissiveStrength": 2.0},
    "KHR_materials_ior": {"ior": 1.5},
    "KHR_materials_transmission": {"transmissionFactor": 0.2},
    "KHR_materials_clearcoat": {"clearcoatFactor": 0.3, "clearcoatRoughnessFactor": 0.4},
    "KHR_materials_sheen": {"sheenColorFactor": [0.1, 0.2, 0.3], "sheenRoughnessFactor": 0.5},
    "KHR_materials_specular": {"specularFactor": 0.8, "specularColorFactor": [1, 1, 1]},
    "KHR_materials_volume": {"thicknessFactor": 0.1, "attenuationDistance": 2.0,
                             "attenuationColor": [1, 1, 1]},
}
TEXTURE = "/materials/1/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform"
EXT = "/materials/0/extensions"


@dataclass(frozen=True)
class Track:
    target: str | tuple[int, str]  # "/materials/0/emissiveFactor" or (node, "rotation")
    interpolation: str
    times: str                     # accessors are shared between tracks naming the same key
    values: tuple[tuple[float, ...], ...]  # per key (CUBICSPLINE: in-tangent, value, out-tangent)
    sampler: str | None = None     # tracks naming the same key share one sampler
    output: str | None = None      # samplers naming the same key share their output accessor


def quaternion(axis, degrees):
    """(x, y, z, w) of a turn of ``degrees`` about ``axis``."""
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    half = math.radians(degrees) / 2
    return (*(axis * math.sin(half)).tolist(), math.cos(half))


TIMES = {"five": (0.0, 0.5, 1.0, 1.5, 2.0), "four": (0.0, 0.4, 1.2, 1.6),
         "three": (0.25, 1.0, 1.75)}


def _turns(degrees_per_key, keys=5, axis=(0, 0, 1)):
    return tuple(quaternion(axis, degrees_per_key * k) for k in range(keys))


def _cubic(values, tangent_scale=0.8):
    """CUBICSPLINE (in, value, out) per key from values, with tangents that bend the curve."""
    rows = []
    for k, value in enumerate(values):
        tangent = tuple(tangent_scale * math.sin(1.3 * k + i) for i in range(len(value)))
        rows += [tangent, tuple(value), tuple(-t for t in tangent)]
    return tuple(rows)


COLOURS = ((0.9, 0.1, 0.1, 1.0), (0.2, 0.8, 0.1, 1.0), (0.1, 0.2, 0.9, 0.8), (0.7, 0.7, 0.1, 1.0),
           (0.3, 0.1, 0.6, 0.9))
EMISSION = ((0.0, 0.0, 0.0), (1.0, 0.5, 0.0), (0.2, 1.0, 0.3), (0.0, 0.0, 1.0), (0.5, 0.5, 0.5))

# The reported file: a node rotation through a pointer, material factors through pointers, and a
# plain rotation channel whose sampler shares its input accessor with a pointer sampler.
REPORTED = [
    Track("/nodes/0/rotation", "LINEAR", "five", _turns(80)),
    Track("/materials/0/pbrMetallicRoughness/baseColorFactor", "CUBICSPLINE", "five", _cubic(COLOURS)),
    Track("/materials/0/emissiveFactor", "LINEAR", "five", EMISSION),
    Track((1, "rotation"), "LINEAR", "five", _turns(40, axis=(1, 0, 0))),
]

FILES: dict[str, list[Track]] = {
    "reported": REPORTED,
    "node_trs_pointers": [
        Track("/nodes/0/translation", "LINEAR", "four", ((0, 0, 0), (1, 0, 0), (1, 2, 0), (0, 2, 1))),
        Track("/nodes/0/rotation", "CUBICSPLINE", "four", _cubic(_turns(60, 4), 0.1)),
        Track("/nodes/0/scale", "STEP", "four", ((1, 1, 1), (2, 2, 2), (1, 3, 1), (0.5, 0.5, 0.5))),
        Track("/nodes/1/rotation", "STEP", "four", _turns(45, 4, (0, 1, 0))),
    ],
    "shared_output": [  # one output accessor read by a TRS sampler and by a pointer sampler
        Track((1, "translation"), "LINEAR", "three", ((0, 0, 0), (0, 1, 0), (1, 1, 0)), output="move"),
        Track("/nodes/0/translation", "LINEAR", "three", ((0, 0, 0), (0, 1, 0), (1, 1, 0)), output="move"),
    ],
    "shared_sampler": [  # one sampler played by a plain channel and by a pointer channel
        Track((1, "rotation"), "LINEAR", "four", _turns(70, 4), "turn"),
        Track("/nodes/0/rotation", "LINEAR", "four", _turns(70, 4), "turn"),
        Track((3, "rotation"), "LINEAR", "four", _turns(70, 4), "turn"),
    ],
    # A material factor that reads the same input and output accessors as a node translation: one
    # key of placeholder data there would not fail the importer, only change the material's curve.
    "material_shares_accessors": [
        Track((1, "translation"), "LINEAR", "three", ((0, 0, 0), (0, 1, 0), (1, 1, 0)), output="glow"),
        Track("/materials/0/emissiveFactor", "LINEAR", "three", ((0, 0, 0), (0, 1, 0), (1, 1, 0)),
              output="glow"),
    ],
    "material_factors": [
        Track("/materials/0/pbrMetallicRoughness/metallicFactor", "LINEAR", "three", ((0.0,), (1.0,), (0.2,))),
        Track("/materials/0/pbrMetallicRoughness/roughnessFactor", "CUBICSPLINE", "three",
              _cubic(((0.9,), (0.1,), (0.6,)), 0.3)),
        Track((0, "rotation"), "LINEAR", "three", _turns(30, 3)),
    ],
    "alpha_cutoff": [  # Blender 5.3's importer fails on it (KeyError 'AlphaCutoff')
        Track("/materials/0/alphaCutoff", "STEP", "three", ((0.2,), (0.7,), (0.4,))),
    ],
    "camera_light": [
        Track("/cameras/0/perspective/yfov", "LINEAR", "four", ((0.6,), (0.9,), (0.4,), (0.7,))),
        Track("/cameras/0/perspective/znear", "STEP", "four", ((0.1,), (0.2,), (0.05,), (0.1,))),
        Track(f"/extensions/{LIGHTS}/lights/0/color", "LINEAR", "four",
              ((1, 1, 1), (1, 0.5, 0.2), (0.2, 0.4, 1), (1, 1, 0))),
        Track(f"/extensions/{LIGHTS}/lights/0/intensity", "CUBICSPLINE", "four",
              _cubic(((10.0,), (40.0,), (5.0,), (20.0,)), 6.0)),
        Track((2, "translation"), "LINEAR", "four", ((0, 0, 5), (0, 1, 5), (1, 1, 5), (0, 0, 6))),
    ],
    "material_textures": [
        Track("/materials/1/normalTexture/scale", "LINEAR", "four", ((1.0,), (0.2,), (0.8,), (0.5,))),
        Track("/materials/1/occlusionTexture/strength", "CUBICSPLINE", "four",
              _cubic(((1.0,), (0.3,), (0.6,), (0.9,)), 0.4)),
        Track(f"{TEXTURE}/offset", "LINEAR", "four", ((0, 0), (0.5, 0.1), (0.2, 0.7), (0, 0))),
        Track(f"{TEXTURE}/rotation", "CUBICSPLINE", "four", _cubic(((0.0,), (0.8,), (1.6,), (0.4,)), 0.5)),
        Track(f"{TEXTURE}/scale", "STEP", "four", ((1, 1), (2, 1), (1, 3), (0.5, 0.5))),
    ],
    "material_extensions": [
        Track(f"{EXT}/KHR_materials_emissive_strength/emissiveStrength", "LINEAR", "three", ((1.0,), (5.0,), (2.0,))),
        Track(f"{EXT}/KHR_materials_ior/ior", "CUBICSPLINE", "three", _cubic(((1.3,), (1.9,), (1.5,)), 0.2)),
        Track(f"{EXT}/KHR_materials_transmission/transmissionFactor", "STEP", "three", ((0.0,), (0.6,), (0.3,))),
        Track(f"{EXT}/KHR_materials_specular/specularFactor", "LINEAR", "four", ((0.8,), (0.2,), (1.0,), (0.5,))),
        Track(f"{EXT}/KHR_materials_volume/thicknessFactor", "LINEAR", "four", ((0.1,), (0.5,), (0.2,), (0.9,))),
    ],
    "coat_and_sheen": [  # Blender 4.2-5.0's importer fails on them: NodeSocket has no path_from_id
        Track(f"{EXT}/KHR_materials_sheen/sheenColorFactor", "CUBICSPLINE", "four",
              _cubic(((0.1, 0.2, 0.3), (0.8, 0.1, 0.1), (0.2, 0.9, 0.4), (0.5, 0.5, 0.5)), 0.2)),
        Track(f"{EXT}/KHR_materials_clearcoat/clearcoatFactor", "LINEAR", "four", ((0.0,), (1.0,), (0.4,), (0.7,))),
        Track(f"{EXT}/KHR_materials_clearcoat/clearcoatRoughnessFactor", "CUBICSPLINE", "four",
              _cubic(((0.2,), (0.9,), (0.4,), (0.6,)), 0.3)),
    ],
    "spot_and_ortho": [  # two channels per Blender property: the importer combines them per key
        Track(f"/extensions/{LIGHTS}/lights/1/spot.outerConeAngle", "LINEAR", "four", ((0.7,), (0.4,), (0.6,), (0.3,))),
        Track(f"/extensions/{LIGHTS}/lights/1/spot.innerConeAngle", "LINEAR", "four", ((0.1,), (0.3,), (0.2,), (0.1,))),
        Track("/cameras/1/orthographic/xmag", "LINEAR", "three", ((2.0,), (3.0,), (1.0,))),
        Track("/cameras/1/orthographic/ymag", "LINEAR", "three", ((1.5,), (3.5,), (2.5,))),
        Track("/cameras/0/perspective/zfar", "CUBICSPLINE", "three", _cubic(((50.0,), (100.0,), (70.0,)), 20.0)),
    ],
    "required_extensions": [
        Track(f"/extensions/{LIGHTS}/lights/0/intensity", "LINEAR", "three", ((10.0,), (30.0,), (5.0,))),
        Track(f"{EXT}/KHR_materials_emissive_strength/emissiveStrength", "CUBICSPLINE", "three",
              _cubic(((1.0,), (4.0,), (2.0,)), 1.5)),
    ],
    "mesh_weights": [
        Track("/meshes/1/weights", "CUBICSPLINE", "three", _cubic(((0.0, 1.0), (1.0, 0.0), (0.5, 0.5)), 1.5)),
        Track((0, "scale"), "LINEAR", "three", ((1, 1, 1), (2, 1, 1), (1, 1, 2))),
    ],
}


def base_document():
    """The scene every file animates, and its buffer (accessors 0-3: the two meshes)."""
    document = {
        "asset": {"version": "2.0", "generator": "gltf_sqlerp tools/pointer_files.py"},
        "extensionsUsed": [POINTER, LIGHTS, TRANSFORM, *MATERIAL_EXTENSIONS],
        "scene": 0, "scenes": [{"nodes": [0, 1, 2, 3, 4, 5]}],
        "nodes": [{"name": "Spinner", "mesh": 0}, {"name": "Other", "mesh": 1, "translation": [3, 0, 0]},
                  {"name": "Camera", "camera": 0, "translation": [0, 0, 5]},
                  {"name": "Lamp", "translation": [0, 4, 0], "extensions": {LIGHTS: {"light": 0}}},
                  {"name": "Spot", "translation": [0, 0, 4], "extensions": {LIGHTS: {"light": 1}}},
                  {"name": "Plan view", "camera": 1, "translation": [0, 6, 0]}],
        "materials": [{"name": "Paint", "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1]},
                       "emissiveFactor": [0.2, 0.2, 0.2], "alphaMode": "MASK",
                       "extensions": MATERIAL_EXTENSIONS},
                      {"name": "Printed", "pbrMetallicRoughness": {"baseColorTexture": {
                          "index": 0, "extensions": {TRANSFORM: {"offset": [0, 0], "rotation": 0, "scale": [1, 1]}}}},
                       "normalTexture": {"index": 0}, "occlusionTexture": {"index": 0}}],
        "textures": [{"source": 0}],
        "images": [{"uri": "data:image/png;base64," + base64.b64encode(_png()).decode("ascii")}],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1, "zfar": 100}},
                    {"type": "orthographic", "orthographic": {"xmag": 2, "ymag": 2, "znear": 0.1, "zfar": 50}}],
        "extensions": {LIGHTS: {"lights": [
            {"type": "point", "color": [1, 1, 1], "intensity": 10},
            {"type": "spot", "intensity": 5, "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.6}}]}},
    }
    buffer = BufferBuilder(document)
    triangle = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    position = buffer.add_accessor(triangle, bounds=True)
    up = buffer.add_accessor([[0, 0, 1]] * 3, bounds=True)
    out = buffer.add_accessor([[0.5, 0, 0]] * 3, bounds=True)
    uv = buffer.add_accessor([[0, 0], [1, 0], [0, 1]])
    normal, tangent = buffer.add_accessor([[0, 0, 1]] * 3, bounds=True), buffer.add_accessor([[1, 0, 0, 1]] * 3)
    document["meshes"] = [
        {"name": "Triangle", "primitives": [{"attributes": {"POSITION": position}, "material": 0}]},
        {"name": "Morphing", "weights": [0, 0],
         "primitives": [{"attributes": {"POSITION": position, "NORMAL": normal, "TANGENT": tangent,
                                        "TEXCOORD_0": uv}, "material": 1,
                         "targets": [{"POSITION": up}, {"POSITION": out}]}]}]
    return document, buffer


def _png():
    """A 1x1 white RGB PNG (the textures' image)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff"))
            + chunk(b"IEND", b""))


# Files that also list extensions as required (the bundled importer manages them all).
REQUIRED = {"required_extensions": [POINTER, LIGHTS, TRANSFORM, "KHR_materials_emissive_strength"]}


def build(tracks, required=()):
    """The document of a file that plays ``tracks`` as its one animation."""
    document, buffer = base_document()
    if required:
        document["extensionsRequired"] = list(required)
    inputs, outputs, samplers = {}, {}, {}
    animation = {"name": "Pointers", "samplers": [], "channels": []}
    for index, track in enumerate(tracks):
        if track.times not in inputs:
            inputs[track.times] = buffer.add_accessor([[t] for t in TIMES[track.times]], bounds=True)
        output_key = track.output or index
        if output_key not in outputs:
            values = np.asarray(track.values, dtype=np.float64)
            # Morph weights are scalars, a key's weights one after another (glTF 2.0 §3.11).
            outputs[output_key] = buffer.add_accessor(values.reshape(-1, 1) if _weights(track) else values)
        sampler_key = track.sampler or index
        if sampler_key not in samplers:
            animation["samplers"].append({"input": inputs[track.times], "output": outputs[output_key],
                                          "interpolation": track.interpolation})
            samplers[sampler_key] = len(animation["samplers"]) - 1
        animation["channels"].append({"sampler": samplers[sampler_key], "target": _target(track.target)})
    blob = buffer.blob()
    encoded = base64.b64encode(blob).decode("ascii")
    document["buffers"] = [{"byteLength": len(blob), "uri": f"data:application/octet-stream;base64,{encoded}"}]
    document["animations"] = [animation]
    return document


def _weights(track):
    target = track.target
    return target.endswith("/weights") if isinstance(target, str) else target[1] == "weights"


def _target(target):
    if isinstance(target, str):
        return {"path": "pointer", "extensions": {POINTER: {"pointer": target}}}
    node, path = target
    return {"node": node, "path": path}


def write(name, folder):
    """Write FILES[name] as ``folder/<name>.gltf`` and return its path."""
    path = Path(folder) / f"{name}.gltf"
    path.write_text(json.dumps(build(FILES[name], REQUIRED.get(name, ())), indent=1))
    return path


def main(argv):
    folder = Path(argv[1] if len(argv) > 1 else ".")
    folder.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        print(write(name, folder))


if __name__ == "__main__":
    main(sys.argv)
