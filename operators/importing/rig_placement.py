"""Clips onto a rig (``onto='ACTIVE'``), the Blender side: the import hook writes each clip's curves
into the actions the bundled importer made, with the rig's names and rest (rig_match); here those
actions move onto the rig, and everything else the importer built goes.

During the import (session.rewrite_animation): ``claim_slot`` renames the action's slot after the
rig's ID and remembers where to stash the clip; ``shape_keys`` finds the rig's shape keys;
``hold_unturned_bones`` keys the bones a clip leaves alone where the file holds them. After it
(``settle``): each clip is stashed on the rig's NLA as the importer stashes clips, slots that play
nothing on the rig leave the actions, and every other data-block the import added is removed.
"""

from __future__ import annotations  # the session's and the importer's types: for the type checker

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import bpy
import numpy as np

from .. import fcurves, transaction
from . import tracks
from .pose_mapping import node_channel_map, retargeted

if TYPE_CHECKING:
    from ...bundled_gltf import imported
    from .rig_match import RigMatch
    from .session import ImportSession


def claim_slot(session: ImportSession, made: bpy.types.ID, target: bpy.types.ID,
               action: bpy.types.Action, slot: Any, track_name: str) -> None:
    """The clip's curves of ``made`` (an ID the importer built) play on ``target`` (the rig's):
    name the slot after it (4.4+) and stash the action there once the import is done."""
    if any(a == action and s == slot for _, a, s, _ in session.rig_stashes):
        return
    if slot is not None and slot.name_display != target.name:
        slot.name_display = target.name
    elif slot is None:  # Blender 4.2: an action per object, named as the importer names them
        action.name = f"{track_name}_{target.name}"
    session.rig_stashes.append((target, action, slot, track_name))


def shape_keys(rig: RigMatch, scene: imported.ImportedScene, node: Any,
               names: Sequence[str | None]) -> tuple[bpy.types.ID | None, list[str | None]]:
    """The rig's shape keys for a mesh node, and per morph target the rig's shape key of that
    name (None: the rig has none)."""
    placed = rig.target(node)
    keys = getattr(getattr(placed.obj, "data", None), "shape_keys", None) if placed is not None else None
    if keys is None:
        return None, []
    return keys, [name if name is not None and name in keys.key_blocks else None for name in names]


def refusal(session: ImportSession) -> str | None:
    """Why the file cannot go onto the rig (None: it can): its hierarchy does not fit, or none of
    its animated nodes is on the rig."""
    if session.misfit is not None:
        return f"the file does not fit the rig: {session.misfit}"
    if session.rig is not None and session.plans and not session.channels_written:
        nodes = {p.channel.node for plans in session.plans.values() for p in plans}
        return (f"none of the {len(nodes)} animated nodes of the file is on the rig "
                f"'{session.rig.root.name}' (its bones and objects have other names: a prefix map "
                "such as 'mixamorig:=' matches prefixed ones)")
    return None


def settle(session: ImportSession, before: set[int]) -> int:
    """Stash every clip on the rig and remove what else the import added; returns how many
    data-blocks were removed."""
    kept = {action.as_pointer() for _, action, _, _ in session.rig_stashes}
    for target, action, slot, track_name in session.rig_stashes:
        stash(target, action, slot, track_name)
    for action in {a.as_pointer(): a for _, a, _, _ in session.rig_stashes}.values():
        _drop_other_slots(action, [s for _, a, s, _ in session.rig_stashes if a == action])
    added = [block for block in transaction.added_since(before) if block.as_pointer() not in kept]
    if added:
        bpy.data.batch_remove(added)
    return len(added)


