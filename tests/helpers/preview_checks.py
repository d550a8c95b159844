"""Shared by tests/operators/test_preview.py and tests/operators/test_preview_lifecycle.py (not a test module).

Expected values come from the file through the core (``Channel.evaluate`` at t = frame / the
scene's rate, mapped into Blender's property values with the record's matrix and offset);
Blender's values are read from Blender. samples/sqlerp_arm.gltf tells the sources apart: its
F-curves are within 0.01° of the extension, its fallback about 0.1° away.
"""

import math
from pathlib import Path

import numpy as np
from .bpy_access import current_scene, settings
from .child_job import ASSETS, tool

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"
MORPH_CUBE = ASSETS / "khronos/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"
HALF_FRAMES = np.arange(0.0, 48.01, 0.5)  # the clip's 2 s at 24 fps, every frame and half frame
EXACT_DEG = 1e-4   # float32 pose values: about 1e-5° from the core's float64
APART_DEG = 0.05   # the fallback is ~0.1° from the extension somewhere


def core():
    from gltf_sqlerp import core
    return core


def frame_set(scene, frame):
    whole = math.floor(frame)
    scene.frame_set(int(whole), subframe=float(frame - whole))


def import_sample(fidelity, path=SAMPLE):
    assert fidelity.import_gltf(str(path)) == {'FINISHED'}
    return current_scene()


def set_preview(scene, enabled, source='EXTENSION'):
    """Set the scene's preview as a script does, and show the change at once."""
    preview_settings = settings(scene, "gltf_sqlerp_preview")
    preview_settings.source = source
    preview_settings.enabled = enabled
    from gltf_sqlerp.operators.preview import live as preview
    preview.refresh(scene)


def records(data):
    """The stored channel records as the .blend keeps them (plain dicts)."""
    from gltf_sqlerp.operators import action_data
    return data.animation_data.action[action_data.KEY].to_dict()["channels"]


def blender_values(data, channel_records):
    """The current value of every record's property, read from Blender."""
    return [np.array(data.path_resolve(r["data_path"]), dtype=np.float64).reshape(-1)
            if r["path"] != "weights" else
            np.array([data.path_resolve(c["data_path"]) for c in r["curves"]], dtype=np.float64)
            for r in channel_records]


def spec_values(document, channel_records, time, use_fallback):
    """The core's values at ``time`` mapped into Blender's property values by each record."""
    out = []
    for r in channel_records:
        channel = next(c for c in document.animations[0].channels
                       if c.node == r["node"] and c.path == r["path"])
        k = len(r["offset"])
        value = np.reshape(r["matrix"], (k, k)) @ channel.evaluate([time], use_fallback=use_fallback)[0]
        out.append(value + np.asarray(r["offset"]))
    return out


def differences(got, expected, channel_records):
    """Per record: degrees for rotations (Blender order w, x, y, z), else the largest difference."""
    quaternions = core().sampling.quaternions
    return [float(quaternions.angle_between(np.roll(a, -1), np.roll(b, -1)))
            if r["path"] == "rotation" else float(np.abs(a - b).max())
            for a, b, r in zip(got, expected, channel_records)]


def off_spec(data, channel_records, document, time, use_fallback):
    """The largest difference between Blender's current values and the core's at ``time``."""
    expected = spec_values(document, channel_records, time, use_fallback)
    return max(differences(blender_values(data, channel_records), expected, channel_records))


def pose_over_half_frames(scene, data, channel_records):
    out = []
    for frame in HALF_FRAMES:
        frame_set(scene, frame)
        out.append(blender_values(data, channel_records))
    return out


def equal(values, others):
    return all(np.array_equal(a, b) for a, b in zip(values, others))


def bone_matrices(arm):
    flat = np.empty(len(arm.pose.bones) * 16, dtype=np.float32)
    arm.pose.bones.foreach_get("matrix", flat)
    return flat


def small_rig(folder):
    """bench/synthetic_rig.py's rig, small: 4 skinned bones with rotation channels only (no
    object channel whose write would re-evaluate the armature anyway)."""
    return tool("bench/synthetic_rig.py").write_rig(folder / "rig.glb", bones=4, keys=40)


def curves(action):
    if hasattr(action, "layers") and action.layers:
        return [c for layer in action.layers for strip in layer.strips
                for bag in strip.channelbags for c in bag.fcurves]
    return list(action.fcurves)
