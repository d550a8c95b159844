"""Child process of tests/test_export_driven.py (not a test module itself): rigs whose bones and
objects Blender moves through constraints and drivers, not through their own rotation keys.

``python driven_job.py FOLDER`` builds, at 24 fps over frames 1 to 40:

- an arm: bones ``upper`` and ``lower`` under an IK constraint (chain of 2) to an empty ``target``
  keyed along a path, with a pole empty; the ``hand`` turned by a driver from the target's X
  location (no keys of its own);
- a cube ``prop`` keyed in its own rotation under a Child Of constraint to an empty ``spinner``
  keyed turning and moving.

It records Blender's own world rotation (3 x 3) of every bone and object at 8 samples per frame,
exports the scene with ``export_scene.gltf_sqlerp`` (defaults) to FOLDER/driven.glb and with the
bundled exporter alone to FOLDER/bundled.glb, and prints one JSON line: the outcome, its summary,
the frames and the world rotations.
"""

import json
import math
import sys
from pathlib import Path
from typing import cast

from bpy_access import current_scene, operator, settings
from child_job import finish, tool

FRAMES = (1, 40)


def build():
    import bpy
    scene = current_scene()
    scene.frame_start, scene.frame_end = FRAMES
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
    for frame in FRAMES:
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


def _empty(name, location):
    import bpy
    bpy.ops.object.empty_add(location=location)
    empty = _active()
    empty.name = name
    return empty


def _active():
    """The object an add operator just made active."""
    import bpy
    obj = bpy.context.object
    assert obj is not None
    return obj


def _rows(matrix):
    """A 3 x 3 rotation (scale removed) as nested lists of floats."""
    rows = matrix.to_3x3().normalized()
    return [[rows[i][j] for j in range(3)] for i in range(3)]


def world_rotations(frames):
    """{name: [3 x 3 rows per frame]} of every pose bone and object, as Blender evaluates them."""
    scene = current_scene()
    result = {}
    for frame in frames:
        scene.frame_set(int(frame // 1), subframe=frame % 1.0)
        for obj in scene.objects:
            if obj.type == 'ARMATURE' and obj.pose is not None:
                for bone in obj.pose.bones:
                    result.setdefault(bone.name, []).append(_rows(obj.matrix_world @ bone.matrix))
            else:
                result.setdefault(obj.name, []).append(_rows(obj.matrix_world))
    return result


def build_nla():
    """An armature (one bone ``nodder``) and an empty ``turner``, each playing two NLA strips
    and no action of its own: a REPLACE strip turning about Z, and over it an ADD strip at
    influence 0.5 nodding about X (its own motion twice what plays)."""
    import bpy
    scene = current_scene()
    scene.frame_start, scene.frame_end = FRAMES
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
            strip = track.strips.new(action.name, 1, action)
            strip.blend_type = blend  # pyright: ignore[reportAttributeAccessIssue] (the stubs: read-only)
            strip.influence = 0.5 if blend == 'ADD' else 1.0
            animation.action = None
            target.rotation_euler = (0.0, 0.0, 0.0)


def nla(folder):
    """The NLA rig exported in animation mode Scene (what plays, strips blended) with this
    add-on's export on (FOLDER/nla.glb) and off (FOLDER/nla-bundled.glb)."""
    fidelity = tool("tools/fidelity.py")
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    build_nla()
    frames = [FRAMES[0] + i / 8.0 for i in range(8 * (FRAMES[1] - FRAMES[0]) + 1)]
    worlds = world_rotations(frames)
    scene = current_scene()
    results, outcome = {}, None
    for ours in (True, False):
        settings(scene, "gltf_sqlerp_export").enabled = ours
        path = Path(folder) / ("nla.glb" if ours else "nla-bundled.glb")
        results[path.name] = sorted(operator("export_scene.gltf")(filepath=str(path), export_animation_mode='SCENE'))
        outcome = export_session.last_outcome if ours else outcome
    assert outcome is not None
    unchanged = world_rotations(frames) == worlds
    fidelity.disable_addon()
    print(json.dumps({"results": results, "channels": [vars(c) for c in outcome.channels],
                      "world_error_deg": outcome.world_error_deg, "summary": export_session.summary(outcome),
                      "frames": frames, "worlds": worlds, "unchanged": unchanged}))


def main(folder):
    import bpy
    fidelity = tool("tools/fidelity.py")
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    build()
    frames = [FRAMES[0] + i / 8.0 for i in range(8 * (FRAMES[1] - FRAMES[0]) + 1)]
    worlds = world_rotations(frames)
    result = operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / "driven.glb"))
    outcome = export_session.last_outcome
    assert outcome is not None
    after = world_rotations(frames)  # the export leaves the scene as it found it
    fidelity.disable_addon()
    bpy.ops.export_scene.gltf(filepath=str(Path(folder) / "bundled.glb"))
    print(json.dumps({"result": sorted(result), "channels": [vars(c) for c in outcome.channels],
                      "world_error_deg": outcome.world_error_deg,
                      "fallback_world_error_deg": outcome.fallback_world_error_deg,
                      "summary": export_session.summary(outcome), "frames": frames, "worlds": worlds,
                      "unchanged": after == worlds,
                      "changed": sorted({n for n in worlds if after.get(n) != worlds[n]})}))


if __name__ == "__main__":
    finish(lambda: (nla if sys.argv[2:] == ["NLA"] else main)(sys.argv[1]))
