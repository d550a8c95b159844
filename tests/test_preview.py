"""The live preview ("Play glTF Exactly") in the real Blender.

Expected values come from the file through the core (``Channel.evaluate`` at t = frame / the
scene's rate, mapped to pose space with the record's matrix) and, independently, from
tools/fidelity.measure (world rotations and skinned vertices against ``Document.node_matrices``).
samples/sqlerp_arm.gltf tells the sources apart: its F-curves are within 0.01° of the extension,
its fallback about 0.1° away. Blender's own values are read from Blender with the preview off.
"""

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.blender
ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"
MORPH_CUBE = Path(__file__).resolve().parents[2] / "shared/assets/khronos/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"
HALF_FRAMES = np.arange(0.0, 48.01, 0.5)  # the clip's 2 s at 24 fps, every frame and half frame
EXACT_DEG = 1e-4   # float32 pose values: about 1e-5° from the core's float64
APART_DEG = 0.05   # the fallback is ~0.1° from the extension somewhere


def _core():
    from gltf_sqlerp import core
    return core


@pytest.fixture
def bpy(fidelity):
    import bpy as module
    return module


def frame_set(scene, frame):
    whole = math.floor(frame)
    scene.frame_set(int(whole), subframe=float(frame - whole))


def import_sample(fidelity, path=SAMPLE):
    assert fidelity.import_gltf(str(path)) == {'FINISHED'}
    import bpy
    return bpy.context.scene


def set_preview(scene, enabled, source='EXTENSION'):
    """Set the scene's preview as a script does, and show the change at once."""
    scene.gltf_sqlerp_preview.source = source
    scene.gltf_sqlerp_preview.enabled = enabled
    from gltf_sqlerp.operators import preview
    preview.refresh(scene)


def records(data):
    from gltf_sqlerp.operators import action_data
    return action_data.load(data.animation_data.action)["channels"]


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
    quaternions = _core().quaternions
    return [float(quaternions.angle_between(np.roll(a, -1), np.roll(b, -1)))
            if r["path"] == "rotation" else float(np.abs(a - b).max())
            for a, b, r in zip(got, expected, channel_records)]


def pose_over_half_frames(scene, data, channel_records):
    out = []
    for frame in HALF_FRAMES:
        frame_set(scene, frame)
        out.append(blender_values(data, channel_records))
    return out


# --- the preview plays the core's evaluation ------------------------------------------------------

@pytest.mark.parametrize("source", ["EXTENSION", "FALLBACK"])
def test_pose_bones_follow_the_core_at_frames_and_half_frames(bpy, fidelity, source):
    scene = import_sample(fidelity)
    document = _core().load(SAMPLE)
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
    assert fidelity.measure(document, 0, use_fallback=source == 'FALLBACK').rotation_max_deg < EXACT_DEG
    assert fidelity.measure(document, 0, use_fallback=source != 'FALLBACK').rotation_max_deg > APART_DEG


def test_new_stored_data_and_a_new_source_replace_the_cached_player(bpy, fidelity):
    scene = import_sample(fidelity)
    document = _core().load(SAMPLE)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    set_preview(scene, True, 'EXTENSION')
    frame_set(scene, 40.5)
    time = 40.5 / 24.0
    assert max(differences(blender_values(arm, chosen), spec_values(document, chosen, time, False), chosen)) < EXACT_DEG
    set_preview(scene, True, 'FALLBACK')
    assert max(differences(blender_values(arm, chosen), spec_values(document, chosen, time, True), chosen)) < EXACT_DEG
    # Stored data replaced (as a re-import or action_data.store does): the translation moved 1 m.
    from gltf_sqlerp.operators import action_data
    stored = action_data.load(arm.animation_data.action)
    moved = next(r for r in stored["channels"] if r["path"] == "translation")
    moved["sampler"]["values"] = [v + 1.0 for v in moved["sampler"]["values"]]
    arm.animation_data.action[action_data.KEY] = stored
    frame_set(scene, 40.5)
    location = next(i for i, r in enumerate(chosen) if r["path"] == "translation")
    expected = spec_values(document, chosen, time, True)[location] + np.asarray(moved["matrix"]).reshape(3, 3) @ np.ones(3)
    np.testing.assert_allclose(blender_values(arm, chosen)[location], expected, atol=1e-6)


