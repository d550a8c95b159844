"""Deviation report and "Add Keys" for imported clips.

``report(obj_or_action)`` compares, per channel of the clip, the three sources (EXTENSION,
FALLBACK, BLENDER: the F-curves as Blender plays them) over dense times (core.blender_model.deviation);
``pointer_report`` compares the clip's KHR_animation_pointer F-curves with the reference the
import kept (preview/pointer_rows), and the operator shows both tables.
``add_keys(obj_or_action)`` refits the channels whose F-curves miss the spec they should play by
more than the tolerance and rewrites their F-curves. Both are plain functions for background
runs; the operators ``gltf_sqlerp.deviation_report`` and ``gltf_sqlerp.add_keys`` wrap them and
keep a short summary on the scene (``scene.gltf_sqlerp_deviation``) for the panel.

Tolerance per channel, as at import: rotation errors add up along a chain of animated bones, so
each rotation gets ``tolerance / n``, n the most rotation-animated targets on one chain through it
(core.blender_model.import_plan.rotation_budgets). The stored records carry no hierarchy, so the chains are read
from Blender's (bone parents, object parents and parent bones), which the bundled importer builds
from the glTF one: the same shares as the import. Other channels are fitted exactly by the core, so
they deviate when they differ by more than float32 rounding could explain (VALUE_TOLERANCE).
"""

from collections.abc import Sequence
from typing import cast

import bpy
import numpy as np

from ...core.blender_model import ChannelRecord, ClipRecord, deviation
from ...core.blender_model import rotation_budgets
from ...core.blender_model import keyframes_for
from .. import action_data, clip_curves
from . import pointer_rows as pointers

SOURCE_ITEMS = (
    ('RECORD', "As Imported", "Each channel against the sampler its curves were written to play"),
    ('EXTENSION', "CUBICSLERP Extension", "Every channel against its EXT_animation_sqlerp sampler"),
    ('FALLBACK', "Fallback", "Every channel against its fallback sampler"),
)
SUMMARY_ROWS = 10
# Non-rotation channels: largest difference, relative to max(1, largest |value|), that Blender's
# float32 keys explain (they round values by 6e-8 relative); anything larger is a real deviation.
VALUE_TOLERANCE = 1e-5

Row = deviation.ChannelDeviation
# A rotation target in Blender: (object name, bone name or None for the object itself)
Target = tuple[str, str | None]


def clip_action(obj_or_action: bpy.types.ID) -> bpy.types.Action:
    """The imported Action to report: the action itself, or an ID's active action (for a mesh
    object without one, its shape keys' action)."""
    if isinstance(obj_or_action, bpy.types.Action):
        action = obj_or_action
    else:
        action = _active_action(obj_or_action)
        shape_keys = getattr(getattr(obj_or_action, "data", None), "shape_keys", None)
        if action is None and shape_keys is not None:
            action = _active_action(shape_keys)
    if action is None or not action_data.stored(action):
        name = getattr(obj_or_action, "name", obj_or_action)
        raise ValueError(f"{name!r} has no clip imported by glTF Sqlerp (no stored samplers)")
    return action


def _active_action(data: bpy.types.ID) -> bpy.types.Action | None:
    animation_data = getattr(data, "animation_data", None)
    return animation_data.action if animation_data is not None else None


def report(obj_or_action: bpy.types.ID, source: str | None = None, data: ClipRecord | None = None) -> list[Row]:
    """Rows (core.blender_model.deviation.ChannelDeviation), worst first, for the clip of ``obj_or_action``.
    ``source``: 'EXTENSION' or 'FALLBACK' to compare Blender's curves with that source; None (or
    'RECORD'): with the one each channel was written to play. ``data``: the action's stored clip
    when the caller has loaded it already (action_data.load)."""
    action = clip_action(obj_or_action)
    return _rows(action, _clip_record(action) if data is None else data, source)


def pointer_report(obj_or_action: bpy.types.ID, data: ClipRecord | None = None) -> list[pointers.Row]:
    """Rows (core.blender_model.PointerDeviation), worst first by the difference in units of each
    curve's range, for the KHR_animation_pointer F-curves of the clip of ``obj_or_action``."""
    action = clip_action(obj_or_action)
    return pointers.pointer_report(action, _clip_record(action) if data is None else data)


def _clip_record(action: bpy.types.Action) -> ClipRecord:
    """The clip record of an action clip_action accepted (RecordError for one this version cannot
    read)."""
    data = action_data.load(action)
    if data is None:
        raise ValueError(f"'{action.name}' has no clip imported by glTF Sqlerp (no stored samplers)")
    return data


