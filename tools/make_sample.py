"""Generate the project's own EXT_animation_sqlerp sample: a skinned three-bone arm.

No public file uses EXT_animation_sqlerp, so we author one. The arm's rotations are CUBICSLERP with
uneven key spacing and large turns (over 120 degrees between some keys), tangents set to the
time-aware control points of spec "Tangents a writer starts from" (a_i = b_i = s_i, a_1 = v_1, b_n = v_n), and a
LINEAR fallback resampled to stay within 0.1 degrees of the CUBICSLERP curve.

Writes into samples/ (or the folder given as the first argument):
  sqlerp_arm.gltf + sqlerp_arm.bin   fallback form (the default export form)
  sqlerp_arm.glb                     the same, binary
  sqlerp_arm_required.gltf           the draft's required form without a core sampler (embedded data)
"""

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FALLBACK_TOLERANCE_DEG = 0.1


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath  # noqa: E402  (tools/devpath.py: how dev scripts import this repository)

devpath.import_package()
from gltf_sqlerp.core.sampling import quaternions as quat  # noqa: E402
from gltf_sqlerp.core.fitting.sample_fallback import linear_rotation_keys  # noqa: E402
from gltf_sqlerp.core.sampling.interpolation import evaluate  # noqa: E402
from gltf_sqlerp.core.gltf.writer import BufferBuilder, write_glb, write_gltf  # noqa: E402

# Key times in seconds (uneven on purpose) and, per bone, key rotations as (axis, degrees).
KEY_TIMES = np.array([0.0, 0.35, 1.0, 1.25, 2.0])
# Large turns (126-135 degrees between some keys) keep one direction, so the C1 control points
# satisfy the sign rules of spec "Sign rules for writers" without extra keys; reversals are small.
BONE_KEYS = {
    "Shoulder": [((0, 0, 1), 0), ((0, 0, 1), 60), ((0.2, 0, 1), 185), ((0, 0, 1), 230), ((0, 0, 1), 300)],
    "Elbow": [((1, 0, 0), 0), ((1, 0, 0), 35), ((1, 0.3, 0), 165), ((1, 0, 0), 175), ((1, 0, 0), 310)],
    "Wrist": [((0, 1, 0), 0), ((0, 1, 0), -100), ((0.3, 1, 0), -230), ((0, 1, 0), -250),
              ((0, 1, 0), -360)],
}
BONE_LENGTH = 1.0
RING_HEIGHTS = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
# Joint weights per ring (Shoulder, Elbow, Wrist): blends at the elbow and the wrist.
RING_WEIGHTS = np.array([[1, 0, 0], [1, 0, 0], [0.5, 0.5, 0], [0, 1, 0],
                         [0, 0.5, 0.5], [0, 0, 1], [0, 0, 1]], dtype=np.float64)
HALF_WIDTH = 0.15


def key_rotations(keys):
    """Unit quaternions (x, y, z, w) of (axis, degrees) pairs, signs continuous along the keys."""
    axes = np.array([a for a, _ in keys], dtype=np.float64)
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    half = np.radians([d for _, d in keys])[:, None] / 2.0
    return quat.make_continuous(quat.exp(axes * half))


def cubicslerp_output(times, values):
    """Interleaved (a_i, v_i, b_i) rows with a_i = b_i = s_i, a_1 = v_1, b_n = v_n."""
    control = quat.control_points(times, values)
    return np.stack([control, values, control], axis=1).reshape(-1, 4)


def check_sign_rules(values, output):
    """The sign rules (spec "Sign rules for writers"): v_k.v_k+1, v_k.b_k, v_k+1.a_k+1 and
    b_k.a_k+1 all >= 0, so that evaluators that flip to the short path and those that never flip play the same curve."""
    a, b = output[0::3], output[2::3]
    pairs = [(values[:-1], values[1:]), (values[:-1], b[:-1]), (values[1:], a[1:]), (b[:-1], a[1:])]
    if min(quat.dot(x, y).min() for x, y in pairs) < 0.0:
        raise ValueError("the spec's sign rules for writers do not hold; split the segment with a key")


def arm_mesh():
    """A square tube along +Y, one ring of 4 vertices per height, skinned by ring weights."""
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) * HALF_WIDTH
    rings = len(RING_HEIGHTS)
    positions = np.zeros((rings, 4, 3))
    positions[:, :, 0] = corners[:, 0]
    positions[:, :, 1] = RING_HEIGHTS[:, None]
    positions[:, :, 2] = corners[:, 1]
    base = (np.arange(rings - 1)[:, None] * 4 + np.arange(4)[None, :]).ravel()
    nxt = (np.arange(rings - 1)[:, None] * 4 + (np.arange(4)[None, :] + 1) % 4).ravel()
    quads = np.stack([base, nxt, nxt + 4, base, nxt + 4, base + 4], axis=1)
    caps = np.array([[0, 2, 1, 0, 3, 2], [rings * 4 - 4, rings * 4 - 3, rings * 4 - 2,
                                          rings * 4 - 4, rings * 4 - 2, rings * 4 - 1]])
    indices = np.concatenate([quads, caps]).reshape(-1)
    weights = np.repeat(RING_WEIGHTS, 4, axis=0)
    joints = np.tile(np.array([0, 1, 2, 0], dtype=np.uint8), (len(weights), 1))
    weights4 = np.concatenate([weights, np.zeros((len(weights), 1))], axis=1)
    return positions.reshape(-1, 3), indices, joints, weights4


