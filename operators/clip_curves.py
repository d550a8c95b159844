"""The F-curves of an imported clip, channel by channel: read as the core's CurveKeys (for the
deviation report; ``pointer_keys`` for the pointer F-curves a clip keeps references of), and
rewritten from a stored sampler (for "Add Keys").

Reading never creates anything (no channelbag, no F-curve), so a report leaves the file as it was.
"""

from __future__ import annotations  # bpy.types.ActionFCurves is the 4.2 stubs' (gone from Blender 5.0)

from collections.abc import Sequence

import bpy
import numpy as np

from ..core.blender_model import ChannelRecord, CurveKeys, PointerRecord, target_name
from . import fcurves
from .fcurves import ActionSlot

_NAMES = {item.value: item.identifier
          for item in fcurves.enum_property(bpy.types.Keyframe, "interpolation").enum_items}


def _slot(action: bpy.types.Action, record: ChannelRecord | PointerRecord) -> ActionSlot | None:
    """The action slot of a record, or None on Blender 4.2 (legacy actions keep no slots). A
    record written on 4.2 names no slot: its action, converted since, has one slot."""
    slots: fcurves.ActionSlots | None = getattr(action, "slots", None)
    if slots is None:
        return None
    if record.slot:
        return slots.get(record.slot)
    return slots[0] if len(slots) else None


def _existing_curves(action: bpy.types.Action,
                     record: ChannelRecord | PointerRecord) -> bpy.types.ActionFCurves | None:
    """The record's F-curve collection if it exists (None when its slot has no channelbag)."""
    if not fcurves.layered(action):
        return action.fcurves
    slot = _slot(action, record)
    if slot is None or not action.layers or not action.layers[0].strips:
        return None
    bag = action.layers[0].strips[0].channelbag(slot)
    return bag.fcurves if bag is not None else None


def _target_id(record):
    ids = bpy.data.objects if record.id_type == "Object" else bpy.data.shape_keys
    return ids.get(record.id_name)


def _current_value(record, data_path, index):
    """The property's own value: what Blender plays where no F-curve drives it."""
    target = _target_id(record)
    if target is None:
        return None
    try:
        value = target.path_resolve(data_path)
    except ValueError:
        return None
    return float(value[index]) if hasattr(value, "__len__") else float(value)


def keys_of(fcurve: bpy.types.FCurve) -> CurveKeys:
    """An F-curve's keys as CurveKeys, read in bulk."""
    points = fcurve.keyframe_points
    count = len(points)
    arrays = []
    for name in ("co", "handle_left", "handle_right"):
        pairs = np.empty(2 * count, dtype=np.float32)
        points.foreach_get(name, pairs)
        arrays.append(pairs.reshape(-1, 2).astype(np.float64))
    codes = np.empty(count, dtype=np.int32)
    points.foreach_get("interpolation", codes)
    unique, per_key = np.unique(codes, return_inverse=True)
    co, left, right = arrays
    return CurveKeys(co, left, right, np.array([_NAMES[int(c)] for c in unique])[per_key.reshape(-1)])


def channel_keys(action: bpy.types.Action, record: ChannelRecord) -> list[CurveKeys | None] | str:
    """Per component of ``record``, the CurveKeys Blender plays (None where the component has no
    property), or a string saying why its curves cannot be emulated (core.blender_model.deviation's input)."""
    if record.slot and hasattr(action, "slots") and _slot(action, record) is None:
        return f"slot {record.slot} is not in the action"
    curves = _existing_curves(action, record)
    result: list[CurveKeys | None] = []
    for component in record.curves:
        data_path, index = component.data_path, component.index
        if index < 0:
            result.append(None)
            continue
        fcurve = curves.find(data_path, index=index) if curves is not None else None
        if fcurve is not None and len(fcurve.keyframe_points):
            reason = not_emulated(fcurve)
            if reason:
                return reason
            result.append(keys_of(fcurve))
            continue
        # No F-curve (or an empty one): Blender leaves the property at its own value.
        value = _current_value(record, data_path, index)
        if value is None:
            return f"{record.id_name} {data_path} not found"
        result.append(CurveKeys.constant(value))
    return result


def pointer_keys(action: bpy.types.Action, record: PointerRecord) -> list[CurveKeys | None] | str:
    """Per F-curve of a pointer record, its CurveKeys (None where it is gone or has no keys), or a
    string saying why its curves cannot be read (core.blender_model.pointer_deviations' input)."""
    if record.slot and hasattr(action, "slots") and _slot(action, record) is None:
        return f"slot {record.slot} is not in the action"
    curves = _existing_curves(action, record)
    result: list[CurveKeys | None] = []
    for target in record.curves:
        fcurve = curves.find(target.data_path, index=target.index) if curves is not None else None
        if fcurve is None or not len(fcurve.keyframe_points):
            result.append(None)
            continue
        reason = not_emulated(fcurve)
        if reason:
            return reason
        result.append(keys_of(fcurve))
    return result


def not_emulated(fcurve: bpy.types.FCurve) -> str:
    """Why the preview cannot play ``fcurve`` as Blender does (muted, modifiers, extrapolation),
    or "" when it can."""
    name = f"{fcurve.data_path}[{fcurve.array_index}]"
    if fcurve.mute:
        return f"{name} is muted"
    if any(not modifier.mute for modifier in fcurve.modifiers):
        return f"{name} has F-curve modifiers (not emulated)"
    if fcurve.extrapolation != 'CONSTANT':
        return f"{name} extrapolates {fcurve.extrapolation} (not emulated)"
    return ""


def rewrite(action: bpy.types.Action, record: ChannelRecord,
            curves: Sequence[CurveKeys | None]) -> tuple[int, int]:
    """Replace the record's F-curves with ``curves`` (per component CurveKeys or None, as
    core.blender_model.deviation.planned_curves gives them); returns (keys before, keys after) summed over the
    components written. Missing F-curves are created in the importer's groups."""
    slot = _slot(action, record)
    group = _group(record)
    before = after = 0
    for target, keys in zip(record.curves, curves):
        if keys is None:
            continue
        fcurve = fcurves.ensure_fcurve(action, slot, target.data_path, target.index, group)
        before += len(fcurve.keyframe_points)
        co, left, right = (np.asarray(a, dtype=np.float32).ravel()
                           for a in (keys.co, keys.handle_left, keys.handle_right))
        fcurves.write_keyframes(fcurve, co, left, right, fcurves.interpolation_codes(keys.interpolation))
        after += len(keys.co)
    return before, after


def _group(record):
    """The F-curve group the bundled importer uses: the bone's name, or 'Object Transforms'."""
    if record.id_type == "Key":
        return ""
    if record.data_path.startswith("pose.bones["):
        return target_name(record)
    return "Object Transforms"
