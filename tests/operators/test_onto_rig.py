"""Clips imported onto a rig already in the scene (``onto='ACTIVE'``), in the real Blender.

A model is imported whole, its clips and actions are removed, and the same file is imported again
onto it: nothing but actions may be added, and each clip must play the spec on the rig as it does
after a whole import (tools/fidelity.py: world rotations and vertices against the core, every
frame and half frame). Also: a rig with other bone rolls and directions (checked against the whole
import's own poses and a swing-twist split done with mathutils), prefixed names, a file whose
hierarchy does not fit, several files at once, and undo.
"""

import math
from pathlib import Path

import numpy as np
import pytest
from helpers.bpy_access import operator, settings
from helpers import ASSETS
from helpers.import_checks import (
    CESIUM_MAN, ROTATION_TOLERANCE_DEG, VERTEX_TOLERANCE, assert_plays_the_spec, check_refused, edited_copy,
    import_onto, load_document, make_active, misfit, model_id, rig_of, strip_clips,
)

pytestmark = pytest.mark.blender
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
MODELS = [CESIUM_MAN, ASSETS / "khronos/RiggedFigure/glTF/RiggedFigure.gltf",
          ASSETS / "khronos/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
          ASSETS / "khronos/InterpolationTest/glTF/InterpolationTest.gltf",
          SAMPLES / "sqlerp_arm.gltf"]


def inventory(bpy):
    return {block.as_pointer(): block for block in bpy.data.user_map()}


def added_since(bpy, before):
    return [block for pointer, block in inventory(bpy).items() if pointer not in before]


def check_clips_onto_the_model(fidelity, path, add):
    """Import ``path`` whole, keep its objects only, add its clips again with ``add(bpy, path)``:
    only actions are added, the rig stays active, and every clip plays the spec on it."""
    bpy = fidelity.bpy
    rig, document = rig_of(fidelity, path), load_document(path)
    objects, before = len(bpy.data.objects), inventory(bpy)
    assert add(bpy, path) == {'FINISHED'}
    added = added_since(bpy, before)
    assert added and all(isinstance(block, bpy.types.Action) for block in added), added
    assert len(bpy.data.objects) == objects
    assert bpy.context.view_layer.objects.active == rig
    for clip in range(len(document.animations)):
        assert_plays_the_spec(fidelity.measure(document, clip), document, clip)


@pytest.mark.parametrize("path", MODELS, ids=model_id)
def test_every_clip_onto_the_imported_model_plays_the_spec(fidelity, path):
    check_clips_onto_the_model(fidelity, path, import_onto)


def test_the_clip_is_listed_and_reported_as_an_imported_clip(fidelity):
    """The clip list finds it on the rig; the deviation report reads the rig's curves through the
    stored maps (every channel within the import's tolerance of the spec). (The export of such
    clips runs in a child process: tests/pipeline/test_pipeline_blender.py's add-clips test.)"""
    bpy = fidelity.bpy
    from gltf_sqlerp.operators import clips
    from gltf_sqlerp.operators.preview import deviation
    rig = rig_of(fidelity, CESIUM_MAN)
    assert import_onto(bpy, CESIUM_MAN) == {'FINISHED'}
    listed = clips.imported_clips(rig)
    assert [c.name for c in listed] == ["Anim_0"]
    clips.activate(rig, listed[0])
    rows = deviation.report(rig)
    assert len(rows) == 57
    rotations = [row.blender_vs() for row in rows if row.rotation]
    assert len(rotations) == 19 and None not in rotations
    assert max(peak.max for peak in rotations if peak is not None) <= ROTATION_TOLERANCE_DEG


def test_the_live_preview_plays_a_clip_added_to_the_rig(fidelity):
    """The sample's fallback is about 0.1° from its CUBICSLERP curve: with the preview playing the
    fallback, the rig's world rotations are the fallback's (the clip's curves play the extension)."""
    bpy = fidelity.bpy
    from helpers.preview_checks import APART_DEG, set_preview
    sample = SAMPLES / "sqlerp_arm.gltf"
    rig_of(fidelity, sample)
    document = load_document(sample)
    assert import_onto(bpy, sample) == {'FINISHED'}
    scene = bpy.context.scene
    try:
        set_preview(scene, True, 'FALLBACK')
        fallback = fidelity.measure(document, 0, use_fallback=True)
        extension = fidelity.measure(document, 0)
    finally:
        set_preview(scene, False)
    assert fallback.problems == [] and fallback.rotation_max_deg <= ROTATION_TOLERANCE_DEG, str(fallback)
    assert extension.rotation_max_deg > APART_DEG, str(extension)


# --- a rig with another rest pose -----------------------------------------------------------------

def _pose(bpy, rig, frames):
    """{bone: [armature-space pose matrix per frame]} (mathutils copies)."""
    scene, poses = bpy.context.scene, {b.name: [] for b in rig.pose.bones}
    for frame in frames:
        scene.frame_set(int(frame), subframe=float(frame - int(frame)))
        for bone in rig.pose.bones:
            poses[bone.name].append(bone.matrix.copy())
    return poses


