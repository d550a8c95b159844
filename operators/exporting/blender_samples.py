"""Blender's own evaluation of the rotations whose keys are not their motion (issue 35).

IK, Child Of and Copy Transforms constraints, drivers and parents move bones and objects through
something else than their rotation F-curves, which export_motion emulates. For those channels the
export samples Blender itself, as the bundled exporter does at each frame but at the tolerance
check's density (core.fitting.sampled_motion.sample_frames: SAMPLES_PER_FRAME per frame), once per
object and action for every channel that needs it, and fits the samples (core.fitting.SampledMotion)
with the same world-space tolerances, forms and reductions as keyed channels.

The scene is put in the state the bundled exporter samples an action in (animation mode ACTIONS
or ACTIVE_ACTIONS: the action active on its object, the NLA and a solo track off, tweak mode left,
the pose bones reset when the exporter resets them; mode NLA_TRACKS: the animation's group of
tracks alone, the others muted; mode SCENE: as it plays, NLA blending included) and restored
afterwards, frame included. Each
sample is the target's effective basis rotation: the rotation its F-curves would have to key for
the pose Blender shows, conj(a) · rot(L), with ``a`` the rest map of export_headstart.rest_correction
(without the axis change) and L the local matrix the bundled exporter decomposes: a bone's pose
matrix in its parent's (parent⁻¹ · pose), an object's world matrix in its parent's. Export_rotations
checks the samples against the bundled exporter's own at every frame before it fits them.
"""

from __future__ import annotations  # LayeredAction: the type checker's only

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import bpy
import numpy as np

from ...core.fitting import SampledMotion, sample_frames, unheld_deg
from ...core.sampling import rotation_matrices
from ...core.sampling import quaternions as quat
from ..blender_context import current_scene
from .headstart import rest_correction
from ..fcurves import SlotUser
from .motion import action_slot

if TYPE_CHECKING:
    from ..fcurves import LayeredAction

# The animation modes whose actions are sampled here, as the bundled exporter plays them
# ("SCENE": the scene as it plays, NLA blending and all, no action switched).
SAMPLED_MODES = ("ACTIONS", "ACTIVE_ACTIONS", "SCENE", "NLA_TRACKS")


@dataclass(frozen=True)
class SampleRequest:
    """One channel to sample: ``obj``'s own rotation (``bone`` None) or its pose bone's, with
    ``action`` active (None: the scene as it plays), over frames ``start`` to ``end``."""
    obj: bpy.types.Object
    bone: str | None
    action: bpy.types.Action | None
    start: float
    end: float
    parent_bone: str | None = None  # a bone's parent node in the file, when that is a bone
    track: str | None = None  # mode NLA_TRACKS: the animation's name, its first NLA track's (track_group)


def sample(requests: Sequence[SampleRequest], reset_pose: bool = True,
           bone_parents: Mapping[str, Mapping[str, str | None]] | None = None
           ) -> tuple[list[SampledMotion | str], dict[tuple[str, str], float]]:
    """(per request, its SampledMotion or why Blender could not be sampled for it; {(armature,
    bone): degrees} of the exported bones whose world rotation glTF cannot hold, shear:
    core.fitting.shear, over every action sampled). ``bone_parents``: per armature, each exported
    bone's parent bone in the file (None: the armature). Frames are set once per object and
    action for all of its requests."""
    results: list[SampledMotion | str] = ["not sampled"] * len(requests)
    unheld: dict[tuple[str, str], float] = {}
    groups: dict[tuple[str, str, str], list[int]] = {}
    for index, request in enumerate(requests):
        key = (request.obj.name, request.action.name if request.action else "", request.track or "")
        groups.setdefault(key, []).append(index)
    scene = current_scene()
    frame, subframe = scene.frame_current, scene.frame_subframe
    try:
        for indices in groups.values():
            first = requests[indices[0]]
            frames = np.unique(np.concatenate([sample_frames(requests[i].start, requests[i].end) for i in indices]))
            group = track_group(first.obj, first.track) if first.track is not None else None
            with _playing(first.obj, first.action, group, reset_pose):
                matrices = _read(scene, first.obj, frames)
            for i in indices:
                results[i] = _motion(requests[i], frames, matrices)
            parents = (bone_parents or {}).get(first.obj.name)
            if parents and matrices.bones is not None:
                for bone, degrees in _unheld(first.obj, parents, matrices).items():
                    unheld[first.obj.name, bone] = max(degrees, unheld.get((first.obj.name, bone), 0.0))
    finally:
        scene.frame_set(frame, subframe=subframe)
    return results, unheld


