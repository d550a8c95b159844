"""The live preview around renders, glTF exports, saving and reloading, undo and redo, and the
add-on being disabled, in the real Blender (helpers: tests/helpers/preview_checks.py)."""

import math
from typing import Any

import numpy as np
import pytest
from helpers.bpy_access import operator, settings
from helpers import JOBS, run_job
from helpers.preview_checks import (APART_DEG, EXACT_DEG, SAMPLE, blender_values, core, curves,
                                    differences, equal, frame_set, import_sample, off_spec, records,
                                    set_preview)

pytestmark = pytest.mark.blender


@pytest.fixture
def bpy(fidelity):
    import bpy as module
    return module


def test_a_render_shows_the_preview(bpy, fidelity, tmp_path):
    """frame_change_post runs for the render pipeline's depsgraph too: with the armature's
    location curves shifted by 1 m, a render with the preview on shows the file's pose (the render
    before the edit), one with it off the shifted pose."""
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(camera)
    camera.location, camera.rotation_euler, scene.camera = (0, -8, 1), (math.pi / 2, 0, 0), camera
    # fake-bpy-module types engine as the literal 'BLENDER_EEVEE_NEXT' only; it takes any registered engine.
    scene.render.engine = 'CYCLES'  # pyright: ignore[reportAttributeAccessIssue]
    assert scene.cycles is not None  # the Cycles add-on's settings (enabled by default)
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
    for curve in curves(arm.animation_data.action):
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
    from gltf_sqlerp.operators.preview import live as preview
    bpy.app.handlers.frame_change_post.remove(preview.on_frame_change)
    try:
        assert np.abs(render("unhandled.png") - shifted).max() < 1e-6
    finally:
        bpy.app.handlers.frame_change_post.append(preview.on_frame_change)


def _exported_rotations(path):
    document = core().load(path)
    names = [n.get("name") for n in document.json["nodes"]]
    return {(names[c.node], c.path): c.sampler.values for a in document.animations
            for c in a.channels if c.path == "rotation"}


def test_a_gltf_export_writes_what_the_action_says(tmp_path):
    """A glTF export while the preview is on writes the action's rotations, not the preview's;
    the preview is back afterwards. The exports run in tests/jobs/preview_export_job.py (bpy 4.2
    crashes at exit after any glTF export); the control export there skips the add-on's export
    callbacks and must carry the preview's values."""
    report = run_job(JOBS / "preview_export_job.py", tmp_path)
    own = _exported_rotations(tmp_path / "off.glb")
    with_preview = _exported_rotations(tmp_path / "on.glb")
    assert own.keys() == with_preview.keys() and len(own) == 3
    for key in own:
        np.testing.assert_allclose(with_preview[key], own[key], rtol=0, atol=1e-7)
    assert report["after"] == report["before"] and report["held"] == []  # the preview is back
    leaked = _exported_rotations(tmp_path / "leaked.glb")
    quaternions = core().sampling.quaternions
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
    assert equal(blender_values(arm, chosen), previewed)  # on again after the save
    with bpy.data.libraries.load(str(path)) as (_, appended):  # the pose as stored in the file
        appended.objects = ["Arm"]
    loaded: Any = appended  # leaving the block put the appended objects in place of their names
    stored = loaded.objects[0]
    assert stored.name != "Arm" and equal(blender_values(stored, chosen), own)

    assert bpy.ops.wm.open_mainfile(filepath=str(path)) == {'FINISHED'}
    scene, arm = bpy.context.scene, bpy.data.objects["Arm"]
    preview_settings = settings(scene, "gltf_sqlerp_preview")
    assert preview_settings.enabled and preview_settings.source == 'FALLBACK'
    assert equal(blender_values(arm, chosen), previewed)  # played again on load
    frame_set(scene, 20.5)
    assert off_spec(arm, chosen, core().load(SAMPLE), 20.5 / 24.0, True) < EXACT_DEG


def test_undo_and_redo_around_the_toggle(bpy, fidelity):
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    settings(scene, "gltf_sqlerp_preview").source = 'FALLBACK'
    frame_set(scene, 40.0)
    own = blender_values(arm, chosen)
    with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
        bpy.ops.ed.undo_push(message="before")
        assert operator("gltf_sqlerp.preview_toggle")('EXEC_DEFAULT', True) == {'FINISHED'}
        assert settings(bpy.context.scene, "gltf_sqlerp_preview").enabled
        previewed = blender_values(bpy.data.objects["Arm"], chosen)
        assert max(differences(previewed, own, chosen)) > 1e-3
        assert bpy.ops.ed.undo() == {'FINISHED'}
        assert not settings(bpy.context.scene, "gltf_sqlerp_preview").enabled
        assert equal(blender_values(bpy.data.objects["Arm"], chosen), own)
        assert bpy.ops.ed.redo() == {'FINISHED'}
        assert settings(bpy.context.scene, "gltf_sqlerp_preview").enabled
        assert equal(blender_values(bpy.data.objects["Arm"], chosen), previewed)
    frame_set(bpy.context.scene, 20.5)
    assert off_spec(bpy.data.objects["Arm"], chosen, core().load(SAMPLE), 20.5 / 24.0, True) < EXACT_DEG


def test_disabling_the_addon_restores_blenders_evaluation(bpy, fidelity):
    scene = import_sample(fidelity)
    arm = bpy.data.objects["Arm"]
    chosen = records(arm)
    frame_set(scene, 40.5)
    own = blender_values(arm, chosen)
    set_preview(scene, True, 'FALLBACK')
    assert max(differences(blender_values(arm, chosen), own, chosen)) > 1e-3
    import gltf_sqlerp as package
    from gltf_sqlerp.operators.preview import live as preview
    package.unregister()  # what disabling the add-on runs (however this session enabled it)
    try:
        assert equal(blender_values(arm, chosen), own)
        assert preview.on_frame_change not in bpy.app.handlers.frame_change_post
        assert not hasattr(scene, "gltf_sqlerp_preview")
    finally:
        package.register()
    assert preview.on_frame_change in bpy.app.handlers.frame_change_post