def worst_rotation(rows: Sequence[Row]) -> Row | None:
    """The rotation row whose Blender curves are farthest from the spec, or None."""
    compared = [(r, peak) for r in rows if r.rotation and (peak := r.blender_vs()) is not None]
    worst = max(compared, key=lambda pair: pair[1].max, default=None)
    return worst[0] if worst is not None else None


def _rows(action: bpy.types.Action, data: ClipRecord, source: str | None,
          times: np.ndarray | None = None) -> list[Row]:
    records = data.channels
    keys = [clip_curves.channel_keys(action, record) for record in records]
    return deviation.channel_deviations(records, keys, data.frames_per_second, times,
                                        None if source == 'RECORD' else source)


def add_keys(obj_or_action: bpy.types.ID, source: str | None = None,
             tolerance_deg: float | None = None) -> tuple[list[tuple[Row, int, int]], list[tuple[Row, str]]]:
    """Refit every channel of the clip whose F-curves miss ``source`` (default: each channel's
    own) by more than the tolerance (default: the one stored at import), with
    core.blender_model.keyframes.keyframes_for on the stored sampler, and rewrite its F-curves where the new
    keys, as Blender stores them (float32), play closer to the spec than the current ones.

    A baked clip's channels become fitted curves. Returns (refitted, skipped): refitted is a list
    of (row, keys before, keys after), skipped a list of (row, reason) for channels over the
    tolerance that were left alone (curves that cannot be compared, or a refit that would play
    no closer: Blender's float32 key frames limit very dense, fast curves)."""
    action = clip_action(obj_or_action)
    data = _clip_record(action)
    tolerance = float(tolerance_deg or data.tolerance_deg)
    records, rate = data.channels, data.frames_per_second
    times = deviation.clip_times(records, rate)
    chains = chain_counts(data)
    refitted: list[tuple[Row, int, int]] = []
    skipped: list[tuple[Row, str]] = []
    for row in _rows(action, data, source, times):
        record = records[row.index]
        measured = row.blender_vs()
        if measured is None:
            skipped.append((row, "; ".join(row.notes)))
            continue
        limit = _limit(record, row, tolerance, chains)
        if not measured.max > limit:
            continue
        keys = keyframes_for(deviation.stored_sampler(record, row.source),
                             limit if row.rotation else tolerance, frames_per_second=rate)
        curves = deviation.planned_curves(record, keys, rate)
        refit = deviation.blender_peak(record, curves, row.source, times, rate)
        if isinstance(refit, str):  # the new keys cannot be compared: left as they are
            skipped.append((row, refit))
            continue
        if not refit.max < measured.max:
            skipped.append((row, "a refit plays no closer (Blender's float32 keys)"))
            continue
        before, after = clip_curves.rewrite(action, record, curves)
        if record.source != row.source and (row.source == "EXTENSION" or row.has_fallback):
            action_data.set_channel_source(action, row.index, row.source)
        refitted.append((row, before, after))
    return refitted, skipped


def _limit(record: ChannelRecord, row: Row, tolerance: float, chains: dict[Target, int]) -> float:
    if row.rotation:
        return tolerance / chains.get(_rotation_target(record), 1)
    matrix, offset = deviation.affine_map(record)
    values = record.sampler.values @ matrix.T + offset
    return VALUE_TOLERANCE * max(1.0, float(np.abs(values).max(initial=0.0)))


def _rotation_target(record: ChannelRecord) -> Target:
    """(object name, bone name or None) of a rotation record."""
    bone = record.data_path.startswith("pose.bones[")
    return record.id_name, deviation.target_name(record) if bone else None


def chain_counts(data: ClipRecord) -> dict[Target, int]:
    """Per rotation target of the clip: the rotation-animated targets on the longest chain through
    it in Blender's hierarchy. The clip is every action imported from the same file and animation
    (Blender 4.2 keeps one action per object)."""
    targets: list[Target] = []
    for other in bpy.data.actions:
        try:
            stored = action_data.load(other)
        except action_data.RecordError:
            continue  # another clip this version cannot read: not part of this one
        if stored is None or (stored.file, stored.animation) != (data.file, data.animation):
            continue
        targets += [_rotation_target(r) for r in stored.channels
                    if r.path == "rotation" and r.id_type == "Object"]
    index: dict[Target, int] = {}
    parents: list[int] = []
    for target in targets:
        chain: list[Target] = []
        key: Target | None = target
        while key is not None and key not in index:  # up to the first one already placed
            chain.append(key)
            key = _hierarchy_parent(key)
        parent = index[key] if key is not None else -1
        for key in reversed(chain):  # parents get their index first: arange is parents-first
            index[key] = len(parents)
            parents.append(parent)
            parent = index[key]
    if not targets:
        return {}
    animated = [index[t] for t in targets]
    counts = rotation_budgets(np.array(parents), np.arange(len(parents)), animated)
    return {t: int(counts[index[t]]) for t in targets}


