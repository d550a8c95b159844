"""Blender-keyed test rigs for the exporter: keys as animators set them.

``build(...)`` makes, in the current scene, an armature with a chain of bones and a few empties,
each animated by one action with Bezier keys (auto-clamped handles) every 4 to 12 frames, in every
rotation mode (quaternion, the six Euler orders, axis-angle), with large turns between keys (up to
``max_turn_deg``) and, optionally, an action that starts at a negative frame. Keys are written in
bulk (keyframe_points.add + foreach_set), as the add-on does. Deterministic for a given seed.
"""

import bpy
import numpy as np

MODES = ("QUATERNION", "XYZ", "ZXY", "AXIS_ANGLE", "YZX", "XZY", "YXZ", "ZYX")


def key_frames(rng, count, first):
    """``count`` key frames from ``first``, 4 to 12 frames apart."""
    return first + np.concatenate([[0], np.cumsum(rng.integers(4, 13, count - 1))]).astype(np.float64)


def _rotation_values(rng, mode, count, max_turn_deg):
    """(count, k) F-curve values of a wandering rotation in ``mode``, turning at most about
    max_turn_deg between keys."""
    step = np.radians(max_turn_deg)
    if mode == "QUATERNION":
        axis = rng.normal(size=(count, 3))
        axis /= np.linalg.norm(axis, axis=1, keepdims=True)
        angles = np.cumsum(rng.uniform(-step, step, count))
        # Slowly drifting axis: a rotation that is not about one axis.
        drift = np.cumsum(axis * 0.3, axis=0)
        drift /= np.linalg.norm(drift, axis=1, keepdims=True)
        return np.column_stack([np.cos(angles / 2), drift * np.sin(angles / 2)[:, None]])
    if mode == "AXIS_ANGLE":
        axis = np.cumsum(rng.normal(size=(count, 3)) * 0.3, axis=0) + (0.0, 0.0, 1.0)
        angles = np.cumsum(rng.uniform(-step, step, count))
        return np.column_stack([angles, axis])
    return np.cumsum(rng.uniform(-step / 1.8, step / 1.8, (count, 3)), axis=0)


def write_curve(curves, data_path, index, frames, values):
    """One Bezier F-curve with auto-clamped handles, in bulk."""
    fcurve = curves.new(data_path, index=index)
    points = fcurve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", np.column_stack([frames, values]).astype(np.float32).ravel())
    count = len(frames)
    points.foreach_set("interpolation", np.full(count, 2, dtype=np.int32))  # BEZIER
    auto = bpy.types.Keyframe.bl_rna.properties["handle_left_type"].enum_items["AUTO_CLAMPED"].value
    points.foreach_set("handle_left_type", np.full(count, auto, dtype=np.int32))
    points.foreach_set("handle_right_type", np.full(count, auto, dtype=np.int32))
    fcurve.update()
    return fcurve


def _new_action(obj, name):
    """An action assigned to ``obj`` and the F-curve collection to fill (a slot's on 4.4+)."""
    action = bpy.data.actions.new(name)
    obj.animation_data_create().action = action
    if not hasattr(action, "layers"):
        return action, action.fcurves
    slot = obj.animation_data.action_slot or action.slots.new(id_type='OBJECT', name=obj.name)
    obj.animation_data.action_slot = slot
    strip = action.layers.new("Layer").strips.new(type='KEYFRAME')
    return action, strip.channelbag(slot, ensure=True).fcurves


def _animate(curves, rng, prefix, mode, keys, first, max_turn_deg):
    frames = key_frames(rng, keys, first)
    values = _rotation_values(rng, mode, keys, max_turn_deg)
    prop = {"QUATERNION": "rotation_quaternion",
            "AXIS_ANGLE": "rotation_axis_angle"}.get(mode, "rotation_euler")
    for index in range(values.shape[1]):
        write_curve(curves, prefix + prop, index, frames, values[:, index])
    return frames


def build(bones=4, objects=2, keys=12, max_turn_deg=100.0, first_frame=-6, seed=7, modes=MODES):
    """Make the rig in the current scene; returns (armature object, [empties])."""
    rng = np.random.default_rng(seed)
    scene = bpy.context.scene
    data = bpy.data.armatures.new("KeyedRig")
    rig = bpy.data.objects.new("KeyedRig", data)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode='EDIT')
    parent = None
    for i in range(bones):
        bone = data.edit_bones.new(f"bone{i}")
        bone.head, bone.tail = (0.0, 0.1 * (i % 2), float(i)), (0.0, 0.0, float(i + 1))
        bone.roll = 0.3 * i
        bone.parent = parent
        parent = bone
    bpy.ops.object.mode_set(mode='OBJECT')
    action, curves = _new_action(rig, "KeyedRigAction")
    last = first_frame
    for i in range(bones):
        pose_bone = rig.pose.bones[f"bone{i}"]
        pose_bone.rotation_mode = modes[i % len(modes)]
        prefix = f'pose.bones["bone{i}"].'
        last = max(last, _animate(curves, rng, prefix, pose_bone.rotation_mode, keys, first_frame,
                                  max_turn_deg)[-1])
    empties = []
    for j in range(objects):
        empty = bpy.data.objects.new(f"Empty{j}", None)
        scene.collection.objects.link(empty)
        empty.location = (2.0 + j, 0.0, 0.0)
        empty.rotation_mode = modes[(j + 3) % len(modes)]
        _, empty_curves = _new_action(empty, f"Empty{j}Action")
        frames = _animate(empty_curves, rng, "", empty.rotation_mode, keys, 1 + 2 * j, max_turn_deg)
        last = max(last, frames[-1])
        empties.append(empty)
    scene.frame_start, scene.frame_end = int(first_frame), int(np.ceil(last))
    return rig, empties


def add_fractional_empty(name="Fractional", frames=(1.0, 7.5, 14.25), turn_deg=60.0):
    """An empty turning about Z with keys at fractional frames: the last one (14.25) lies between
    the frames the bundled exporter samples, which stops at frame 14."""
    empty = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(empty)
    empty.rotation_mode = 'XYZ'
    _, curves = _new_action(empty, f"{name}Action")
    angles = np.radians(turn_deg) * np.arange(len(frames)) * np.array([1.0, -0.5, 1.0])[:len(frames)]
    for index in range(3):
        write_curve(curves, "rotation_euler", index, np.asarray(frames), angles * (0.3, 0.2, 1.0)[index])
    return empty
