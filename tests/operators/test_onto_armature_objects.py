"""Clips onto a rig whose armature object is turned and scaled otherwise than the clip file's
(``onto='ACTIVE'``), in the real Blender.

The rigs and clip files are the project's own characters with their armature node turned ±90°
about X and scaled 0.01 / 0.0012 / 1, everything below compensated (tests/helpers/armature_variants.py),
under a Z_UP node or not, with prefixed names, with A-pose arms. What the clip must do comes from
outside the import onto the rig: the clip file's own whole import, played by Blender. Every bone
must point the same way in the world (its Y axis; the roll is the rig's own), and every joint must
sit at the same place as a fraction of the character's size (root to neck at rest), relative to
its armature object, at every frame and half frame.
"""

import math

import numpy as np
import pytest
from helpers import ASSETS

from helpers.armature_variants import variant
from helpers.import_checks import check_refused, import_onto, load_document, make_active, strip_clips

pytestmark = pytest.mark.blender
CESIUM_MAN = ASSETS / "khronos/CesiumMan/glTF/CesiumMan.gltf"
RIGGED_FIGURE = ASSETS / "khronos/RiggedFigure/glTF/RiggedFigure.gltf"
SPAN = {CESIUM_MAN: ("Skeleton_torso_joint_1", "Skeleton_neck_joint_2"),
        RIGGED_FIGURE: ("torso_joint_1", "neck_joint_2")}
A_POSE = {CESIUM_MAN: {"Skeleton_arm_joint_R": ([1, 0, 0], 40), "Skeleton_arm_joint_L__4_": ([1, 0, 0], -40)},
          RIGGED_FIGURE: {"arm_joint_R_1": ([0, 0, 1], 40), "arm_joint_L_1": ([0, 0, 1], -40)}}
DIRECTION_TOLERANCE_DEG = 0.01
PLACE_TOLERANCE = 1e-5  # of the character's size


def played(bpy, rig, frames, prefix=""):
    """{bone name without ``prefix``: (world Y axes (F, 3), places (F, 3))}: places are joint
    heads relative to the armature object, in units of the rest root-to-neck distance."""
    scene = bpy.context.scene
    names = [b.name for b in rig.pose.bones]
    axes, heads = np.zeros((len(frames), len(names), 3)), np.zeros((len(frames), len(names), 3))
    for f, frame in enumerate(frames):
        scene.frame_set(int(math.floor(frame)), subframe=float(frame - math.floor(frame)))
        origin = np.array(rig.matrix_world.translation)
        for b, name in enumerate(names):
            world = np.array(rig.matrix_world @ rig.pose.bones[name].matrix)
            axes[f, b] = world[:3, 1] / np.linalg.norm(world[:3, 1])
            heads[f, b] = world[:3, 3] - origin
    return {name[len(prefix):]: (axes[:, b], heads[:, b]) for b, name in enumerate(names)}


def size(rig, span, prefix=""):
    """World distance between two joints at rest."""
    world = np.array(rig.matrix_world)
    a, b = (world @ np.array([*rig.data.bones[prefix + n].head_local, 1.0]) for n in span)
    return float(np.linalg.norm((a - b)[:3]))


def frames_of(path, bpy):
    rate = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    last = math.ceil(load_document(path).animations[0].duration * rate)
    return [f / 2 for f in range(2 * last + 1)]


def compare(fidelity, model, clip, rig_file, clip_prefix="", rig_prefix=""):
    """(worst angle in degrees between each bone's world direction on the rig and in the clip's own
    import, worst joint place error as a fraction of the size, bones compared)."""
    bpy = fidelity.bpy
    assert fidelity.import_gltf(clip) == {'FINISHED'}
    frames = frames_of(clip, bpy)
    own = make_active(bpy)
    expected = played(bpy, own, frames, clip_prefix)
    own_size = size(own, SPAN[model], clip_prefix)
    assert fidelity.import_gltf(rig_file) == {'FINISHED'}
    strip_clips(bpy)
    rig = make_active(bpy)
    prefixes = f"{clip_prefix}={rig_prefix}" if clip_prefix or rig_prefix else ""
    assert import_onto(bpy, clip, prefix_map=prefixes) == {'FINISHED'}
    fidelity.activate_clip(load_document(clip), 0)
    got, rig_size = played(bpy, rig, frames, rig_prefix), size(rig, SPAN[model], rig_prefix)
    assert set(got) == set(expected)
    angle = place = 0.0
    for name, (axes, heads) in expected.items():
        # From the chord between unit vectors, not arccos: exact for small angles
        chord = np.linalg.norm(axes - got[name][0], axis=1)
        angle = max(angle, float(np.degrees(2 * np.arcsin(np.minimum(chord / 2, 1.0))).max()))
        place = max(place, float(np.abs(heads / own_size - got[name][1] / rig_size).max()))
    return angle, place, len(expected)