def test_a_settings_change_notified_by_the_message_bus_shows_at_once(bpy, fidelity):
    """The UI's message bus calls preview.on_settings_change after a change of the settings (it
    is not dispatched in background runs, so the test calls it as the bus would)."""
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    frame_set(scene, 40.5)
    own = blender_values(arm, chosen)
    from gltf_sqlerp.operators import preview
    scene.gltf_sqlerp_preview.source = 'FALLBACK'
    scene.gltf_sqlerp_preview.enabled = True
    assert _equal(blender_values(arm, chosen), own)  # no update callback: nothing yet
    preview.on_settings_change()
    expected = spec_values(_core().load(SAMPLE), chosen, 40.5 / 24.0, True)
    assert max(differences(blender_values(arm, chosen), expected, chosen)) < EXACT_DEG
    scene.gltf_sqlerp_preview.enabled = False
    preview.on_settings_change()
    assert _equal(blender_values(arm, chosen), own)


def test_blender_source_and_switching_off_restore_the_actions_values(bpy, fidelity):
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    own = pose_over_half_frames(scene, arm, chosen)
    own_matrices = _bone_matrices(arm)      # at the last half frame
    set_preview(scene, True, 'FALLBACK')
    previewed = pose_over_half_frames(scene, arm, chosen)
    assert max(max(differences(p, o, chosen)) for p, o in zip(previewed, own)) > APART_DEG
    set_preview(scene, False)  # at the last half frame: restored at once
    assert _equal(blender_values(arm, chosen), own[-1])
    assert np.array_equal(_bone_matrices(arm), own_matrices)
    set_preview(scene, True, 'BLENDER')        # Blender's own curves: the same as off
    assert all(_equal(p, o) for p, o in zip(pose_over_half_frames(scene, arm, chosen), own))


def _equal(values, others):
    return all(np.array_equal(a, b) for a, b in zip(values, others))


def _bone_matrices(arm):
    flat = np.empty(len(arm.pose.bones) * 16, dtype=np.float32)
    arm.pose.bones.foreach_get("matrix", flat)
    return flat


def _small_rig(folder):
    """bench/synthetic_rig.py's rig, small: 4 skinned bones with rotation channels only (no
    object channel whose write would re-evaluate the armature anyway)."""
    spec = importlib.util.spec_from_file_location("gltf_sqlerp_synthetic_rig", ROOT / "bench" / "synthetic_rig.py")
    rig = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rig)
    return rig.write_rig(folder / "rig.glb", bones=4, keys=40)


@pytest.mark.parametrize("case", ["object location", "shape keys", "pose bones only"])
def test_the_preview_plays_the_file_where_the_curves_were_edited(bpy, fidelity, tmp_path, case):
    """Pose bones, object transforms and shape keys: with their F-curves shifted, the preview
    still shows the file (and Blender's curves, with the preview off, do not); so do the world
    matrices and the deformed meshes Blender evaluates from the written values."""
    path = {"object location": SAMPLE, "shape keys": MORPH_CUBE}.get(case) or _small_rig(tmp_path)
    scene = import_sample(fidelity, path)
    document = _core().load(path)
    data = bpy.data.shape_keys[0] if case == "shape keys" else next(
        o for o in bpy.data.objects if o.type == 'ARMATURE')
    paths = {"object location": ("translation",), "shape keys": ("weights",)}.get(case, ("rotation",))
    chosen = [r for r in records(data) if r["path"] in paths]
    assert chosen and (case != "pose bones only" or len(chosen) == len(records(data)))
    for curve in _curves(data.animation_data.action):
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
            got = blender_values(data, chosen)
            worst = max(worst, *differences(got, spec_values(document, chosen, frame / rate, False), chosen))
        assert (worst < EXACT_DEG) if enabled else (worst > 0.29)
        played = fidelity.measure(document, 0, frames=frames)
        assert (played.rotation_max_deg < EXACT_DEG and played.vertex_max < 1e-5) if enabled else (
            played.rotation_max_deg > 1.0 or played.vertex_max > 1e-2)


