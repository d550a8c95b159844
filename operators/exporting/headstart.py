"""The rotation channels an export will most likely fit, predicted from the scene at its start.

The bundled exporter then gathers for tens of seconds on big rigs, on one core; the channels
predicted here are fitted meanwhile on the others (export_fitting.HeadStart). Once it has
gathered, export_rotations builds each channel's task from what it really wrote and takes the
head start's keys only for a task that ``fits_like`` the predicted one and whose samples agree
with it, so a wrong prediction costs time, never keys.

The prediction repeats the exporter's own choices as measured on its output (4.2 to 5.0, default
settings): the actions an object plays (its active one and its NLA strips'), each action's frame
range, slid to glTF time 0 when it starts before frame 0, and the constant map ``a · q · b`` from
a bone's or object's own rotation into its node's (``rest_correction``).
"""

from collections.abc import Iterable, Iterator, Mapping
from typing import cast

import bpy
import numpy as np
from mathutils import Euler, Matrix, Quaternion

from ...core.sampling import quaternions as quat
from ...core.fitting import ChannelTarget, ChannelTask, RotationMotion
from ...core.blender_model import DATA_PATHS
from .motion import action_curves, rotation_motion
from .stored import stored_keys

# -90 degrees about X, (x, y, z, w): Blender's Z-up to glTF's Y-up.
Y_UP = np.array([-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])
_IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


# (object name, bone name or None: the object's own rotation, action name)
TaskKey = tuple[str, str | None, str]


def predicted_tasks(scene: bpy.types.Scene, rate: float,
                    world_space: bool = False) -> list[tuple[TaskKey, ChannelTask]]:
    """((object name, bone name or None, action name), ChannelTask without samples) for every
    rotation channel the scene's objects play, at ``rate`` frames per second. ``world_space``:
    only those with no rotated bone or animated object above them; the others are fitted on the
    way down the tree, to their corrections (export_world), and a head start's keys would be lost."""
    tasks: list[tuple[TaskKey, ChannelTask]] = []
    for obj in scene.objects:
        if world_space and _animated_above(obj):
            continue
        for action in played_actions(obj):
            curves = action_curves(action, obj)
            paths = {fcurve.data_path for fcurve in curves} if curves is not None else set()
            rotated = list(_rotated(obj, paths))
            if world_space:
                rotated = _topmost(obj, rotated)
            for bone in rotated:
                task = _predicted_task(obj, bone, action, rate)
                if task is not None:
                    tasks.append(((obj.name, bone, action.name), task))
    return tasks


def played_actions(obj: bpy.types.Object) -> list[bpy.types.Action]:
    """The actions ``obj`` plays: its active one, then its NLA strips', each once."""
    animation = obj.animation_data
    if animation is None:
        return []
    return unique_actions([animation.action] + [strip.action for track in animation.nla_tracks
                                                for strip in track.strips])


def unique_actions(actions: Iterable[bpy.types.Action | None]) -> list[bpy.types.Action]:
    """``actions`` in order, each once, without None."""
    unique: list[bpy.types.Action] = []
    for action in actions:
        if action is not None and action not in unique:
            unique.append(action)
    return unique


