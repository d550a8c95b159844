"""An outside reference for KHR_animation_pointer imports (not a test module).

``resampled_copy`` writes a copy of a .gltf (embedded buffer) in which every pointer channel to a
property other than a node's plays LINEAR keys at every key time and at 8 times a frame (STEP
samplers are kept as they are), each key holding the spec's value at its time as the core
evaluates it (the core's interpolation is itself checked against the spec's formulas by hand).
Blender's bundled importer imports such keys one for one, each converted with its own rules (colour
sockets, lens from yfov, light energy, spot blend, ...). So the copy's F-curves, read at their
keys, are the Blender values the spec asks for at those times: what an exact import must play,
computed by the real Blender and not by the code under test.
"""

import base64
import json

import numpy as np

from gltf_sqlerp import core

_TYPES = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4"}


def check_frames(document, frames_per_second, per_frame=8):
    """Frames from 0 to the clip's end, ``per_frame`` a frame."""
    end = document.animations[0].duration * frames_per_second
    return np.arange(0.0, end + 1e-9, 1.0 / per_frame)


def resampled_copy(path, out, frames_per_second, also_required=()):
    document = core.load(str(path), also_required=also_required)
    data = json.loads(path.read_text())
    blob = bytearray(base64.b64decode(data["buffers"][0]["uri"].split(",", 1)[1]))
    step = 1.0 / (8 * frames_per_second)
    for channel in document.animations[0].pointer_channels:
        sampler = data["animations"][0]["samplers"][channel.sampler_index]
        keys = channel.sampler.times
        if channel.sampler.interpolation == "STEP":
            continue
        times = np.union1d(keys, np.arange(np.ceil(keys[0] / step - 1e-9), np.floor(keys[-1] / step + 1e-9) + 1) * step)
        for rows, name in ((times.reshape(-1, 1), "input"), (channel.evaluate(times), "output")):
            sampler[name] = _add(data, blob, np.asarray(rows, dtype=np.float32), bounds=name == "input")
        sampler["interpolation"] = "LINEAR"
    data["buffers"][0] = {"byteLength": len(blob),
                          "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}
    out.write_text(json.dumps(data))
    return out


def _add(data, blob, rows, bounds):
    data["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": rows.nbytes})
    blob += rows.tobytes()
    accessor = {"bufferView": len(data["bufferViews"]) - 1, "componentType": 5126, "count": len(rows),
                "type": _TYPES[rows.shape[1]]}
    if bounds:
        accessor["min"], accessor["max"] = [float(rows.min())], [float(rows.max())]
    data["accessors"].append(accessor)
    return len(data["accessors"]) - 1


def pointer_curves(bpy):
    """{(ID type, ID name, data_path, index): F-curve} of the materials' node trees, materials,
    cameras and lights of the scene (what pointer channels animate)."""
    found = {}
    for collection in (bpy.data.materials, bpy.data.cameras, bpy.data.lights):
        for block in collection:
            for owner in (o for o in (block, getattr(block, "node_tree", None)) if o is not None):
                animation = getattr(owner, "animation_data", None)
                if animation is None or animation.action is None:
                    continue
                for curve in _curves(animation):
                    found[(type(owner).__name__, owner.name, curve.data_path, curve.array_index)] = curve
    return found


def _curves(animation):
    slot = getattr(animation, "action_slot", None)
    if slot is None:
        return list(animation.action.fcurves)
    return list(animation.action.layers[0].strips[0].channelbag(slot).fcurves)


def played(curves, frames):
    """{key: values at ``frames``} of F-curves."""
    return {key: np.array([curve.evaluate(float(f)) for f in frames]) for key, curve in curves.items()}
