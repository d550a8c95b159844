"""A character as centimetre tools export it, shared by tests (not a test module): an armature
node scaled by 100 (and turned, as Z-up tools write it), a skinned body, and rigid parts (a head
and a sword) that are meshes parented to joints, not skinned. Built like tools/make_sample.py.

Nodes::

    0 Armature (scale 100, -90 deg about X)
      1 Hips (joint)            4 Body (skinned mesh, skin 0)
        2 Spine (joint)
          3 Head (joint)
            5 HeadMesh (rigid mesh, offset and turned)
        6 Hand (joint, child of Hips)
          7 Sword (rigid mesh, scaled 0.5 and offset)

Two clips (LINEAR and CUBICSPLINE) turn the armature and turn and move the joints, so every rigid
part moves with them.
"""

import math

import numpy as np

from gltf_sqlerp.core.sampling import quaternions
from gltf_sqlerp.core.gltf.writer import BufferBuilder, write_glb, write_gltf

CENTIMETRES = 100.0
Z_UP = [-math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)]  # -90 deg about X


def about(axis, degrees):
    """(x, y, z, w) of a turn by ``degrees`` about ``axis``."""
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    half = math.radians(degrees) / 2.0
    return [*(axis * math.sin(half)), math.cos(half)]


def box(size, centre=(0.0, 0.0, 0.0)):
    """Eight corners and twelve triangles of an axis-aligned box, in metres."""
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64)
    positions = corners * np.asarray(size) / 2.0 + np.asarray(centre)
    faces = [[0, 1, 3, 0, 3, 2], [4, 6, 7, 4, 7, 5], [0, 4, 5, 0, 5, 1],
             [2, 3, 7, 2, 7, 6], [0, 2, 6, 0, 6, 4], [1, 5, 7, 1, 7, 3]]
    return positions, np.array(faces, dtype=np.uint16).reshape(-1)


def _mesh(buffer, name, positions, indices, skinned=None):
    attributes = {"POSITION": buffer.add_accessor(positions, bounds=True)}
    if skinned is not None:
        joints, weights = skinned
        attributes["JOINTS_0"] = buffer.add_accessor(joints, 5121, "VEC4")
        attributes["WEIGHTS_0"] = buffer.add_accessor(weights)
    return {"name": name, "primitives": [{"attributes": attributes,
                                          "indices": buffer.add_accessor(indices, 5123, "SCALAR")}]}


def _body(buffer):
    """A tall box skinned to Hips (lower half) and Spine (upper half), in the joints' space (metres)."""
    positions, indices = box([0.3, 1.0, 0.2], centre=(0.0, 0.5, 0.0))
    upper = positions[:, 1] > 0.5
    joints = np.zeros((len(positions), 4), dtype=np.uint8)
    joints[upper, 0] = 1
    weights = np.zeros((len(positions), 4))
    weights[:, 0] = 1.0
    return _mesh(buffer, "Body", positions, indices, (joints, weights))


def _clips(buffer):
    """Both clips drive the same channels: Blender keeps what the previous action left on any
    channel the next one lacks, which is not what this model is about."""
    times = buffer.add_accessor(np.array([0.0, 0.5, 1.0, 1.5]), bounds=True)
    spine = np.array([about([1, 0, 0], d) for d in (0, 30, -20, 0)])
    head = np.array([about([0, 1, 1], d) for d in (0, 50, 80, 0)])
    hand = np.array([about([0, 0, 1], d) for d in (0, -70, 40, 0)])
    hips = np.array([[0, 1.0, 0], [0.2, 1.1, 0], [0.1, 0.9, 0.3], [0, 1.0, 0]])
    standing = np.array([Z_UP] * 4)
    turning = np.array([quaternions.multiply(about([0, 0, 1], d), Z_UP) for d in (0, 40, 80, 120)])
    walk = [(0, "rotation", standing), (1, "translation", hips), (2, "rotation", spine),
            (3, "rotation", head), (6, "rotation", hand)]
    wave = [(0, "rotation", turning), (1, "translation", hips[::-1]), (2, "rotation", spine[::-1]),
            (3, "rotation", head), (6, "rotation", hand[::-1])]
    return [_clip(buffer, "Walk", times, walk, "LINEAR"), _clip(buffer, "Wave", times, wave, "CUBICSPLINE")]


