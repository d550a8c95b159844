"""How each kind of glTF sampler lands in Blender's F-curves after ``import_scene.gltf_sqlerp``.

Expected values come from the file (its key times and values, read with json and numpy), the
scene's frame rate, and the glTF spec's rules for each interpolation; Blender's own F-curves and
pose are what is checked.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import ASSETS
from helpers.raw_gltf import raw_accessor

pytestmark = pytest.mark.blender

INTERPOLATION_TEST = ASSETS / "khronos/InterpolationTest/glTF/InterpolationTest.gltf"
SAMPLE = Path(__file__).resolve().parents[2] / "samples/sqlerp_arm.gltf"


def clip_sampler(name):
    document = json.loads(INTERPOLATION_TEST.read_text())
    animation = next(a for a in document["animations"] if a["name"] == name)
    channel = animation["channels"][0]
    sampler = animation["samplers"][channel["sampler"]]
    node_name = document["nodes"][channel["target"]["node"]]["name"]
    return (node_name, raw_accessor(INTERPOLATION_TEST, sampler["input"])[:, 0],
            raw_accessor(INTERPOLATION_TEST, sampler["output"]))


def curves_of(bpy, action, data_path):
    """The F-curves of ``data_path`` in ``action``, whatever the Blender version keeps them in."""
    if hasattr(action, "layers") and action.layers:
        bags = action.layers[0].strips[0].channelbags
        curves = [c for bag in bags for c in bag.fcurves]
    else:
        curves = list(action.fcurves)
    return sorted((c for c in curves if data_path is None or c.data_path == data_path),
                  key=lambda c: (c.data_path, c.array_index))


def keys_of(curve, field):
    values = np.zeros(2 * len(curve.keyframe_points), dtype=np.float32)
    curve.keyframe_points.foreach_get(field, values)
    return values.reshape(-1, 2).astype(np.float64)


def imported_action(bpy, fidelity, clip, **options):
    fidelity.import_gltf(str(INTERPOLATION_TEST), **options)
    return bpy.data.actions[clip] if clip in bpy.data.actions else next(
        a for a in bpy.data.actions if a.name.startswith(clip))


@pytest.fixture
def bpy_module(fidelity):
    import bpy
    return bpy


@pytest.mark.parametrize("clip, data_path, mode", [
    ("Step Translation", "location", "CONSTANT"),
    ("Linear Translation", "location", "LINEAR"),
    ("Step Scale", "scale", "CONSTANT"),
    ("Linear Scale", "scale", "LINEAR"),
])
def test_step_and_linear_keep_the_file_keys(bpy_module, fidelity, clip, data_path, mode):
    """STEP -> CONSTANT and LINEAR translation/scale -> LINEAR, key for key at t * fps / fps_base."""
    _, times, _ = clip_sampler(clip)
    action = imported_action(bpy_module, fidelity, clip)
    scene = bpy_module.context.scene
    rate = scene.render.fps / scene.render.fps_base
    curves = curves_of(bpy_module, action, data_path)
    assert len(curves) == 3
    for curve in curves:
        np.testing.assert_allclose(keys_of(curve, "co")[:, 0], times * rate, rtol=1e-6)
        assert {k.interpolation for k in curve.keyframe_points} == {mode}


def test_cubicspline_keys_carry_the_file_tangents(bpy_module, fidelity):
    """CUBICSPLINE -> BEZIER keys at the file's times with FREE handles one third of each
    neighbouring segment away, on the file's tangents (scaled by the segment duration)."""
    _, times, output = clip_sampler("CubicSpline Translation")
    action = imported_action(bpy_module, fidelity, "CubicSpline Translation")
    scene = bpy_module.context.scene
    rate = scene.render.fps / scene.render.fps_base
    frames = times * rate
    curves = curves_of(bpy_module, action, "location")
    a, v, b = output[0::3], output[1::3], output[2::3]
    gltf_to_blender = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.float64)  # Y-up to Z-up
    node_offset = keys_of(curves[0], "co")[0, 1] - (gltf_to_blender @ v[0])[0]
    assert abs(node_offset) < 1e-5  # this node has no correction of its own
    span = np.diff(frames)
    for curve in curves:
        assert {k.handle_left_type for k in curve.keyframe_points} == {"FREE"}
        assert {k.interpolation for k in curve.keyframe_points} == {"BEZIER"}
        row = gltf_to_blender[curve.array_index]
        co, right, left = keys_of(curve, "co"), keys_of(curve, "handle_right"), keys_of(curve, "handle_left")
        np.testing.assert_allclose(co[:, 0], frames, rtol=1e-6)
        np.testing.assert_allclose(co[:, 1], v @ row, atol=1e-5)
        np.testing.assert_allclose(right[:-1, 0] - co[:-1, 0], span / 3, rtol=1e-5)
        np.testing.assert_allclose(co[1:, 0] - left[1:, 0], span / 3, rtol=1e-5)
        seconds = np.diff(times)
        np.testing.assert_allclose(right[:-1, 1], (v[:-1] + b[:-1] * seconds[:, None] / 3) @ row, atol=1e-5)
        np.testing.assert_allclose(left[1:, 1], (v[1:] - a[1:] * seconds[:, None] / 3) @ row, atol=1e-5)


def test_rotation_curves_keep_quaternion_signs_continuous(bpy_module, fidelity):
    """Neighbouring keys of every rotation curve are on the same side (dot >= 0), so Blender's
    component-wise curves never swing through the long way round."""
    fidelity.import_gltf(str(SAMPLE))
    checked = 0
    for action in bpy_module.data.actions:
        curves = curves_of(bpy_module, action, None)
        for path in {c.data_path for c in curves if c.data_path.endswith("rotation_quaternion")}:
            quaternions = np.stack([keys_of(c, "co")[:, 1] for c in curves if c.data_path == path], axis=1)
            assert quaternions.shape[1] == 4 and len(quaternions) > 2
            assert (np.einsum("ij,ij->i", quaternions[:-1], quaternions[1:]) >= 0).all()
            checked += 1
    assert checked == 3  # Shoulder, Elbow, Wrist


def test_bake_writes_a_linear_key_on_every_frame(bpy_module, fidelity):
    """'Bake Every Frame': LINEAR keys on every whole frame of the clip (and its last instant),
    holding the spec's value there."""
    from gltf_sqlerp import core
    fidelity.import_gltf(str(SAMPLE), bake=True)
    document = core.load(SAMPLE)
    scene = bpy_module.context.scene
    rate = scene.render.fps / scene.render.fps_base
    arm = next(o for o in bpy_module.data.objects if o.type == 'ARMATURE')
    action = arm.animation_data.action  # "Wave" (4.4+), "Wave_<object>" (4.2)
    expected_frames = np.arange(0, np.floor(document.animations[0].duration * rate) + 1)
    for curve in curves_of(bpy_module, action, 'pose.bones["Elbow"].rotation_quaternion'):
        frames = keys_of(curve, "co")[:, 0]
        np.testing.assert_allclose(frames[:len(expected_frames)], expected_frames, atol=1e-4)
        assert {k.interpolation for k in curve.keyframe_points} == {"LINEAR"}
    result = fidelity.measure(document, 0, frames=expected_frames)
    assert result.problems == [] and result.rotation_max_deg < 1e-3