def _hierarchy_parent(key: Target) -> Target | None:
    """The parent of a (object name, bone name or None) target in Blender's hierarchy, or None."""
    name, bone = key
    obj = bpy.data.objects.get(name)
    if obj is None:
        return None
    if bone is not None:
        data = cast(bpy.types.Armature, obj.data).bones.get(bone) if obj.type == 'ARMATURE' else None
        return (name, data.parent.name if data is not None and data.parent is not None else None)
    if obj.parent is None:
        return None
    if obj.parent_type == 'BONE' and obj.parent_bone:
        return obj.parent.name, obj.parent_bone
    return obj.parent.name, None


# --- operators ------------------------------------------------------------------------------------

def _resolve(operator: "GLTF_SQLERP_OT_deviation_report | GLTF_SQLERP_OT_add_keys",
             context: bpy.types.Context) -> bpy.types.Action | None:
    """The action named by the operator, else the active object's clip; None after an ERROR
    (also for a clip record this version cannot read: RecordError is a ValueError)."""
    try:
        if operator.action:
            action = bpy.data.actions.get(operator.action)
            if action is None:
                raise ValueError(f"no action named {operator.action!r}")
            action = clip_action(action)
        elif context.active_object is None:
            raise ValueError("no active object and no action given")
        else:
            action = clip_action(context.active_object)
        action_data.load(action)
        return action
    except ValueError as error:
        operator.report({'ERROR'}, str(error))
        return None


def _header(action: bpy.types.Action, data: ClipRecord, source: str | None,
            pointer_rows: Sequence[pointers.Row] = ()) -> str:
    times = deviation.clip_times(data.channels, data.frames_per_second)
    against = "each channel's own source" if source in (None, 'RECORD') else source
    curves = (f"; {len(pointer_rows)} pointer curves against the import's reference "
              f"(at its samples: keys and {deviation.SAMPLES_PER_FRAME} per frame)") if pointer_rows else ""
    return (f"Deviation of '{action.name}' (BLENDER against {against}): "
            f"{len(data.channels)} channels, {len(times)} samples over 0-{times[-1]:.3f} s "
            f"({deviation.SAMPLES_PER_FRAME} per frame at {data.frames_per_second:g} fps){curves}")


def store_summary(scene: bpy.types.Scene | None, action: bpy.types.Action, rows: Sequence[Row],
                  pointer_rows: Sequence[pointers.Row] = ()) -> None:
    """Keep the top rows on ``scene.gltf_sqlerp_deviation`` for the panel (if registered)."""
    state = getattr(scene, "gltf_sqlerp_deviation", None)
    if state is None:
        return
    state.action = action.name
    state.rows.clear()
    lines = [_summary(action, rows)]
    for row in rows[:SUMMARY_ROWS]:
        item = state.rows.add()
        item.target, item.path, item.source, item.unit = row.target, row.path, row.source, row.unit
        for name, peak in (("ext_fallback", row.ext_fallback), ("ext_blender", row.ext_blender),
                           ("fallback_blender", row.fallback_blender)):
            setattr(item, name, peak.max if peak is not None else -1.0)
        played = row.blender_vs()
        item.blender_frame = played.frame if played is not None else 0.0
        item.note = "; ".join(row.notes)
        item.relative = -1.0
        lines.append(f"{row.target} {row.path}: ext-fb {_short(row.ext_fallback, row.unit)}, "
                     f"ext-bl {_short(row.ext_blender, row.unit)}, "
                     f"fb-bl {_short(row.fallback_blender, row.unit)}")
    if pointer_rows:
        lines.append(pointers.summary(pointer_rows))
    for pointer in pointer_rows[:SUMMARY_ROWS]:
        item = state.rows.add()  # EXTENSION = FALLBACK = the reference: one difference
        item.target, item.path, item.source, item.unit = pointer.target, pointer.property, "POINTER", ""
        peak = pointer.blender
        item.ext_fallback = 0.0
        item.ext_blender = item.fallback_blender = peak.max if peak is not None else -1.0
        item.relative = pointer.relative if pointer.relative is not None else -1.0
        item.blender_frame = peak.frame if peak is not None else 0.0
        item.note = "; ".join(pointer.notes)
        lines.append(f"{pointer.target} {pointer.property}: bl-spec {peak.max:.3g} "
                     f"({item.relative:.2e} of its range)" if peak is not None
                     else f"{pointer.target} {pointer.property}: - ({item.note})")
    state.summary = lines[0]
    state.lines = "\n".join(lines)