def _clip(buffer, name, times, tracks, interpolation):
    samplers, channels = [], []
    for node, path, values in tracks:
        if interpolation == "CUBICSPLINE":  # zero tangents: eases in and out of every key
            values = np.stack([np.zeros_like(values), values, np.zeros_like(values)], axis=1)
            values = values.reshape(-1, values.shape[-1])
        channels.append({"sampler": len(samplers), "target": {"node": node, "path": path}})
        samplers.append({"input": times, "interpolation": interpolation,
                         "output": buffer.add_accessor(values)})
    return {"name": name, "channels": channels, "samplers": samplers}


def build():
    """The glTF document and its binary buffer."""
    document = {
        "asset": {"version": "2.0", "generator": "gltf_sqlerp tests/helpers/scaled_rig.py"},
        "scene": 0, "scenes": [{"name": "Scene", "nodes": [0]}],
        "nodes": [
            {"name": "Armature", "rotation": Z_UP, "scale": [CENTIMETRES] * 3, "children": [1, 4]},
            {"name": "Hips", "translation": [0, 1.0, 0], "children": [2, 6]},
            {"name": "Spine", "translation": [0, 0.5, 0], "children": [3]},
            {"name": "Head", "translation": [0, 0.5, 0], "rotation": about([0, 0, 1], 10), "children": [5]},
            {"name": "Body", "mesh": 0, "skin": 0},
            {"name": "HeadMesh", "mesh": 1, "translation": [0.02, 0.15, 0.01],
             "rotation": about([1, 1, 0], 25)},
            {"name": "Hand", "translation": [0.3, 0.4, 0], "rotation": about([0, 0, 1], -60), "children": [7]},
            {"name": "Sword", "mesh": 2, "translation": [0, 0.1, 0.05], "scale": [0.5, 0.5, 0.5]},
        ],
    }
    buffer = BufferBuilder(document)
    head, head_indices = box([0.2, 0.25, 0.22])
    sword, sword_indices = box([0.04, 1.2, 0.1], centre=(0.0, 0.6, 0.0))
    document["meshes"] = [_body(buffer), _mesh(buffer, "HeadMesh", head, head_indices),
                          _mesh(buffer, "Sword", sword, sword_indices)]
    inverse_bind = np.tile(np.eye(4), (2, 1, 1))
    inverse_bind[:, 1, 3] = [-1.0, -1.5]  # Hips and Spine at rest, in the skinned mesh's space
    document["skins"] = [{"name": "Rig", "joints": [1, 2, 3, 6], "skeleton": 1,
                          "inverseBindMatrices": buffer.add_accessor(np.concatenate(
                              [inverse_bind, _rest_inverse([0, 2.0, 0], 10), _rest_inverse([0.3, 1.4, 0], -60)]),
                              kind="MAT4")}]
    document["animations"] = _clips(buffer)
    return document, buffer.blob()


def _rest_inverse(position, degrees_about_z):
    """Inverse of a joint's rest matrix (turned about Z, then placed)."""
    c, s = math.cos(math.radians(degrees_about_z)), math.sin(math.radians(degrees_about_z))
    matrix = np.eye(4)
    matrix[:2, :2] = [[c, -s], [s, c]]
    matrix[:3, 3] = position
    return np.linalg.inv(matrix)[None]


def write(folder, binary=False):
    """Write scaled_rig.gltf (embedded data) or scaled_rig.glb into ``folder``; return its path."""
    document, blob = build()
    if binary:
        path = folder / "scaled_rig.glb"
        write_glb(path, document, blob)
    else:
        path = folder / "scaled_rig.gltf"
        write_gltf(path, document, blob, embed=True)
    return path
