"""Blender's own evaluation of the rotations whose keys are not their motion (issue 35).

IK, Child Of and Copy Transforms constraints, drivers and parents move bones and objects through
something else than their rotation F-curves, which export_motion emulates. For those channels the
export samples Blender itself, as the bundled exporter does at each frame but at the tolerance
check's density (core.fitting.sampled_motion.sample_frames: SAMPLES_PER_FRAME per frame), once per
object and action for every channel that needs it, and fits the samples (core.fitting.SampledMotion)
with the same world-space tolerances, forms and reductions as keyed channels.

The scene is put in the state the bundled exporter samples an action in (animation mode ACTIONS
or ACTIVE_ACTIONS: the action active on its object, the NLA and a solo track off, tweak mode left,
the pose bones reset when the exporter resets them) and restored afterwards, frame included. Each
sample is the target's effective basis rotation: the rotation its F-curves would have to key for
the pose Blender shows, conj(a) · rot(L), with ``a`` the rest map of export_headstart.rest_correction
(without the axis change) and L the local matrix the bundled exporter decomposes: a bone's pose
matrix in its parent's (parent⁻¹ · pose), an object's world matrix in its parent's. Export_rotations
checks the samples against the bundled exporter's own at every frame before it fits them.
"""

from __future__ import annotations  # LayeredAction: the type checker's only

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import bpy
import numpy as np

from ...core.fitting import SampledMotion, sample_frames
from ...core.sampling import quaternions as quat
from ..blender_context import current_scene
from .headstart import rest_correction
from ..fcurves import SlotUser
from .motion import action_slot

if TYPE_CHECKING:
    from ..fcurves import LayeredAction

# The animation modes whose actions are sampled here, as the bundled exporter plays them.
SAMPLED_MODES = ("ACTIONS", "ACTIVE_ACTIONS")


@dataclass(frozen=True)
class SampleRequest:
    """One channel to sample: ``obj``'s own rotation (``bone`` None) or its pose bone's, with
    ``action`` active, over frames ``start`` to ``end``."""
    obj: bpy.types.Object
    bone: str | None
    action: bpy.types.Action
    start: float
    end: float


def sample(requests: Sequence[SampleRequest], reset_pose: bool = True) -> list[SampledMotion | str]:
    """Per request, its SampledMotion, or why Blender could not be sampled for it. Frames are
    set once per object and action for all of its requests."""
    results: list[SampledMotion | str] = ["not sampled"] * len(requests)
    groups: dict[tuple[str, str], list[int]] = {}
    for index, request in enumerate(requests):
        groups.setdefault((request.obj.name, request.action.name), []).append(index)
    scene = current_scene()
    frame, subframe = scene.frame_current, scene.frame_subframe
    try:
        for indices in groups.values():
            first = requests[indices[0]]
            frames = np.unique(np.concatenate([sample_frames(requests[i].start, requests[i].end) for i in indices]))
            with _playing(first.obj, first.action, reset_pose):
                matrices = _read(scene, first.obj, frames, [requests[i] for i in indices])
            for i in indices:
                results[i] = _motion(requests[i], frames, matrices)
    finally:
        scene.frame_set(frame, subframe=subframe)
    return results


@contextmanager
def _playing(obj: bpy.types.Object, action: bpy.types.Action, reset_pose: bool) -> Iterator[None]:
    """``obj`` playing ``action`` alone, as the bundled exporter samples it; restored after."""
    animation = obj.animation_data
    if animation is None:
        yield
        return
    saved = (animation.action, getattr(animation, "action_slot", None), animation.use_nla,
             animation.use_tweak_mode)
    solo = [track for track in animation.nla_tracks if track.is_solo]
    pose = _pose_basis(obj) if reset_pose else None
    try:
        if animation.is_property_readonly("action"):
            animation.use_tweak_mode = False
        for track in solo:
            track.is_solo = False
        animation.use_nla = False
        if pose is not None:  # bones the action does not key at rest, as the exporter resets them
            _set_pose(obj, None)
        animation.action = action
        if hasattr(animation, "action_slot"):  # Blender 4.4+: the slot the action has for obj
            slot = action_slot(cast("LayeredAction", action), obj)
            if slot is not None:
                cast(SlotUser, animation).action_slot = slot
        yield
    finally:
        animation.action = saved[0]
        if saved[1] is not None:
            cast(SlotUser, animation).action_slot = saved[1]
        animation.use_nla = saved[2]
        for track in solo:
            track.is_solo = True
        if saved[3] and not animation.use_tweak_mode:
            animation.use_tweak_mode = True
        if pose is not None:
            _set_pose(obj, pose)