def _unheld(obj, parents, matrices):
    """{bone: degrees} of core.fitting.shear.unheld_deg for the exported bones of armature ``obj``
    (``parents``: each one's parent bone in the file, None for the armature), the armature first."""
    names = [b.name for b in cast(bpy.types.Pose, obj.pose).bones]
    exported = [name for name in parents if name in names]
    index = {name: i + 1 for i, name in enumerate(exported)}
    tree = [-1] + [index.get(cast(str, parents[name]), 0) if parents[name] else 0 for name in exported]
    poses = cast(np.ndarray, matrices.bones)[:, [names.index(name) for name in exported]].transpose(1, 0, 2, 3)
    worlds = np.concatenate([matrices.world[None], matrices.world[None] @ poses])  # (1 + E, T, 4, 4)
    bones = cast(bpy.types.Armature, obj.data).bones
    rests = [np.eye(4)] + [_rest(bones, name, parents[name]) for name in exported]
    return dict(zip(exported, unheld_deg(np.array(tree), worlds, np.array(rests))[1:].tolist()))


def _rest(bones, name, parent):
    """The rest the bundled exporter takes out of a bone's local matrix: its rest in its parent
    bone's in the file (``parent``), else in the armature's at a root of the armature, else none
    (a bone whose parent is not exported stands at the file's root as posed)."""
    rest = np.array(bones[name].matrix_local)
    if parent is not None:
        return np.linalg.solve(np.array(bones[parent].matrix_local), rest)
    return rest if bones[name].parent is None else np.eye(4)


# A pose bone's own transform, as properties (matrix_basis would round-trip the rotation through
# a float32 matrix: a driven Euler angle came back changed), with its rest values.
_TRANSFORM = (("location", (0.0, 0.0, 0.0)), ("rotation_quaternion", (1.0, 0.0, 0.0, 0.0)),
              ("rotation_euler", (0.0, 0.0, 0.0)), ("rotation_axis_angle", (0.0, 0.0, 1.0, 0.0)),
              ("scale", (1.0, 1.0, 1.0)))


def track_group(obj: bpy.types.Object, name: str) -> list[bpy.types.NlaTrack]:
    """The NLA tracks of ``obj`` that the bundled exporter plays together as the animation
    ``name`` in mode NLA_TRACKS: from bottom to top, a track whose strips all REPLACE starts a
    group (named after it) and a track with any other blending joins the group below."""
    animation = obj.animation_data
    groups: list[list[bpy.types.NlaTrack]] = []
    for track in animation.nla_tracks if animation is not None else ():
        if not len(track.strips):
            continue
        if not groups or all(strip.blend_type == 'REPLACE' for strip in track.strips):
            groups.append([])
        groups[-1].append(track)
    return next((group for group in groups if group[0].name == name), [])


