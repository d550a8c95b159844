"""NLA strips of imported clips, lined up with the keys they play.

The bundled importer puts each stashed strip at ``scene.frame_start`` (frame 1) while the action's
keys start at frame 0, so soloing a clip on the NLA plays it one frame late compared with the same
action assigned directly. We start every strip at the action's first key instead.
"""

from __future__ import annotations  # the types below are for the type checker only

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import bpy

    from ..fcurves import ActionSlot


def align_strips(stashed: Iterable[tuple[bpy.types.ID, bpy.types.Action, ActionSlot | None]],
                 track_name: str) -> None:
    """Line up the strips of ``track_name`` for every (ID, action, slot) the importer stashed."""
    for data, action, _slot in stashed:
        animation_data = getattr(data, "animation_data", None)
        if animation_data is None:
            continue
        for track in animation_data.nla_tracks:
            if track.name != track_name:
                continue
            for strip in track.strips:
                if strip.action == action:
                    align_strip(strip, action)


def align_strip(strip: bpy.types.NlaStrip, action: bpy.types.Action) -> None:
    start, end = action.frame_range
    # Widen first, then narrow: Blender refuses a start after the current end and vice versa.
    strip.action_frame_end = max(end, strip.action_frame_end)
    strip.action_frame_start = start
    strip.action_frame_end = end
    strip.scale, strip.repeat = 1.0, 1.0
    # frame_start_ui moves the strip and keeps its length (frame_start would stretch it).
    strip.frame_start_ui = start