def _change_rest(bpy, rig, rolls, swings):
    """Other rolls (radians) and directions (the tail turned about the bone's X axis) for some bones."""
    from mathutils import Matrix
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode='EDIT')
    for name, angle in rolls.items():
        rig.data.edit_bones[name].roll += angle
    for name, angle in swings.items():
        bone = rig.data.edit_bones[name]
        matrix = bone.matrix.copy()
        bone.matrix = matrix @ Matrix.Rotation(angle, 4, 'X')
    bpy.ops.object.mode_set(mode='OBJECT')


def _angle_deg(a, b):
    """Angle between the rotations of two 4x4 matrices (scale removed), in float64 from the chord
    ||R_a - R_b|| = 2√2 sin(θ/2): mathutils' float32 quaternion angle reads 0 below about 0.04°."""
    rotations = [np.array(m.to_3x3(), dtype=np.float64) for m in (a, b)]
    rotations = [r / np.linalg.norm(r, axis=0) for r in rotations]
    chord = np.linalg.norm(rotations[0] - rotations[1])
    return math.degrees(2 * math.asin(min(chord / (2 * math.sqrt(2)), 1.0)))


def rest_change_errors(fidelity, path, rolls, swings, frames):
    """Import ``path`` whole and record every bone's armature-space pose at ``frames``; give the
    rig other rests (_change_rest), add the clip onto it and play it again. Where the whole
    import's bone played A, the rig's must play A @ K, K the twist (about the bone) of its new
    rest against the old, split off with mathutils' to_swing_twist. Returns the largest angle
    (degrees) and head distance (of the rig's size) from that."""
    bpy = fidelity.bpy
    from mathutils import Matrix
    assert fidelity.import_gltf(path) == {'FINISHED'}
    document = load_document(path)
    rig = make_active(bpy)
    expected, rest = _pose(bpy, rig, frames), {b.name: b.matrix_local.copy() for b in rig.data.bones}
    strip_clips(bpy)
    _change_rest(bpy, rig, rolls, swings)
    assert import_onto(bpy, path) == {'FINISHED'}
    fidelity.activate_clip(document, 0)
    played = _pose(bpy, rig, frames)
    size = max((b.head_local - rig.data.bones[0].head_local).length for b in rig.data.bones)
    worst_angle = worst_place = 0.0
    for bone in rig.data.bones:
        _swing, twist = (rest[bone.name].inverted() @ bone.matrix_local).to_quaternion().to_swing_twist('Y')
        roll = Matrix.Rotation(twist, 4, 'Y')
        for want, got in zip(expected[bone.name], played[bone.name]):
            worst_angle = max(worst_angle, _angle_deg(want @ roll, got))
            worst_place = max(worst_place, (want.translation - got.translation).length / size)
    return worst_angle, worst_place


def test_a_rig_with_other_rolls_and_directions_plays_each_joint_where_the_file_puts_it(fidelity):
    """So every joint's position and direction are the file's, and its roll keeps the rig's own
    offset (rest_change_errors)."""
    frames = [f / 2 for f in range(0, 2 * int(load_document(CESIUM_MAN).animations[0].duration * 24) + 1, 3)]
    angle, place = rest_change_errors(
        fidelity, CESIUM_MAN, {"torso_joint_3": 0.7, "leg_joint_L_2": -1.2, "Skeleton_arm_joint_R__2_": 2.0},
        {"leg_joint_R_2": 0.5, "Skeleton_neck_joint_1": -0.4}, frames)
    assert angle <= ROTATION_TOLERANCE_DEG and place <= VERTEX_TOLERANCE, (angle, place)


def _unturned(data):
    """leg_joint_R_2's rotation channel removed (its sampler stays, unused)."""
    names = [n.get("name") for n in data["nodes"]]
    node = names.index("leg_joint_R_2")
    channels = data["animations"][0]["channels"]
    data["animations"][0]["channels"] = [c for c in channels
                                         if not (c["target"].get("node") == node and c["target"]["path"] == "rotation")]


def test_a_bone_the_clip_does_not_turn_holds_the_files_rotation_on_another_rest(fidelity, tmp_path):
    """Its rest turned on the rig, a bone without a rotation channel is held where the file puts
    it (A @ K, as the turned bones), not at the rig's own rest."""
    path = edited_copy(tmp_path, _unturned)
    angle, place = rest_change_errors(fidelity, path, {"leg_joint_R_2": 0.9}, {"leg_joint_R_2": 0.5},
                                      [0.0, 7.5, 20.0, 33.5])
    assert angle <= ROTATION_TOLERANCE_DEG and place <= VERTEX_TOLERANCE, (angle, place)


