"""A synthetic skinned rig for benchmarks: a chain of bones with one dense rotation channel each.

``write_rig(path, bones=100, keys=1000, interpolation="LINEAR")`` writes a .glb whose every bone
turns smoothly (up to 6 degrees between keys, random axes drifting slowly), skinned to a
strip of vertices so that the bundled importer builds an armature. ``interpolation`` may be
LINEAR, CUBICSPLINE or CUBICSLERP (with a LINEAR fallback at the same keys).
"""

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath



def smooth_rotations(rng, keys, max_step_deg):
    """Unit quaternions (keys, 4) turning up to ``max_step_deg`` per key about slowly drifting axes."""
    from gltf_sqlerp.core.sampling import quaternions as quat
    axes = np.cumsum(rng.normal(size=(keys, 3)) * 0.2, axis=0) + rng.normal(size=3)
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    angles = np.radians(max_step_deg) * np.sin(np.linspace(0, 6 * np.pi, keys) + rng.uniform(0, 6))
    steps = quat.exp(axes * (angles[:, None] / 2))
    rotations = np.empty((keys, 4))
    rotations[0] = (0, 0, 0, 1)
    for i in range(1, keys):  # generation only, not a hot path
        rotations[i] = quat.multiply(rotations[i - 1], steps[i])
    return quat.make_continuous(quat.normalize(rotations))


def build(bones=100, keys=1000, interpolation="LINEAR", seed=7, fps=30.0):
    devpath.import_package()
    from gltf_sqlerp.core.sampling import quaternions as quat
    from gltf_sqlerp.core.gltf.writer import BufferBuilder
    rng = np.random.default_rng(seed)
    document = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, bones + 1]}]}
    nodes = [{"name": "Root", "children": [1]}]
    for b in range(1, bones + 1):
        node = {"name": f"Bone{b:03d}", "translation": [0, 0.1 if b > 1 else 0, 0]}
        if b < bones:
            node["children"] = [b + 1]
        nodes.append(node)
    nodes.append({"name": "Strip", "mesh": 0, "skin": 0})
    document["nodes"] = nodes
    buffer = BufferBuilder(document)
    heights = np.arange(bones + 1) * 0.1
    positions = np.concatenate([np.c_[np.full_like(heights, -0.02), heights, np.zeros_like(heights)],
                                np.c_[np.full_like(heights, 0.02), heights, np.zeros_like(heights)]])
    joints = np.minimum(np.tile(np.arange(bones + 1), 2), bones - 1)
    rows = np.arange(bones)
    quads = np.stack([rows, rows + 1, rows + bones + 2, rows, rows + bones + 2, rows + bones + 1], axis=1)
    document["meshes"] = [{"primitives": [{"attributes": {
        "POSITION": buffer.add_accessor(positions, bounds=True),
        "JOINTS_0": buffer.add_accessor(np.c_[joints, np.zeros((len(joints), 3))].astype(np.uint16), 5123, "VEC4"),
        "WEIGHTS_0": buffer.add_accessor(np.c_[np.ones(len(joints)), np.zeros((len(joints), 3))])},
        "indices": buffer.add_accessor(quads.ravel(), 5125, "SCALAR")}]}]
    inverse_bind = np.tile(np.eye(4), (bones, 1, 1))
    inverse_bind[:, 1, 3] = -np.arange(bones) * 0.1
    document["skins"] = [{"joints": list(range(1, bones + 1)),
                          "inverseBindMatrices": buffer.add_accessor(inverse_bind, kind="MAT4")}]
    times = np.arange(keys) / fps
    time_input = buffer.add_accessor(times, bounds=True)
    samplers, channels = [], []
    for b in range(1, bones + 1):
        # Up to 6 degrees per key at 30 keys/s (180°/s): fast limb motion. Much faster motion hits
        # Blender's float32 frame resolution (3e-5 frames near frame 800) times the speed change
        # at each slerp corner, a floor that no key placement avoids.
        values = smooth_rotations(rng, keys, 6.0)
        channel: dict[str, Any] = {"target": {"node": b, "path": "rotation"}}  # glTF JSON
        if interpolation == "CUBICSLERP":
            control = quat.control_points(times, values)
            output = np.stack([control, values, control], axis=1).reshape(-1, 4)
            channel["extensions"] = {"EXT_animation_sqlerp": {"sampler": len(samplers)}}
            samplers.append({"input": time_input, "interpolation": "CUBICSLERP",
                             "output": buffer.add_accessor(output)})
            document["extensionsUsed"] = ["EXT_animation_sqlerp"]
            interpolation_core, output_core = "LINEAR", values
        elif interpolation == "CUBICSPLINE":
            tangents = np.gradient(values, times, axis=0)
            interpolation_core = "CUBICSPLINE"
            output_core = np.stack([tangents, values, tangents], axis=1).reshape(-1, 4)
        else:
            interpolation_core, output_core = "LINEAR", values
        channel["sampler"] = len(samplers)
        samplers.append({"input": time_input, "interpolation": interpolation_core,
                         "output": buffer.add_accessor(output_core)})
        channels.append(channel)
    document["animations"] = [{"name": "Synthetic", "samplers": samplers, "channels": channels}]
    return document, buffer.blob()


def write_rig(path, **options):
    devpath.import_package()
    from gltf_sqlerp.core.gltf.writer import write_glb
    document, blob = build(**options)
    write_glb(Path(path), document, blob)
    return Path(path)


if __name__ == "__main__":
    print(write_rig(sys.argv[1] if len(sys.argv) > 1 else "/tmp/synthetic_rig.glb"))