def stash(data: bpy.types.ID, action: bpy.types.Action, slot: Any, track_name: str) -> None:
    """A muted, locked NLA track named ``track_name`` on ``data`` holding ``action`` (with ``slot``
    on 4.4+), as the bundled importer stashes a clip, its strip lined up with the keys."""
    animation_data = getattr(data, "animation_data", None)
    if animation_data is None:
        animation_data = data.animation_data_create()  # pyright: ignore[reportAttributeAccessIssue]
    taken = {t.name for t in animation_data.nla_tracks}
    track = animation_data.nla_tracks.new(prev=None)
    track.name = _unique(track_name, taken)
    strip = track.strips.new(action.name, int(action.frame_range[0]), action)
    if slot is not None:
        strip.action_slot = slot  # pyright: ignore[reportAttributeAccessIssue]
    tracks.align_strip(strip, action)
    track.lock = track.mute = True


def _unique(name: str, taken: set[str]) -> str:
    """``name``, else ``name.001``, ``name.002``...: Blender lets two NLA tracks share a name, and
    the bundled importer's clip switcher would then play the first."""
    count, unique = 0, name
    while unique in taken:
        count += 1
        unique = f"{name}.{count:03d}"
    return unique


def _drop_other_slots(action: bpy.types.Action, kept: list[Any]) -> None:
    """Remove the slots of IDs the rig has no match for (4.4+: one action holds every ID's slot)."""
    if not fcurves.layered(action):
        return
    for slot in [s for s in action.slots if s not in kept]:
        action.slots.remove(slot)  # pyright: ignore[reportAttributeAccessIssue]


def selection(context: bpy.types.Context) -> tuple[bpy.types.Object | None, list[bpy.types.Object]]:
    """The active and selected objects: the importer selects what it builds, which then goes."""
    return context.active_object, list(context.selected_objects or ())


def restore_selection(context: bpy.types.Context,
                      kept: tuple[bpy.types.Object | None, list[bpy.types.Object]]) -> None:
    view_layer = context.view_layer
    if view_layer is None:
        return
    active, selected = kept
    view_layer.update()  # its object list holds None for removed objects until it is synced
    for obj in view_layer.objects:
        obj.select_set(False)
    for obj in selected:
        if _exists(obj) and obj.name in view_layer.objects:
            obj.select_set(True)
    view_layer.objects.active = active if active is not None and _exists(active) else None


def _exists(obj: bpy.types.Object) -> bool:
    """Whether ``obj`` still exists (a removed one raises ReferenceError on any access)."""
    try:
        return bool(obj.name)
    except ReferenceError:
        return False


def hold_unturned_bones(session: ImportSession, scene: imported.ImportedScene, anim_idx: int,
                        by_id: Mapping[int, tuple[bpy.types.Action, Any]],
                        indexes: dict[int, fcurves.CurveIndex]) -> None:
    """Onto a rig whose rest differs from the file's, a bone the clip does not turn would show the
    rig's own rest: a CONSTANT key holds the file's rotation of the node through the rig's map."""
    assert session.rig is not None, "called for imports onto a rig"
    turned = {p.channel.node for p in session.plans.get(anim_idx, []) if p.channel.path == "rotation"}
    scene_nodes = session.document.scene
    rotations = scene_nodes.rest_trs().rotation
    for node, handle in scene.bone_nodes():
        placed = session.rig.target(handle)
        made = scene.target_id(handle, "rotation")
        if (placed is None or node in turned or scene_nodes.has_matrix[node] or made is None
                or made.as_pointer() not in by_id or placed.keeps_rotations()):
            continue
        action, slot = by_id[made.as_pointer()]
        index = indexes.setdefault(made.as_pointer(), fcurves.CurveIndex(action, slot))
        mapping = retargeted(node_channel_map(scene.node_rest(handle), "rotation", "Object Transforms"),
                             "rotation", placed.change, placed.roll, placed.bone)
        held = mapping.apply(rotations[node])
        codes = fcurves.interpolation_codes(["CONSTANT"])
        for component, value in enumerate(held):
            co = np.array([0.0, value], dtype=np.float32)
            fcurves.write_keyframes(index.ensure(mapping.data_path, component, mapping.group), co, co, co, codes, False)
