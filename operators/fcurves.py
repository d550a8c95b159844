"""F-curves across Blender versions, and writing whole keyframe sets in bulk.

Blender 4.2 keeps F-curves directly on the action; 4.4+ keeps them in a channelbag per action slot
(and 5.0 removed ``action.fcurves``). Everything else in the add-on asks this module for the
F-curves of (action, slot) and never touches the difference.
"""

import bpy
import numpy as np

_INTERPOLATION = {item.identifier: item.value
                  for item in bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items}
_FREE = bpy.types.Keyframe.bl_rna.properties["handle_left_type"].enum_items["FREE"].value


def curves_of(action, slot):
    """The F-curve collection of ``slot`` in ``action`` (created if missing on 4.4+)."""
    if slot is None or not hasattr(action, "layers"):
        return action.fcurves  # Blender 4.2: legacy actions
    if not action.layers:
        action.layers.new("layer0").strips.new(type='KEYFRAME')
    return action.layers[0].strips[0].channelbag(slot, ensure=True).fcurves


def _groups_of(action, slot):
    if slot is None or not hasattr(action, "layers"):
        return action.groups
    return action.layers[0].strips[0].channelbag(slot, ensure=True).groups


def ensure_fcurve(action, slot, data_path, index, group=""):
    """The F-curve of ``data_path[index]``, created in ``group`` when the importer made none."""
    curves = curves_of(action, slot)
    fcurve = curves.find(data_path, index=index)
    if fcurve is not None:
        return fcurve
    if slot is None or not hasattr(action, "layers"):
        return curves.new(data_path, index=index, action_group=group)
    fcurve = curves.new(data_path, index=index)
    if group:
        groups = _groups_of(action, slot)
        fcurve.group = groups.get(group) or groups.new(group)
    return fcurve


def write_keyframes(fcurve, frames, values, left, right, interpolation):
    """Replace every key of ``fcurve``.

    ``frames``/``values``: (m,); ``left``/``right``: (m, 2) handle (frame, value);
    ``interpolation``: m names ('CONSTANT', 'LINEAR', 'BEZIER'). Handles are FREE so that Blender
    keeps them where they were put (AUTO handles would be recomputed and lose the file's tangents).
    """
    points = fcurve.keyframe_points
    count = len(frames)
    if hasattr(points, "clear"):
        points.clear()
    else:
        while len(points):
            points.remove(points[-1], fast=True)
    points.add(count)
    points.foreach_set("handle_left_type", np.full(count, _FREE, dtype=np.int32))
    points.foreach_set("handle_right_type", np.full(count, _FREE, dtype=np.int32))
    points.foreach_set("co", np.column_stack([frames, values]).astype(np.float32).ravel())
    points.foreach_set("handle_left", np.asarray(left, dtype=np.float32).ravel())
    points.foreach_set("handle_right", np.asarray(right, dtype=np.float32).ravel())
    names, per_key = np.unique(np.asarray(interpolation), return_inverse=True)
    codes = np.array([_INTERPOLATION[name] for name in names], dtype=np.int32)[per_key]
    points.foreach_set("interpolation", codes)
    fcurve.update()