def test_a_render_shows_the_preview(bpy, fidelity, tmp_path):
    """frame_change_post runs for the render pipeline's depsgraph too: with the armature's
    location curves shifted by 1 m, a render with the preview on shows the file's pose (the render
    before the edit), one with it off the shifted pose."""
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(camera)
    camera.location, camera.rotation_euler, scene.camera = (0, -8, 1), (math.pi / 2, 0, 0), camera
    scene.render.engine = 'CYCLES'
    scene.cycles.samples, scene.cycles.device = 1, 'CPU'
    scene.render.resolution_x = scene.render.resolution_y = 48
    scene.render.resolution_percentage = 100

    def render(name):
        scene.render.filepath = str(tmp_path / name)
        bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(scene.render.filepath)
        pixels = np.array(image.pixels[:])
        bpy.data.images.remove(image)
        return pixels

    frame_set(scene, 20.0)
    file_pose = render("file.png")
    for curve in _curves(arm.animation_data.action):
        if curve.data_path == "location" and curve.array_index == 0:
            for point in curve.keyframe_points:
                for attribute in ("co", "handle_left", "handle_right"):
                    getattr(point, attribute)[1] += 1.0
            curve.update()
    shifted = render("off.png")
    set_preview(scene, True)
    previewed = render("on.png")
    assert np.abs(shifted - file_pose).max() > 0.1
    assert np.abs(previewed - file_pose).max() < 1e-6
    # Control: the pose written before the render is not what the render shows; the handler is.
    from gltf_sqlerp.operators import preview
    bpy.app.handlers.frame_change_post.remove(preview.on_frame_change)
    try:
        assert np.abs(render("unhandled.png") - shifted).max() < 1e-6
    finally:
        bpy.app.handlers.frame_change_post.append(preview.on_frame_change)


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
    expected = spec_values(_core().load(SAMPLE), chosen, 40.5 / 24.0, True)
    for obj in (arm, copy):
        assert max(differences(blender_values(obj, chosen), expected, chosen)) < EXACT_DEG
    if hasattr(copy.animation_data, "action_slot"):  # slotted actions (Blender 4.4+)
        before = blender_values(copy, chosen)
        copy.animation_data.action_slot = copy.animation_data.action.slots.new('OBJECT', "Other")
        frame_set(scene, 20.5)
        assert _equal(blender_values(copy, chosen), before)  # nothing plays on that slot
        assert max(differences(blender_values(arm, chosen), spec_values(
            _core().load(SAMPLE), chosen, 20.5 / 24.0, True), chosen)) < EXACT_DEG


# --- NLA ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("start, scale, repeat, tweak", [
    (12.0, 1.0, 1.0, False), (5.0, 1.5, 2.0, False), (5.0, 1.5, 2.0, True)],
    ids=["offset", "scale and repeat", "tweak mode"])
def test_an_nla_strip_is_previewed_through_its_time_mapping(bpy, fidelity, start, scale, repeat, tweak):
    """The action unassigned and its (unmuted) track playing, or the strip being edited in tweak
    mode: the strip maps scene frames to action frames."""
    scene = import_sample(fidelity)
    document = _core().load(SAMPLE)
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
    curve = next(c for c in _curves(strip.action)
                 if c.data_path.endswith('["Elbow"].rotation_quaternion') and c.array_index == 1)
    for frame, action_frame in zip(frames, action_frames):  # Blender's NLA plays these frames
        frame_set(scene, frame)
        assert arm.pose.bones["Elbow"].rotation_quaternion[1] == pytest.approx(curve.evaluate(action_frame), abs=1e-6)
    set_preview(scene, True, 'FALLBACK')
    worst_same, worst_other = 0.0, 0.0
    for frame, action_frame in zip(frames, action_frames):
        frame_set(scene, frame)
        got = blender_values(arm, chosen)
        worst_same = max(worst_same, *differences(got, spec_values(document, chosen, action_frame / rate, True), chosen))
        worst_other = max(worst_other, *differences(got, spec_values(document, chosen, action_frame / rate, False), chosen))
    assert worst_same < EXACT_DEG
    assert worst_other > APART_DEG


def _curves(action):
    if hasattr(action, "layers") and action.layers:
        return [c for layer in action.layers for strip in layer.strips
                for bag in strip.channelbags for c in bag.fcurves]
    return list(action.fcurves)


# --- export, save, undo, disable ----------------------------------------------------------------

def _exported_rotations(path):
    document = _core().load(path)
    names = [n.get("name") for n in document.json["nodes"]]
    return {(names[c.node], c.path): c.sampler.values for a in document.animations
            for c in a.channels if c.path == "rotation"}


