"""The live preview ("Play glTF Exactly") plays the core's evaluation, in the real Blender.

Expected values: the file through the core, mapped into Blender's values by each stored record
(tests/helpers/preview_checks.py) and, independently, tools/fidelity.measure (world rotations and skinned
vertices against ``Document.node_matrices``). Blender's own values are read with the preview off.
"""

import numpy as np
import pytest
from helpers.bpy_access import settings
from helpers.preview_checks import (APART_DEG, EXACT_DEG, HALF_FRAMES, MORPH_CUBE, SAMPLE,
                                    blender_values, bone_matrices, core, curves, differences, equal,
                                    frame_set, import_sample, off_spec, pose_over_half_frames, records,
                                    set_preview, small_rig, spec_values)

pytestmark = pytest.mark.blender


@pytest.fixture
def bpy(fidelity):
    import bpy as module
    return module


# --- the preview plays the core's evaluation ------------------------------------------------------

@pytest.mark.parametrize("source", ["EXTENSION", "FALLBACK"])
def test_pose_bones_follow_the_core_at_frames_and_half_frames(bpy, fidelity, source):
    scene = import_sample(fidelity)
    document = core().load(SAMPLE)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    set_preview(scene, True, source)
    rate = scene.render.fps / scene.render.fps_base
    worst_same, worst_other = 0.0, 0.0
    for frame, got in zip(HALF_FRAMES, pose_over_half_frames(scene, arm, chosen)):
        same = spec_values(document, chosen, frame / rate, use_fallback=source == 'FALLBACK')
        other = spec_values(document, chosen, frame / rate, use_fallback=source != 'FALLBACK')
        worst_same = max(worst_same, *differences(got, same, chosen))
        worst_other = max(worst_other, *differences(got, other, chosen))
    assert worst_same < EXACT_DEG
    assert worst_other > APART_DEG  # the test tells the sources apart
    # Independently: world rotations and skinned vertices against Document.node_matrices.
    fallback = source == 'FALLBACK'
    assert fidelity.measure(document, 0, use_fallback=fallback).rotation_max_deg < EXACT_DEG
    assert fidelity.measure(document, 0, use_fallback=not fallback).rotation_max_deg > APART_DEG


def test_new_stored_data_and_a_new_source_replace_the_cached_player(bpy, fidelity):
    scene = import_sample(fidelity)
    document = core().load(SAMPLE)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    set_preview(scene, True, 'EXTENSION')
    frame_set(scene, 40.5)
    time = 40.5 / 24.0
    assert off_spec(arm, chosen, document, time, False) < EXACT_DEG
    set_preview(scene, True, 'FALLBACK')
    assert off_spec(arm, chosen, document, time, True) < EXACT_DEG
    # Stored data replaced (as a re-import or action_data.store does): the translation moved 1 m.
    from gltf_sqlerp.operators import action_data
    stored = arm.animation_data.action[action_data.KEY].to_dict()
    moved = next(r for r in stored["channels"] if r["path"] == "translation")
    moved["sampler"]["values"] = [v + 1.0 for v in moved["sampler"]["values"]]
    arm.animation_data.action[action_data.KEY] = stored
    frame_set(scene, 40.5)
    location = next(i for i, r in enumerate(chosen) if r["path"] == "translation")
    shift = np.asarray(moved["matrix"]).reshape(3, 3) @ np.ones(3)
    expected = spec_values(document, chosen, time, True)[location] + shift
    np.testing.assert_allclose(blender_values(arm, chosen)[location], expected, atol=1e-6)


def test_a_settings_change_notified_by_the_message_bus_shows_at_once(bpy, fidelity):
    """The UI's message bus calls preview.on_settings_change after a change of the settings (it
    is not dispatched in background runs, so the test calls it as the bus would)."""
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    frame_set(scene, 40.5)
    own = blender_values(arm, chosen)
    from gltf_sqlerp.operators.preview import live as preview
    preview_settings = settings(scene, "gltf_sqlerp_preview")
    preview_settings.source = 'FALLBACK'
    preview_settings.enabled = True
    assert equal(blender_values(arm, chosen), own)  # no update callback: nothing yet
    preview.on_settings_change()
    assert off_spec(arm, chosen, core().load(SAMPLE), 40.5 / 24.0, True) < EXACT_DEG
    preview_settings.enabled = False
    preview.on_settings_change()
    assert equal(blender_values(arm, chosen), own)


def test_blender_source_and_switching_off_restore_the_actions_values(bpy, fidelity):
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    own = pose_over_half_frames(scene, arm, chosen)
    own_matrices = bone_matrices(arm)      # at the last half frame
    set_preview(scene, True, 'FALLBACK')
    previewed = pose_over_half_frames(scene, arm, chosen)
    assert max(max(differences(p, o, chosen)) for p, o in zip(previewed, own)) > APART_DEG
    set_preview(scene, False)  # at the last half frame: restored at once
    assert equal(blender_values(arm, chosen), own[-1])
    assert np.array_equal(bone_matrices(arm), own_matrices)
    set_preview(scene, True, 'BLENDER')        # Blender's own curves: the same as off
    assert all(equal(p, o) for p, o in zip(pose_over_half_frames(scene, arm, chosen), own))


