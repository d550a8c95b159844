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


class CurveIndex:
    """The F-curves of one (action, slot) by (data_path, index), read once: an import writes
    hundreds of curves into the same slot, and each ``curves.find`` walks the whole collection
    (and ``curves_of`` three RNA levels) again."""

    def __init__(self, action, slot):
        self.action, self.slot = action, slot
        self.curves = {(c.data_path, c.array_index): c for c in curves_of(action, slot)}

    def ensure(self, data_path, index, group=""):
        """ensure_fcurve() through the index."""
        fcurve = self.curves.get((data_path, index))
        if fcurve is None:
            fcurve = self.curves[data_path, index] = ensure_fcurve(self.action, self.slot,
                                                                   data_path, index, group)
        return fcurve


def interpolation_codes(names):
    """Blender's enum values for per-key interpolation names ('CONSTANT', 'LINEAR', 'BEZIER')."""
    names = np.asarray(names)
    if len(names) and (names == names[0]).all():  # the usual case: one mode for the whole curve
        return np.full(len(names), _INTERPOLATION[str(names[0])], dtype=np.int32)
    unique, per_key = np.unique(names, return_inverse=True)
    return np.array([_INTERPOLATION[name] for name in unique], dtype=np.int32)[per_key]


def has_bezier(codes) -> bool:
    """Whether any segment of ``codes`` (interpolation_codes) is BEZIER: only then are handles
    written."""
    return bool((codes == _INTERPOLATION["BEZIER"]).any())


def write_keyframes(fcurve, co, left, right, codes, bezier=None):
    """Replace every key of ``fcurve``.

    ``co``, ``left``, ``right``: flat float32 (frame, value) pairs of the keys and their handles;
    ``codes``: from interpolation_codes; ``bezier``: has_bezier(codes), if known. Handles are FREE
    so that Blender keeps them where they were put (AUTO handles would be recomputed and lose the
    file's tangents).
    """
    points = fcurve.keyframe_points
    count = len(codes)
    if len(points) > count:
        points.clear()
    points.add(count - len(points))  # every key is overwritten below
    bezier = has_bezier(codes) if bezier is None else bezier
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