# A pose bone's own transform, as properties (matrix_basis would round-trip the rotation through
# a float32 matrix: a driven Euler angle came back changed), with its rest values.
_TRANSFORM = (("location", (0.0, 0.0, 0.0)), ("rotation_quaternion", (1.0, 0.0, 0.0, 0.0)),
              ("rotation_euler", (0.0, 0.0, 0.0)), ("rotation_axis_angle", (0.0, 0.0, 1.0, 0.0)),
              ("scale", (1.0, 1.0, 1.0)))


def _pose_basis(obj):
    """{property: flat float32 values} of every pose bone's own transform, or None for an object
    without a pose."""
    if obj.type != 'ARMATURE' or obj.pose is None or not len(obj.pose.bones):
        return None
    values = {}
    for name, rest in _TRANSFORM:
        values[name] = np.empty(len(rest) * len(obj.pose.bones), dtype=np.float32)
        obj.pose.bones.foreach_get(name, values[name])
    return values


def _set_pose(obj, values):
    """Every pose bone's own transform from ``values`` (_pose_basis), or at rest when None."""
    bones = obj.pose.bones
    for name, rest in _TRANSFORM:
        bones.foreach_set(name, values[name] if values is not None
                          else np.tile(np.array(rest, dtype=np.float32), len(bones)))


@dataclass
class _Matrices:
    """Per sample frame (T, 4, 4): the armature's pose matrices (bones, B), the object's world
    matrix, its parent's (the parent bone's world matrix for a bone parent)."""
    bones: np.ndarray | None
    world: np.ndarray
    parent: np.ndarray | None


def _read(scene, obj, frames, requests):
    """Blender's matrices of ``obj`` (and its pose bones) at each of ``frames``."""
    pose = obj.pose if obj.type == 'ARMATURE' else None
    count = len(pose.bones) if pose is not None else 0
    bones = np.empty((len(frames), 16 * count), dtype=np.float32) if count else None
    world = np.empty((len(frames), 4, 4))
    parent = np.empty((len(frames), 4, 4)) if obj.parent is not None else None
    for t, frame in enumerate(frames):
        whole = int(np.floor(frame))
        scene.frame_set(whole, subframe=float(frame - whole))
        if bones is not None and pose is not None:
            pose.bones.foreach_get("matrix", bones[t])
        world[t] = np.array(obj.matrix_world)
        if parent is not None:
            parent[t] = _parent_world(obj)
    # foreach_get gives each matrix column by column
    stacked = (bones.reshape(len(frames), count, 4, 4).transpose(0, 1, 3, 2).astype(np.float64)
               if bones is not None else None)
    return _Matrices(stacked, world, parent)


def _parent_world(obj):
    """The world matrix of the node ``obj`` hangs from: its parent object's, or its parent bone's."""
    parent = obj.parent
    if obj.parent_type == 'BONE' and parent.pose is not None and obj.parent_bone in parent.pose.bones:
        return np.array(parent.matrix_world) @ np.array(parent.pose.bones[obj.parent_bone].matrix)
    return np.array(parent.matrix_world)


def _motion(request, frames, matrices):
    """The SampledMotion of one request from its object's matrices, or why there is none."""
    obj, bone_name = request.obj, request.bone
    if bone_name is None and obj.parent is not None and obj.parent_type not in ('OBJECT', 'BONE'):
        return f"a parent of type {obj.parent_type} is not sampled"
    own = sample_frames(request.start, request.end)
    at = np.searchsorted(frames, own)
    if bone_name is None:
        local = matrices.world if matrices.parent is None else np.linalg.solve(matrices.parent, matrices.world)
    else:
        bones = cast(bpy.types.Armature, obj.data).bones
        names = [b.name for b in cast(bpy.types.Pose, obj.pose).bones]
        bone = bones.get(bone_name)
        if bone is None or matrices.bones is None:
            return f"bone {bone_name!r} not found on {obj.name!r}"
        pose = matrices.bones[:, names.index(bone_name)]
        local = pose if bone.parent is None else np.linalg.solve(matrices.bones[:, names.index(bone.parent.name)], pose)
    a, _ = rest_correction(obj, bone_name, yup=False)
    values = quat.multiply(quat.conjugate(a), quat.from_matrix(local[at, :3, :3]))
    return SampledMotion(own, values, "Blender's evaluation")
