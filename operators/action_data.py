"""The original glTF samplers, kept on the Action as custom properties.

The preview and a later export evaluate the spec's curves from this data, without the file. Each
channel records its node, its target in Blender (ID, slot, data path), the affine map from glTF
values to that target (pose space for bones), and the samplers: the one played and, for
EXT_animation_sqlerp channels, the other one (fallback or extension). The layout and its version
are core.blender_model.clip_record's; this module reads and writes it on Blender's Actions.
"""

from __future__ import annotations  # the import session's types are read by the type checker only

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.blender_model import (
    KEY, ChannelRecord, ClipRecord, CurveTarget, PointerRecord, RecordError, SamplerRecord
)

if TYPE_CHECKING:  # this module needs no bpy to import; the import session imports it
    import bpy

    from ..core import Document, Sampler
    from ..core.blender_model import ImportSettings
    from .fcurves import ActionSlot
    from .importing import ChannelMap, PlannedChannel

_MAX_LOADED = 64
# (action session_uid, the stored group's address) -> ClipRecord or RecordError
_loaded: dict[tuple[int, int], ClipRecord | RecordError] = {}

__all__ = ["KEY", "RecordError", "channel_record", "store", "load", "stored", "set_channel_source",
           "forget"]


def channel_record(plan: PlannedChannel, target: bpy.types.ID, slot: ActionSlot | None, mapping: ChannelMap,
                   curves: Sequence[tuple[str, int] | None]) -> ChannelRecord:
    """``curves``: per component, (data_path, array_index) of its F-curve, or None where Blender
    has no property for it (a morph target without a shape key)."""
    channel = plan.channel
    return ChannelRecord(
        # bl_rna is the struct's definition (a bpy.types.Struct); the stubs say BlenderRNA.
        int(channel.node), channel.path, channel.pointer, target.name,
        target.bl_rna.identifier,  # pyright: ignore[reportAttributeAccessIssue]
        getattr(slot, "identifier", ""), mapping.data_path,
        [CurveTarget(c[0], int(c[1])) if c is not None else CurveTarget("", -1) for c in curves],
        mapping.matrix, mapping.offset, plan.source, _sampler(channel.sampler),
        _sampler(channel.fallback) if channel.fallback is not None else None)


def _sampler(sampler: Sampler) -> SamplerRecord:
    return SamplerRecord(sampler.interpolation, sampler.times, sampler.values, sampler.pointer)


def store(action: bpy.types.Action, document: Document, settings: ImportSettings, anim_idx: int, track_name: str,
          records: list[ChannelRecord], pointers: Sequence[PointerRecord] = ()) -> None:
    """Write the records of one glTF animation onto ``action`` (one action per animation on 4.4+,
    per animation and object on 4.2: each keeps the channels it animates), with the references of
    the pointer F-curves it holds."""
    action[KEY] = ClipRecord(str(document.path or ""), int(anim_idx), track_name, settings.source,
                             settings.tolerance_deg, settings.bake, settings.frames_per_second,
                             records, pointers=list(pointers)).to_record()
    # The new group could reuse a freed one's address: nothing read of this action stands.
    for key in [k for k in _loaded if k[0] == action.session_uid]:
        del _loaded[key]


def stored(action: bpy.types.Action) -> bool:
    """Whether ``action`` carries a clip record (readable or not)."""
    return action.get(KEY) is not None


def load(action: bpy.types.Action) -> ClipRecord | None:
    """The action's clip record, or None for an action we did not import. RecordError for a
    record this version cannot read (a newer add-on's, or a damaged one).

    Read once per stored group and kept (the panel asks on every redraw): a re-import stores a
    new group; ``set_channel_source`` drops what it changes; ``forget`` drops everything."""
    data = action.get(KEY)
    if data is None:
        return None
    key = (action.session_uid, hash(data))  # hash: the group's address
    found = _loaded.get(key)
    if found is None:
        if len(_loaded) >= _MAX_LOADED:
            _loaded.clear()
        try:
            found = ClipRecord.from_record(data.to_dict(), f"the glTF clip record of action '{action.name}'")
        except RecordError as error:
            found = error
        _loaded[key] = found
    if isinstance(found, RecordError):
        raise found
    return found


def set_channel_source(action: bpy.types.Action, index: int, source: str) -> None:
    """Record that channel ``index``'s curves now play ``source`` (after Add Keys refits them)."""
    data = action[KEY]
    data["channels"][index]["source"] = source
    _loaded.pop((action.session_uid, hash(data)), None)


def forget() -> None:
    """Drop every record read (file loads, undo, the add-on disabled)."""
    _loaded.clear()