def rest_correction(obj: bpy.types.Object, bone_name: str | None,
                    yup: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(a, b): the bundled exporter writes ``a · q · b`` for the rotation ``q`` Blender keys.

    A bone's node holds its rest in its parent's rest times q (a root bone's: its rest in the
    armature, after the axis change X); an object's holds X on both sides of its parent inverse,
    delta rotation and q. As measured on the exporter's output (4.2 to 5.0); where it differs
    (another parent type, say), export_rotations measures the map from the samples instead."""
    if bone_name is not None:
        bone = cast(bpy.types.Armature, obj.data).bones.get(bone_name)  # a bone's object is an armature
        if bone is None:
            return _IDENTITY, _IDENTITY
        if bone.parent is not None:
            return _xyzw(bone.parent.matrix_local.inverted_safe() @ bone.matrix_local), _IDENTITY
        rest = _xyzw(bone.matrix_local)
        return (quat.multiply(Y_UP, rest) if yup else rest), _IDENTITY
    parent_inverse = _xyzw(obj.matrix_parent_inverse) if obj.parent is not None else _IDENTITY
    a = quat.multiply(parent_inverse, _delta(obj))
    if not yup:
        return a, _IDENTITY
    return quat.multiply(Y_UP, a), quat.conjugate(Y_UP)


def frame_range(exported: Mapping[str, float] | None, action: bpy.types.Action | None, motion: RotationMotion,
                slide: float) -> tuple[float, float]:
    """First and last frame of the curve: the exporter's range (``exported``: its {"start",
    "end"}, else the action's), extended to a last key it drops (a fractional end frame), never
    before glTF time 0 (``slide``)."""
    if exported is not None:
        start, end = float(exported["start"]), float(exported["end"])
    else:
        start, end = (float(f) for f in action.frame_range) if action else (0.0, 0.0)
    keys = motion.key_frames
    if action is not None and len(keys):
        last = keys[keys <= float(action.frame_range[1]) + 1e-6]
        if len(last):
            end = max(end, float(last[-1]))
    return max(start, slide), end


def _predicted_task(obj, bone, action, rate):
    motion = rotation_motion(obj, bone, action)
    if isinstance(motion, str):
        return None
    first = float(action.frame_range[0])
    slide = min(first, 0.0)  # an action starting before frame 0 slides to time 0
    target = ChannelTarget(motion, *rest_correction(obj, bone), slide, rate)
    start, end = frame_range(None, action, motion, slide)
    if end <= start:
        return None
    return ChannelTask(target, start, end, stored_keys(action, obj, bone, target))


def _animated_above(obj: bpy.types.Object) -> bool:
    """Whether an object above ``obj`` has animation data (it may move it)."""
    parent = obj.parent
    while parent is not None:
        if parent.animation_data is not None:
            return True
        parent = parent.parent
    return False


def _topmost(obj: bpy.types.Object, rotated: list[str | None]) -> list[str | None]:
    """Of ``rotated`` (bone names, None for the object), those with no rotated bone or object above."""
    if None in rotated:  # the object turns: every bone is under it
        return [None]
    keyed = set(rotated)
    bones = cast(bpy.types.Armature, obj.data).bones if obj.type == 'ARMATURE' else None
    topmost: list[str | None] = []
    for name in rotated:
        bone = bones.get(name) if bones is not None and name is not None else None
        parent = bone.parent if bone is not None else None
        while parent is not None and parent.name not in keyed:
            parent = parent.parent
        if parent is None:
            topmost.append(name)
    return topmost


def _rotated(obj: bpy.types.Object, paths: set[str]) -> Iterator[str | None]:
    """The bones of ``obj`` (None: the object itself) whose rotation ``paths`` key."""
    if DATA_PATHS[obj.rotation_mode][0] in paths:
        yield None
    if obj.pose is None:
        return
    for pose_bone in obj.pose.bones:
        prefix = f'pose.bones["{bpy.utils.escape_identifier(pose_bone.name)}"].'
        if prefix + DATA_PATHS[pose_bone.rotation_mode][0] in paths:
            yield pose_bone.name


def _delta(obj):
    """The object's delta rotation, which Blender applies before its own (q_delta · q)."""
    mode = obj.rotation_mode
    if mode == 'QUATERNION':
        return _xyzw(obj.delta_rotation_quaternion.normalized())
    if mode == 'AXIS_ANGLE':
        return _IDENTITY  # Blender keeps no delta for axis-angle that Python can set
    return _xyzw(Euler(obj.delta_rotation_euler, mode).to_quaternion())


def _xyzw(rotation: Matrix | Quaternion) -> np.ndarray:
    """A mathutils matrix's or quaternion's rotation as (x, y, z, w)."""
    q = rotation.to_quaternion() if isinstance(rotation, Matrix) else rotation
    return np.array([q.x, q.y, q.z, q.w])
