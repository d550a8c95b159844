"""The deviation report's pointer table: KHR_animation_pointer F-curves against their reference.

An import keeps, on the action that holds them, the values Blender's importer gave the spec's
samples of every pointer F-curve it rewrote (materials' node sockets and settings, cameras,
lights: core.blender_model.PointerRecord). ``pointer_report`` measures, per such F-curve, the
largest difference between what Blender plays and that reference at the reference's times
(core.blender_model.pointer_deviations), absolute and in units of the range the curve spans. A
clip is one action on Blender 4.4+; on 4.2 the importer makes one action per animated data-block,
so the actions of the same file, animation and track that hold pointer references are the clip's
too. A record written before version 2 has no references: no pointer rows.
"""

from collections.abc import Sequence

import bpy

from ...core.blender_model import (
    ClipRecord, PointerDeviation, PointerRecord, format_pointer_table, pointer_deviations
)
from .. import action_data, clip_curves, fcurves

Row = PointerDeviation
format_table = format_pointer_table


def clip_pointers(action: bpy.types.Action, data: ClipRecord) -> list[tuple[bpy.types.Action, PointerRecord]]:
    """(action, record) of every pointer reference of the clip ``action`` belongs to."""
    found = [(action, record) for record in data.pointers]
    if fcurves.layered(action):
        return found
    for other in bpy.data.actions:  # Blender 4.2: one action per animated data-block
        if other == action:
            continue
        try:
            stored = action_data.load(other)
        except action_data.RecordError:
            continue
        if stored is not None and stored.pointers and \
                (stored.file, stored.animation, stored.name) == (data.file, data.animation, data.name):
            found += [(other, record) for record in stored.pointers]
    return found


def rows_of(pointers: Sequence[tuple[bpy.types.Action, PointerRecord]], frames_per_second: float) -> list[Row]:
    """Rows (core.blender_model.PointerDeviation), worst first; ``index`` is the position in
    ``pointers``."""
    records = [record for _, record in pointers]
    keys = [clip_curves.pointer_keys(action, record) for action, record in pointers]
    return pointer_deviations(records, keys, frames_per_second)


def pointer_report(action: bpy.types.Action, data: ClipRecord | None = None) -> list[Row]:
    """The pointer rows of the clip of ``action`` (an imported Action; ``data``: its loaded record)."""
    data = action_data.load(action) if data is None else data
    if data is None:
        raise ValueError(f"'{action.name}' has no clip imported by glTF Sqlerp (no stored samplers)")
    return rows_of(clip_pointers(action, data), data.frames_per_second)


def summary(rows: Sequence[Row]) -> str:
    """One line: the worst pointer curve, or '' when there is none."""
    compared = [r for r in rows if r.relative is not None]
    if not compared:
        return f"{len(rows)} pointer curves not compared" if rows else ""
    worst = compared[0]  # rows come worst first
    peak = worst.blender
    assert peak is not None  # compared rows have a peak
    return (f"pointer curves within {worst.relative:.2e} of their range "
            f"(worst {worst.target} {worst.property}: {peak.max:.3g} at frame {peak.frame:.1f})")