def build(required=False):
    """The glTF document and its binary buffer; ``required`` gives the draft's no-fallback form."""
    document = {
        "asset": {"version": "2.0", "generator": "gltf_sqlerp tools/make_sample.py"},
        "extensionsUsed": ["EXT_animation_sqlerp"],
        "scene": 0, "scenes": [{"name": "Scene", "nodes": [0]}],
        "nodes": [
            {"name": "Arm", "children": [1, 4]},
            {"name": "Shoulder", "children": [2]},
            {"name": "Elbow", "translation": [0, BONE_LENGTH, 0], "children": [3]},
            {"name": "Wrist", "translation": [0, BONE_LENGTH, 0]},
            {"name": "ArmMesh", "mesh": 0, "skin": 0},
        ],
    }
    if required:
        document["extensionsRequired"] = ["EXT_animation_sqlerp"]
    buffer = BufferBuilder(document)
    positions, indices, joints, weights = arm_mesh()
    document["meshes"] = [{"name": "ArmMesh", "primitives": [{
        "attributes": {"POSITION": buffer.add_accessor(positions, bounds=True),
                       "JOINTS_0": buffer.add_accessor(joints, 5121, "VEC4"),
                       "WEIGHTS_0": buffer.add_accessor(weights)},
        "indices": buffer.add_accessor(indices, 5123, "SCALAR")}]}]
    rest = np.array([0.0, 1.0, 2.0]) * BONE_LENGTH
    inverse_bind = np.tile(np.eye(4), (3, 1, 1))
    inverse_bind[:, 1, 3] = -rest
    document["skins"] = [{"name": "ArmSkin", "joints": [1, 2, 3], "skeleton": 1,
                          "inverseBindMatrices": buffer.add_accessor(inverse_bind, kind="MAT4")}]
    document["animations"] = [_animation(buffer, required)]
    return document, buffer.blob()


def _animation(buffer, required):
    key_input = buffer.add_accessor(KEY_TIMES, bounds=True)
    samplers, channels = [], []
    for node, bone in enumerate(BONE_KEYS, start=1):
        values = key_rotations(BONE_KEYS[bone])
        output = cubicslerp_output(KEY_TIMES, values)
        check_sign_rules(values, output)
        channel = {"target": {"node": node, "path": "rotation"},
                   "extensions": {"EXT_animation_sqlerp": {"sampler": len(samplers)}}}
        samplers.append({"input": key_input, "interpolation": "CUBICSLERP",
                         "output": buffer.add_accessor(output)})
        if not required:
            def curve(t, out=output):
                return evaluate("CUBICSLERP", KEY_TIMES, out, t, rotation=True)
            times, fallback = linear_rotation_keys(curve, KEY_TIMES, FALLBACK_TOLERANCE_DEG)
            channel["sampler"] = len(samplers)
            samplers.append({"input": buffer.add_accessor(times, bounds=True),
                             "interpolation": "LINEAR", "output": buffer.add_accessor(fallback)})
        channels.append(channel)
    # The whole arm bobs up and down: a plain LINEAR translation next to the rotations.
    bob = np.array([[0, 0, 0], [0, 0.2, 0], [0, 0, 0]], dtype=np.float64)
    channels.append({"sampler": len(samplers), "target": {"node": 0, "path": "translation"}})
    samplers.append({"input": buffer.add_accessor(np.array([0.0, 1.0, 2.0]), bounds=True),
                     "interpolation": "LINEAR", "output": buffer.add_accessor(bob)})
    return {"name": "Wave", "channels": channels, "samplers": samplers}


def main(folder: Path | str = ROOT / "samples") -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    document, blob = build()
    write_gltf(folder / "sqlerp_arm.gltf", document, blob)
    write_glb(folder / "sqlerp_arm.glb", document, blob)
    document, blob = build(required=True)
    write_gltf(folder / "sqlerp_arm_required.gltf", document, blob, embed=True)
    for name in ("sqlerp_arm.gltf", "sqlerp_arm.glb", "sqlerp_arm_required.gltf"):
        print(f"wrote {folder / name}")


if __name__ == "__main__":
    main(*sys.argv[1:])
