"""Rigs whose bones and objects Blender moves through constraints, drivers and the NLA rather
than through their own rotation keys (issue 35), built in the current scene for the tests'
child jobs (tests/jobs/driven_job.py, tests/jobs/rigify_job.py) and bench/bench_driven_export.py; and
Blender's own world matrices of every bone and object, the reference they are measured against.
Dev module: needs the real ``bpy``; not shipped.
"""

import math
import traceback
from typing import cast

import bpy

DRIVEN_FRAMES = (1, 40)
RIGIFY_FRAMES = (1, 30)
RIGIFY_CONTROLS = ("hand_ik.L", "foot_ik.R", "torso", "chest", "head", "forearm_fk.R")


def check_frames(frames: tuple[int, int]) -> list[float]:
    """8 samples per frame from the first frame to the last, the tolerance's density."""
    return [frames[0] + i / 8.0 for i in range(8 * (frames[1] - frames[0]) + 1)]


def world_matrices(frames: list[float]) -> dict[str, list[list[list[float]]]]:
    """{name: [3 x 3 rows per frame]}: Blender's world matrix of every pose bone and object, its
    3 x 3 part (scale and shear in it: a measure takes its nearest rotation)."""
    scene = _scene()
    result: dict[str, list[list[list[float]]]] = {}
    for frame in frames:
        scene.frame_set(int(frame // 1), subframe=frame % 1.0)
        for obj in scene.objects:
            if obj.type == 'ARMATURE' and obj.pose is not None:
                for bone in obj.pose.bones:
                    result.setdefault(bone.name, []).append(_rows(obj.matrix_world @ bone.matrix))
            else:
                result.setdefault(obj.name, []).append(_rows(obj.matrix_world))
    return result


def _rows(matrix):
    linear = matrix.to_3x3()
    return [[linear[i][j] for j in range(3)] for i in range(3)]


def _scene() -> bpy.types.Scene:
    scene = bpy.context.scene
    assert scene is not None
    return scene


def build_driven() -> bpy.types.Object:
    """An arm: bones ``upper`` and ``lower`` under an IK constraint (chain of 2) to an empty
    ``target`` keyed along a path within the arm's reach, with a pole; the ``hand`` turned by a
    driver from the target's X location (no keys of its own); and a cube ``prop`` keyed in its own
    rotation under a Child Of constraint to an empty ``spinner`` keyed turning and moving; frames
    1 to 40. Returns the arm."""
    scene = _scene()
    scene.frame_start, scene.frame_end = DRIVEN_FRAMES
    # Within the arm's reach (1.8) all along: a stretched arm snaps straight, a kink in its motion.
    target = _empty("target", (1.0, 0.0, 1.0))
    pole = _empty("pole", (0.0, -2.0, 1.0))
    for frame, location in ((1, (1.0, 0.0, 1.0)), (14, (0.5, 0.6, 1.3)), (27, (-0.5, 0.4, 1.2)),
                            (40, (1.0, -0.5, 0.5))):
        target.location = location
        target.keyframe_insert("location", frame=frame)
    bpy.ops.object.armature_add(location=(0.0, 0.0, 0.0))
    arm = _active()
    arm.name = "arm"
    bpy.ops.object.mode_set(mode='EDIT')
    bones = cast(bpy.types.Armature, arm.data).edit_bones
    upper = bones[0]
    upper.name, upper.head, upper.tail = "upper", (0.0, 0.0, 0.0), (0.1, 0.0, 1.0)
    lower = bones.new("lower")
    lower.head, lower.tail, lower.parent, lower.use_connect = (0.1, 0.0, 1.0), (0.9, 0.0, 1.1), upper, True
    hand = bones.new("hand")
    hand.head, hand.tail, hand.parent, hand.use_connect = (0.9, 0.0, 1.1), (1.2, 0.1, 1.1), lower, True
    bpy.ops.object.mode_set(mode='POSE')
    pose = arm.pose
    assert pose is not None
    ik = cast(bpy.types.KinematicConstraint, pose.bones["lower"].constraints.new('IK'))
    ik.target, ik.pole_target, ik.chain_count, ik.pole_angle = target, pole, 2, -math.pi / 2
    hand_pose = pose.bones["hand"]
    hand_pose.rotation_mode = 'XYZ'
    driver = cast(bpy.types.Driver, cast(bpy.types.FCurve, hand_pose.driver_add("rotation_euler", 2)).driver)
    variable = driver.variables.new()
    variable.name, variable.type = "x", 'TRANSFORMS'
    variable.targets[0].id, variable.targets[0].transform_type = target, 'LOC_X'
    driver.expression = "0.8 * x"
    bpy.ops.object.mode_set(mode='OBJECT')
    # The armature's own action over the whole range: keys of the upper bone's location, still.
    for frame in DRIVEN_FRAMES:
        pose.bones["upper"].keyframe_insert("location", frame=frame)
    spinner = _empty("spinner", (0.0, 3.0, 0.0))
    for frame, angle, x in ((1, 0.0, 0.0), (20, 2.0, 1.0), (40, 4.5, -0.5)):
        spinner.rotation_euler, spinner.location.x = (0.3 * angle, 0.0, angle), x
        spinner.keyframe_insert("rotation_euler", frame=frame)
        spinner.keyframe_insert("location", frame=frame)
    bpy.ops.mesh.primitive_cube_add(size=0.4, location=(0.0, 4.0, 0.5))
    prop = _active()
    prop.name = "prop"
    for frame, angle in ((1, 0.0), (40, 1.2)):
        prop.rotation_euler = (angle, 0.0, 0.5 * angle)
        prop.keyframe_insert("rotation_euler", frame=frame)
    child_of = cast(bpy.types.ChildOfConstraint, prop.constraints.new('CHILD_OF'))
    child_of.target = spinner
    return arm


def build_nla() -> None:
    """An armature (one bone ``nodder``) and an empty ``turner``, each playing two NLA strips
    and no action of its own: a REPLACE strip turning about Z, and over it an ADD strip at
    influence 0.5 nodding about X (its own motion twice what plays)."""
    scene = _scene()
    scene.frame_start, scene.frame_end = DRIVEN_FRAMES
    bpy.ops.object.armature_add(location=(0.0, 0.0, 0.0))
    arm = _active()
    arm.name = "nla_arm"
    pose = arm.pose
    assert pose is not None
    bone = pose.bones[0]
    bone.name, bone.rotation_mode = "nodder", 'XYZ'
    turner = _empty("turner", (2.0, 0.0, 0.0))
    for owner, target, path in ((arm, bone, "rotation_euler"), (turner, turner, "rotation_euler")):
        animation = owner.animation_data_create()
        for name, blend, keys in (("Turn", 'REPLACE', ((1, (0.0, 0.0, 0.0)), (40, (0.0, 0.0, 1.6)))),
                                  ("Nod", 'ADD', ((1, (0.0, 0.0, 0.0)), (20, (1.0, 0.2, 0.0)), (40, (0.0, 0.0, 0.0))))):
            for frame, value in keys:
                target.rotation_euler = value
                target.keyframe_insert(path, frame=frame)
            action = cast(bpy.types.Action, animation.action)
            action.name = f"{owner.name}{name}"
            track = animation.nla_tracks.new()
            track.name = name  # mode NLA tracks: "Nod" (ADD) plays over "Turn", as one animation
            strip = track.strips.new(action.name, 1, action)
            strip.blend_type = blend  # pyright: ignore[reportAttributeAccessIssue] (the stubs: read-only)
            strip.influence = 0.5 if blend == 'ADD' else 1.0
            animation.action = None
            target.rotation_euler = (0.0, 0.0, 0.0)


def build_rigify() -> bpy.types.Object:
    """A Rigify human generated from Blender's bundled metarig (the metarig removed: its bones'
    names are the rig's controls'), its IK and FK controls keyed over frames 1 to 30: a hand and a
    foot IK target moving, the torso, chest and head turning, an FK forearm. Returns the rig."""
    import addon_utils
    addon_utils.enable("rigify", default_set=True, handle_error=lambda error: traceback.print_exc())
    bpy.ops.object.armature_human_metarig_add()  # pyright: ignore[reportAttributeAccessIssue] (Rigify's)
    metarig = bpy.context.object
    assert metarig is not None
    bpy.ops.pose.rigify_generate()  # pyright: ignore[reportAttributeAccessIssue] (Rigify's)
    rig = bpy.context.object
    assert rig is not None and rig is not metarig and rig.pose is not None
    bpy.data.objects.remove(metarig)  # its bones' names are the rig's controls': one armature in the file
    scene = _scene()
    scene.frame_start, scene.frame_end = RIGIFY_FRAMES
    bones = rig.pose.bones
    for frame, s in ((1, 0.0), (12, 1.0), (22, -0.6), (30, 0.3)):
        for name in RIGIFY_CONTROLS:
            bone = bones[name]
            if name.endswith("_ik.L") or name.endswith("_ik.R"):
                bone.location = (0.05 * s, 0.04 * s, 0.06 * s)
                bone.keyframe_insert("location", frame=frame)
            if bone.rotation_mode == 'QUATERNION':
                bone.rotation_quaternion = (math.cos(0.25 * s), math.sin(0.25 * s), 0.1 * s, 0.0)
                bone.keyframe_insert("rotation_quaternion", frame=frame)
            else:
                bone.rotation_euler = (0.3 * s, 0.1 * s, 0.2 * s)
                bone.keyframe_insert("rotation_euler", frame=frame)
    return rig


def _empty(name, location):
    bpy.ops.object.empty_add(location=location)
    empty = _active()
    empty.name = name
    return empty


def _active():
    """The object an add operator just made active."""
    obj = bpy.context.object
    assert obj is not None
    return obj