@pytest.mark.parametrize("case", ["object location", "shape keys", "pose bones only"])
def test_the_preview_plays_the_file_where_the_curves_were_edited(bpy, fidelity, tmp_path, case):
    """Pose bones, object transforms and shape keys: with their F-curves shifted, the preview
    still shows the file (and Blender's curves, with the preview off, do not); so do the world
    matrices and the deformed meshes Blender evaluates from the written values."""
    path = {"object location": SAMPLE, "shape keys": MORPH_CUBE}.get(case) or small_rig(tmp_path)
    scene = import_sample(fidelity, path)
    document = core().load(path)
    data = bpy.data.shape_keys[0] if case == "shape keys" else next(
        o for o in bpy.data.objects if o.type == 'ARMATURE')
    paths = {"object location": ("translation",), "shape keys": ("weights",)}.get(case, ("rotation",))
    chosen = [r for r in records(data) if r["path"] in paths]
    assert chosen and (case != "pose bones only" or len(chosen) == len(records(data)))
    for curve in curves(data.animation_data.action):
        if any(curve.data_path == c["data_path"] for r in chosen for c in r["curves"]):
            for point in curve.keyframe_points:
                for attribute in ("co", "handle_left", "handle_right"):
                    getattr(point, attribute)[1] += 0.3
            curve.update()
    rate = scene.render.fps / scene.render.fps_base
    frames = np.linspace(0.0, document.animations[0].duration * rate, 7)
    for enabled in (False, True):
        set_preview(scene, enabled)
        worst = 0.0
        for frame in frames:
            frame_set(scene, frame)
            worst = max(worst, off_spec(data, chosen, document, frame / rate, False))
        assert (worst < EXACT_DEG) if enabled else (worst > 0.29)
        played = fidelity.measure(document, 0, frames=frames)
        assert (played.rotation_max_deg < EXACT_DEG and played.vertex_max < 1e-5) if enabled else (
            played.rotation_max_deg > 1.0 or played.vertex_max > 1e-2)


def test_every_object_playing_the_clip_is_previewed_and_only_its_slot(bpy, fidelity):
    """A copy of the armature plays the same action (and slot) and is previewed too; on Blender
    4.4+ a copy switched to another slot of that action plays none of the clip's records."""
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    copy = arm.copy()
    scene.collection.objects.link(copy)
    assert copy.animation_data.action == arm.animation_data.action
    set_preview(scene, True, 'FALLBACK')
    frame_set(scene, 40.5)
    document = core().load(SAMPLE)
    for obj in (arm, copy):
        assert off_spec(obj, chosen, document, 40.5 / 24.0, True) < EXACT_DEG
    if hasattr(copy.animation_data, "action_slot"):  # slotted actions (Blender 4.4+)
        before = blender_values(copy, chosen)
        copy.animation_data.action_slot = copy.animation_data.action.slots.new('OBJECT', "Other")
        frame_set(scene, 20.5)
        assert equal(blender_values(copy, chosen), before)  # nothing plays on that slot
        assert off_spec(arm, chosen, document, 20.5 / 24.0, True) < EXACT_DEG


# --- NLA ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("start, scale, repeat, tweak", [
    (12.0, 1.0, 1.0, False), (5.0, 1.5, 2.0, False), (5.0, 1.5, 2.0, True)],
    ids=["offset", "scale and repeat", "tweak mode"])
def test_an_nla_strip_is_previewed_through_its_time_mapping(bpy, fidelity, start, scale, repeat,
                                                             tweak):
    """The action unassigned and its (unmuted) track playing, or the strip being edited in tweak
    mode: the strip maps scene frames to action frames."""
    scene = import_sample(fidelity)
    document = core().load(SAMPLE)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    track = arm.animation_data.nla_tracks["Wave"]
    strip = track.strips[0]
    arm.animation_data.action = None
    track.mute = False
    strip.scale, strip.repeat = scale, repeat
    strip.frame_start_ui = start
    if tweak:
        track.select = strip.select = True
        arm.animation_data.nla_tracks.active = track
        arm.animation_data.use_tweak_mode = True
        assert arm.animation_data.action == strip.action
    rate = scene.render.fps / scene.render.fps_base
    length = 48.0
    # Scene frames inside the strip, away from the repeat boundary, and the action frames they play.
    frames = [start + scale * a + scale * length * r for r in range(int(repeat))
              for a in (0.5, 7.25, 20.0, 33.5, 40.5, 47.0)]
    action_frames = [((f - start) / scale) % length for f in frames]
    curve = next(c for c in curves(strip.action)
                 if c.data_path.endswith('["Elbow"].rotation_quaternion') and c.array_index == 1)
    for frame, action_frame in zip(frames, action_frames):  # Blender's NLA plays these frames
        frame_set(scene, frame)
        played = arm.pose.bones["Elbow"].rotation_quaternion[1]
        assert played == pytest.approx(curve.evaluate(action_frame), abs=1e-6)
    set_preview(scene, True, 'FALLBACK')
    worst_same, worst_other = 0.0, 0.0
    for frame, action_frame in zip(frames, action_frames):
        frame_set(scene, frame)
        worst_same = max(worst_same, off_spec(arm, chosen, document, action_frame / rate, True))
        worst_other = max(worst_other, off_spec(arm, chosen, document, action_frame / rate, False))
    assert worst_same < EXACT_DEG
    assert worst_other > APART_DEG