def _summary(action: bpy.types.Action, rows: Sequence[Row]) -> str:
    worst = worst_rotation(rows)
    played = worst.blender_vs() if worst is not None else None  # a worst row has one
    if worst is None or played is None:
        return f"{action.name}: no rotation curves compared"
    return (f"{action.name}: Blender within {played.max:.4f}° of the spec "
            f"(worst {worst.target}, frame {played.frame:.1f})")


def _short(peak: deviation.Peak | None, unit: str) -> str:
    return "-" if peak is None else f"{peak.max:.4f}{unit}"


class GLTF_SQLERP_OT_deviation_report(bpy.types.Operator):
    """Compare the clip's CUBICSLERP extension, fallback and Blender's own F-curves over dense
    samples: the largest angle per bone and object between each pair, and where it peaks"""

    bl_idname = "gltf_sqlerp.deviation_report"
    bl_label = "glTF Deviation Report"
    # Only the panel's summary changes: nothing worth an undo step.
    bl_options = {'REGISTER'}

    action: bpy.props.StringProperty(
        name="Action", description="Imported action to report (empty: the active object's)")
    source: bpy.props.EnumProperty(name="Against", items=SOURCE_ITEMS, default='RECORD')

    def execute(self, context: bpy.types.Context) -> set[str]:
        action = _resolve(self, context)
        if action is None:
            return {'CANCELLED'}
        data = _clip_record(action)
        rows = _rows(action, data, self.source)
        pointer_rows = pointers.pointer_report(action, data)
        lines = [_header(action, data, self.source, pointer_rows)] + deviation.format_table(rows) \
            + pointers.format_table(pointer_rows)
        for line in lines:
            self.report({'INFO'}, line)
        if not bpy.app.background:  # background runs print the reports already
            print("\n".join(lines))
        store_summary(context.scene, action, rows, pointer_rows)
        return {'FINISHED'}


class GLTF_SQLERP_OT_add_keys(bpy.types.Operator):
    """Refit the clip's channels whose F-curves miss the spec by more than the tolerance, adding
    keys where Blender's curves need them"""

    bl_idname = "gltf_sqlerp.add_keys"
    bl_label = "Add Keys Where Blender Deviates"
    bl_options = {'REGISTER', 'UNDO'}

    action: bpy.props.StringProperty(
        name="Action", description="Imported action to fix (empty: the active object's)")
    source: bpy.props.EnumProperty(name="Spec", items=SOURCE_ITEMS, default='RECORD')
    tolerance: bpy.props.FloatProperty(
        name="Rotation Tolerance", description="Largest angle (degrees) between Blender's world "
        "rotations and the spec; 0 uses the tolerance chosen at import", default=0.0, min=0.0,
        max=10.0, precision=4)

    def execute(self, context: bpy.types.Context) -> set[str]:
        action = _resolve(self, context)
        if action is None:
            return {'CANCELLED'}
        refitted, skipped = add_keys(action, self.source, self.tolerance or None)
        reasons: dict[str, list[str]] = {}
        for row, reason in skipped:
            reasons.setdefault(reason, []).append(f"{row.target} {row.path}")
        for reason, names in reasons.items():
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            self.report({'WARNING'}, f"Left as is ({reason}): {shown}")
        if not refitted:
            self.report({'INFO'}, f"'{action.name}': no keys added")
            return {'CANCELLED'}
        added = sum(after - before for _, before, after in refitted)
        details = ", ".join(f"{row.target} {row.path} {before} → {after}"
                            for row, before, after in refitted)
        self.report({'INFO'}, f"'{action.name}': {added:+d} keys on {len(refitted)} "
                              f"channel{'s' * (len(refitted) != 1)} ({details})")
        data = _clip_record(action)
        store_summary(context.scene, action, _rows(action, data, self.source), pointers.pointer_report(action, data))
        return {'FINISHED'}