def test_keeping_the_imported_rest_instead_would_be_seen(fidelity):
    """The same check fails for the rig's changed bones when the clip is imported whole: it sees
    a rest change."""
    bpy = fidelity.bpy
    assert fidelity.import_gltf(CESIUM_MAN) == {'FINISHED'}
    rig = make_active(bpy)
    frames = [0.0, 10.5, 20.0]
    expected = _pose(bpy, rig, frames)
    _change_rest(bpy, rig, {}, {"leg_joint_R_2": 0.5})
    played = _pose(bpy, rig, frames)
    assert max(_angle_deg(a, b) for a, b in zip(expected["leg_joint_R_2"], played["leg_joint_R_2"])) > 20


# --- names and hierarchy --------------------------------------------------------------------------

def _prefixed(data):
    for node in data["nodes"]:
        if "name" in node:
            node["name"] = "mixamorig:" + node["name"]


def test_prefixed_names_are_matched_through_the_prefix_map(fidelity, tmp_path):
    bpy = fidelity.bpy
    path = edited_copy(tmp_path, _prefixed)
    rig_of(fidelity, CESIUM_MAN)
    document = load_document(CESIUM_MAN)
    before = inventory(bpy)
    assert import_onto(bpy, path, prefix_map="mixamorig:=") == {'FINISHED'}
    assert all(isinstance(b, bpy.types.Action) for b in added_since(bpy, before))
    assert_plays_the_spec(fidelity.measure(document, 0), document, 0)


def test_a_file_with_no_node_on_the_rig_is_refused_and_changes_nothing(fidelity, tmp_path):
    check_refused(fidelity, edited_copy(tmp_path, _prefixed), import_onto,
                  "none of the 19 animated nodes .* is on the rig 'Armature'")


def test_a_file_whose_hierarchy_does_not_fit_is_refused_and_changes_nothing(fidelity, tmp_path):
    check_refused(fidelity, edited_copy(tmp_path, misfit), import_onto,
                  "does not fit the rig: bone 'leg_joint_R_2' is under 'Skeleton_torso_joint_1' in the "
                  "file but under 'leg_joint_R_1'")


def test_several_files_at_once_and_undo_removes_them_all(fidelity, tmp_path):
    bpy = fidelity.bpy
    first = edited_copy(tmp_path, lambda data: data["animations"][0].update(name="Idle"), "idle.gltf")
    second = edited_copy(tmp_path, lambda data: data["animations"][0].update(name="Walk"), "walk.gltf")
    name = rig_of(fidelity, CESIUM_MAN).name
    before = inventory(bpy)
    files = [{"name": first.name}, {"name": second.name}]
    with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
        bpy.ops.ed.undo_push(message="before")
        assert operator("import_scene.gltf_sqlerp")('EXEC_DEFAULT', True, directory=str(tmp_path),
                                                    files=files, onto='ACTIVE') == {'FINISHED'}
        rig = bpy.data.objects[name]
        assert sorted(t.name for t in rig.animation_data.nla_tracks) == ["Idle", "Walk"]
        assert len(added_since(bpy, before)) == 2
        assert all(isinstance(b, bpy.types.Action) for b in added_since(bpy, before))
        assert bpy.ops.ed.undo() == {'FINISHED'}
    rig = bpy.data.objects[name]
    assert rig.animation_data is None or not rig.animation_data.nla_tracks
    assert sorted(bpy.data.actions.keys()) == []


def test_the_readmes_nla_picture_is_what_the_scene_shows(tmp_path):
    """docs/nla_add_clips.svg is drawn from a real Add Clips to Rig (tools/plot_nla.py): drawn
    again here, it is the same."""
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "nla.svg"
    subprocess.run([sys.executable, str(root / "tools" / "plot_nla.py"), str(out)], check=True,
                   capture_output=True, timeout=300)
    assert out.read_text(encoding="utf-8") == (root / "docs" / "nla_add_clips.svg").read_text(encoding="utf-8")
    assert "Objects before: Armature, Cesium_Man, Icosphere, Z_UP" in out.read_text(encoding="utf-8")


# --- the bundled dialog ---------------------------------------------------------------------------

def _bundled_dialog_onto(bpy, path, prefix_map=""):
    """File > Import > glTF 2.0 with the Exact Animation panel's Onto set to Active Rig."""
    panel = settings(bpy.context.scene, "gltf_sqlerp_import")
    panel.exact_animation, panel.onto, panel.prefix_map = True, 'ACTIVE', prefix_map
    try:
        return bpy.ops.import_scene.gltf(filepath=str(path))
    finally:
        panel.onto = 'NEW'


@pytest.mark.parametrize("path", [CESIUM_MAN, ASSETS / "khronos/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"],
                         ids=model_id)
def test_the_bundled_dialog_adds_the_clips_to_the_active_rig(fidelity, path):
    check_clips_onto_the_model(fidelity, path, _bundled_dialog_onto)


def test_the_bundled_dialog_refuses_a_misfit_and_changes_nothing(fidelity, tmp_path):
    check_refused(fidelity, edited_copy(tmp_path, misfit), _bundled_dialog_onto,
                  "Exact animation: the file does not fit the rig: bone 'leg_joint_R_2'")