@contextmanager
def _playing(obj: bpy.types.Object, action: bpy.types.Action | None, group: list[bpy.types.NlaTrack] | None,
             reset_pose: bool) -> Iterator[None]:
    """``obj`` as the bundled exporter samples it, restored after: ``action`` alone (the NLA
    off, tweak mode left), or the NLA tracks of ``group`` alone (mode NLA_TRACKS: no action, the
    others muted); no solo track, the pose bones at rest where the exporter rests them. Neither
    (mode SCENE): the scene as it plays, nothing switched."""
    animation = obj.animation_data
    if animation is None or (action is None and group is None):
        yield
        return
    saved = (animation.action, getattr(animation, "action_slot", None), animation.use_nla,
             animation.use_tweak_mode)
    tracks = list(animation.nla_tracks)
    mutes, solo = [track.mute for track in tracks], [track for track in tracks if track.is_solo]
    pose = _pose_basis(obj) if reset_pose else None
    try:
        if action is not None and animation.is_property_readonly("action"):
            animation.use_tweak_mode = False
        for track in solo:
            track.is_solo = False
        if pose is not None:  # bones the action does not key at rest, as the exporter resets them
            _set_pose(obj, None)
        if group is not None:
            animation.action, animation.use_nla = None, True
            for track in tracks:
                track.mute = not any(track == member for member in group)
        else:
            animation.action, animation.use_nla = action, False
            if hasattr(animation, "action_slot"):  # Blender 4.4+: the slot the action has for obj
                slot = action_slot(cast("LayeredAction", action), obj)
                if slot is not None:
                    cast(SlotUser, animation).action_slot = slot
        yield
    finally:
        for track, mute in zip(tracks, mutes):
            track.mute = mute
        animation.action, animation.use_nla = saved[0], saved[2]
        if saved[1] is not None:
            cast(SlotUser, animation).action_slot = saved[1]
        for track in solo:
            track.is_solo = True
        if saved[3] and not animation.use_tweak_mode:
            animation.use_tweak_mode = True
        if pose is not None:
            _set_pose(obj, pose)


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


def _read(scene, obj, frames):
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
    """The world matrix of the node ``obj`` hangs from, as the bundled exporter takes it: its
    parent object's, or its parent bone's with the bone's axes turned Y up."""
    parent = obj.parent
    if obj.parent_type == 'BONE' and parent.pose is not None and obj.parent_bone in parent.pose.bones:
        bone = np.array(parent.pose.bones[obj.parent_bone].matrix)
        return np.array(parent.matrix_world) @ bone @ _Y_UP
    return np.array(parent.matrix_world)


_Y_UP = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def _motion(request, frames, matrices):
    """The SampledMotion of one request from its object's matrices, or why there is none."""
    obj, bone_name = request.obj, request.bone
    own = sample_frames(request.start, request.end)
    at = np.searchsorted(frames, own)
    if bone_name is None:
        if obj.parent is not None and obj.parent_type not in ('OBJECT', 'BONE'):
            return f"a parent of type {obj.parent_type} is not sampled"
        local = matrices.world if matrices.parent is None else np.linalg.solve(matrices.parent, matrices.world)
        # The object's world matrix in its parent's, as its keys' rotation q with a · q the node's.
        a, _ = rest_correction(obj, None, yup=False)
        values = quat.multiply(quat.conjugate(a), rotation_matrices.from_matrix(local[at, :3, :3]))
    else:
        basis = _bone_basis(request, matrices)
        if isinstance(basis, str):
            return basis
        values = rotation_matrices.from_matrix(basis[at, :3, :3])
    return SampledMotion(own, values)


def _bone_basis(request, matrices):
    """(T, 4, 4) the matrix whose rotation the bundled exporter writes for a bone, once turned by
    its rest: its local matrix (the pose in its parent node's; in the armature's at a root) with
    the rest it takes out of it taken out (_rest)."""
    obj, name = request.obj, request.bone
    bones = cast(bpy.types.Armature, obj.data).bones
    names = [b.name for b in cast(bpy.types.Pose, obj.pose).bones]
    if bones.get(name) is None or matrices.bones is None:
        return f"bone {name!r} not found on {obj.name!r}"
    parent = request.parent_bone if request.parent_bone in names else None
    local = matrices.bones[:, names.index(name)]
    if parent is not None:
        local = np.linalg.solve(matrices.bones[:, names.index(parent)], local)
    return np.linalg.solve(_rest(bones, name, parent), local)
