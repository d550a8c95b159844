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


def curve_sets(action):
    """Every F-curve collection of ``action``: one per channelbag (slot) on 4.4+, the action's
    own on 4.2."""
    if not getattr(action, "layers", None):
        return [getattr(action, "fcurves", ())]
    return [bag.fcurves for layer in action.layers for strip in layer.strips
            for bag in getattr(strip, "channelbags", ())]


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


def interpolation_codes(names):
    """Blender's enum values for per-key interpolation names ('CONSTANT', 'LINEAR', 'BEZIER')."""
    names = np.asarray(names)
    if len(names) and (names == names[0]).all():  # the usual case: one mode for the whole curve
        return np.full(len(names), _INTERPOLATION[str(names[0])], dtype=np.int32)
    unique, per_key = np.unique(names, return_inverse=True)
    return np.array([_INTERPOLATION[name] for name in unique], dtype=np.int32)[per_key]


def write_keyframes(fcurve, co, left, right, codes):
    """Replace every key of ``fcurve``.

    ``co``, ``left``, ``right``: flat float32 (frame, value) pairs of the keys and their handles;
    ``codes``: from interpolation_codes. Handles are FREE so that Blender keeps them where they
    were put (AUTO handles would be recomputed and lose the file's tangents).
    """
    points = fcurve.keyframe_points
    count = len(codes)
    if len(points) > count:
        points.clear()
    points.add(count - len(points))  # every key is overwritten below
    bezier = bool(np.any(codes == _INTERPOLATION["BEZIER"]))
    if bezier:  # handles only shape BEZIER segments; elsewhere Blender's own ones are harmless
        free = np.full(count, _FREE, dtype=np.int32)
        points.foreach_set("handle_left_type", free)
        points.foreach_set("handle_right_type", free)
    points.foreach_set("co", co)
    if bezier:
        points.foreach_set("handle_left", left)
        points.foreach_set("handle_right", right)
    points.foreach_set("interpolation", codes)
    fcurve.update()