def test_a_gltf_export_writes_what_the_action_says(tmp_path):
    """A glTF export while the preview is on writes the action's rotations, not the preview's;
    the preview is back afterwards. The exports run in tests/preview_export_job.py (bpy 4.2
    crashes at exit after any glTF export); the control export there skips the add-on's export
    callbacks and must carry the preview's values."""
    job = subprocess.run([sys.executable, str(Path(__file__).with_name("preview_export_job.py")),
                          str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert job.returncode == 0, job.stdout[-3000:] + job.stderr[-3000:]
    report = json.loads(job.stdout.strip().splitlines()[-1])
    own = _exported_rotations(tmp_path / "off.glb")
    with_preview = _exported_rotations(tmp_path / "on.glb")
    assert own.keys() == with_preview.keys() and len(own) == 3
    for key in own:
        np.testing.assert_allclose(with_preview[key], own[key], rtol=0, atol=1e-7)
    assert report["after"] == report["before"] and report["held"] == []  # the preview is back
    leaked = _exported_rotations(tmp_path / "leaked.glb")
    quaternions = _core().quaternions
    assert max(float(quaternions.angle_between(leaked[k], own[k]).max()) for k in own) > APART_DEG


def test_save_and_reload_keep_the_setting_and_store_the_actions_pose(bpy, fidelity, tmp_path):
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    frame_set(scene, 40.0)
    own = blender_values(arm, chosen)
    set_preview(scene, True, 'FALLBACK')
    previewed = blender_values(arm, chosen)
    assert max(differences(previewed, own, chosen)) > 1e-3
    path = tmp_path / "previewed.blend"
    assert bpy.ops.wm.save_as_mainfile(filepath=str(path), copy=True) == {'FINISHED'}
    assert _equal(blender_values(arm, chosen), previewed)  # on again after the save
    with bpy.data.libraries.load(str(path)) as (_, appended):  # the pose as stored in the file
        appended.objects = ["Arm"]
    stored = appended.objects[0]
    assert stored.name != "Arm" and _equal(blender_values(stored, chosen), own)

    assert bpy.ops.wm.open_mainfile(filepath=str(path)) == {'FINISHED'}
    scene, arm = bpy.context.scene, bpy.data.objects["Arm"]
    assert scene.gltf_sqlerp_preview.enabled and scene.gltf_sqlerp_preview.source == 'FALLBACK'
    assert _equal(blender_values(arm, chosen), previewed)  # played again on load
    document = _core().load(SAMPLE)
    frame_set(scene, 20.5)
    expected = spec_values(document, chosen, 20.5 / 24.0, use_fallback=True)
    assert max(differences(blender_values(arm, chosen), expected, chosen)) < EXACT_DEG


def test_undo_and_redo_around_the_toggle(bpy, fidelity):
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    scene.gltf_sqlerp_preview.source = 'FALLBACK'
    frame_set(scene, 40.0)
    own = blender_values(arm, chosen)
    with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
        bpy.ops.ed.undo_push(message="before")
        assert bpy.ops.gltf_sqlerp.preview_toggle('EXEC_DEFAULT', True) == {'FINISHED'}
        assert bpy.context.scene.gltf_sqlerp_preview.enabled
        previewed = blender_values(bpy.data.objects["Arm"], chosen)
        assert max(differences(previewed, own, chosen)) > 1e-3
        assert bpy.ops.ed.undo() == {'FINISHED'}
        assert not bpy.context.scene.gltf_sqlerp_preview.enabled
        assert _equal(blender_values(bpy.data.objects["Arm"], chosen), own)
        assert bpy.ops.ed.redo() == {'FINISHED'}
        assert bpy.context.scene.gltf_sqlerp_preview.enabled
        assert _equal(blender_values(bpy.data.objects["Arm"], chosen), previewed)
    document = _core().load(SAMPLE)
    frame_set(bpy.context.scene, 20.5)
    expected = spec_values(document, chosen, 20.5 / 24.0, use_fallback=True)
    assert max(differences(blender_values(bpy.data.objects["Arm"], chosen), expected, chosen)) < EXACT_DEG


def test_disabling_the_addon_restores_blenders_evaluation(bpy, fidelity):
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    frame_set(scene, 40.5)
    own = blender_values(arm, chosen)
    set_preview(scene, True, 'FALLBACK')
    assert max(differences(blender_values(arm, chosen), own, chosen)) > 1e-3
    import gltf_sqlerp as package
    from gltf_sqlerp.operators import preview
    package.unregister()  # what disabling the add-on runs (however this session enabled it)
    try:
        assert _equal(blender_values(arm, chosen), own)
        assert preview.on_frame_change not in bpy.app.handlers.frame_change_post
        assert not hasattr(scene, "gltf_sqlerp_preview")
    finally:
        package.register()
    assert preview.on_frame_change in bpy.app.handlers.frame_change_post