def unturned(data):
    """The rotation channels of the root joint and of a leg removed (their samplers stay, unused)."""
    names = [n.get("name") for n in data["nodes"]]
    nodes = {names.index("Skeleton_torso_joint_1"), names.index("leg_joint_R_2")}
    channels = data["animations"][0]["channels"]
    data["animations"][0]["channels"] = [
        c for c in channels if not (c["target"].get("node") in nodes and c["target"]["path"] == "rotation")]


CASES = {
    # the reported case: clips at +90° / 0.01 onto a character at -90° / 0.0012, both under Z_UP
    "cesium_z_up_+90_0.01_onto_-90_0.0012": (CESIUM_MAN, dict(turn_x_deg=90, scale=0.01),
                                              dict(turn_x_deg=-90, scale=0.0012), "", ""),
    "cesium_y_up_prefixed_onto_z_up": (CESIUM_MAN, dict(turn_x_deg=90, scale=0.01, z_up=False, prefix="mixamorig:"),
                                       dict(turn_x_deg=-90, scale=0.0012), "mixamorig:", ""),
    "cesium_onto_a_pose_y_up": (CESIUM_MAN, dict(turn_x_deg=-90, scale=1, z_up=False),
                                dict(turn_x_deg=90, scale=0.01, z_up=False, rest_turns=A_POSE[CESIUM_MAN]), "", ""),
    # a bone the clip does not turn is held where the file puts it (session._hold_unturned_bones)
    "cesium_unturned_bone_onto_a_pose": (CESIUM_MAN, dict(turn_x_deg=90, scale=0.01, edit=unturned),
                                         dict(turn_x_deg=-90, scale=0.0012, rest_turns=A_POSE[CESIUM_MAN]), "", ""),
    "figure_+90_0.0012_onto_-90_1_y_up": (RIGGED_FIGURE, dict(turn_x_deg=90, scale=0.0012),
                                          dict(turn_x_deg=-90, scale=1, z_up=False), "", ""),
    "figure_onto_a_pose_prefixed_rig": (RIGGED_FIGURE, dict(turn_x_deg=-90, scale=0.0012, z_up=False),
                                        dict(turn_x_deg=90, scale=0.01, prefix="rig_",
                                             rest_turns=A_POSE[RIGGED_FIGURE]),
                                        "", "rig_"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_bone_points_where_the_clips_own_import_points_it(fidelity, tmp_path, case):
    model, clip_edit, rig_edit, clip_prefix, rig_prefix = CASES[case]
    clip = variant(model, tmp_path, "clip.gltf", **clip_edit)
    rig = variant(model, tmp_path, "rig.gltf", **rig_edit)
    angle, place, bones = compare(fidelity, model, clip, rig, clip_prefix, rig_prefix)
    print(f"{case}: {bones} bones, worst direction {angle:.2e} deg, worst place {place:.2e} of the size")
    assert bones >= 19
    assert angle <= DIRECTION_TOLERANCE_DEG and place <= PLACE_TOLERANCE, (angle, place)


def test_the_clip_played_on_the_other_armature_as_before_would_be_seen(fidelity, tmp_path):
    """The check sees a rig whose armature is turned otherwise: the clip file imported whole, its
    armature object then turned half a turn about X, fails it by over 90°."""
    bpy = fidelity.bpy
    clip = variant(CESIUM_MAN, tmp_path, "clip.gltf", turn_x_deg=90, scale=0.01)
    assert fidelity.import_gltf(clip) == {'FINISHED'}
    frames = frames_of(clip, bpy)[::10]
    rig = make_active(bpy)
    expected = played(bpy, rig, frames)
    from mathutils import Matrix
    rig.matrix_world = Matrix.Rotation(math.pi, 4, 'X') @ rig.matrix_world
    turned = played(bpy, rig, frames)
    worst = max(float(np.degrees(np.arccos(np.clip(np.sum(expected[n][0] * turned[n][0], axis=1), -1, 1))).max())
                for n in expected)
    assert worst > 90


@pytest.mark.parametrize("scale,what", [((1.0, 2.0, 1.0), "unevenly"), ((-1.0, 1.0, 1.0), "mirrored")])
def test_an_unevenly_scaled_or_mirrored_rig_is_refused_and_changes_nothing(fidelity, tmp_path, scale, what):
    clip = variant(CESIUM_MAN, tmp_path, "clip.gltf", turn_x_deg=90, scale=0.01)

    def add(bpy, path):
        bpy.context.active_object.scale = scale
        bpy.context.view_layer.update()
        return import_onto(bpy, path)
    check_refused(fidelity, clip, add, f"armature object 'Armature' is scaled {what}")

