"""F-curves across Blender versions, and writing whole keyframe sets in bulk.

Blender 4.2 keeps F-curves directly on the action; 4.4+ keeps them in a channelbag per action slot
(and 5.0 removed ``action.fcurves``). Everything else in the add-on asks this module for the
F-curves of (action, slot) and never touches the difference.
"""

# Annotations unevaluated: LayeredAction exists for the type checker only, and the 4.2 stubs'
# ActionFCurves and ActionGroups are gone from Blender 5.0.
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Literal, Protocol, TypeGuard, cast, overload

import bpy
import numpy as np
import numpy.typing as npt


def enum_property(struct: type[bpy.types.bpy_struct], name: str) -> bpy.types.EnumProperty:
    """The RNA definition of an enum property (``bl_rna.properties`` is typed as the base Property)."""
    return cast(bpy.types.EnumProperty, struct.bl_rna.properties[name])


_INTERPOLATION = {item.identifier: item.value
                  for item in enum_property(bpy.types.Keyframe, "interpolation").enum_items}
_FREE = enum_property(bpy.types.Keyframe, "handle_left_type").enum_items["FREE"].value


# Blender 4.4+ keeps F-curves in layered actions with slots. The editor stubs are Blender 4.2's, which
# has neither: these protocols are the part of that API the add-on uses.
class ActionSlot(Protocol):
    """bpy.types.ActionSlot (Blender 4.4+)."""
    @property
    def identifier(self) -> str: ...
    @property
    def name_display(self) -> str: ...
    @property
    def target_id_type(self) -> str: ...


class Channelbag(Protocol):
    """bpy.types.ActionChannelbag (4.4+): one slot's F-curves and groups in a strip."""
    @property
    def fcurves(self) -> bpy.types.ActionFCurves: ...  # 4.4's new() takes no action_group
    @property
    def groups(self) -> bpy.types.ActionGroups: ...


class KeyframeStrip(Protocol):
    """bpy.types.ActionKeyframeStrip (4.4+)."""
    @property
    def channelbags(self) -> Sequence[Channelbag]: ...
    if TYPE_CHECKING:  # @overload at run time made the bpy module hang at exit (Blender 4.5, measured)
        @overload
        def channelbag(self, slot: ActionSlot, ensure: Literal[True]) -> Channelbag: ...
        @overload
        def channelbag(self, slot: ActionSlot, ensure: bool = False) -> Channelbag | None: ...


class ActionStrips(Protocol):
    def __getitem__(self, index: int) -> KeyframeStrip: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[KeyframeStrip]: ...
    def new(self, type: str) -> KeyframeStrip: ...


class ActionLayer(Protocol):
    @property
    def strips(self) -> ActionStrips: ...


class ActionLayers(Protocol):
    def __getitem__(self, index: int) -> ActionLayer: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[ActionLayer]: ...
    def new(self, name: str) -> ActionLayer: ...


class ActionSlots(Protocol):
    def __getitem__(self, key: int | str) -> ActionSlot: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[ActionSlot]: ...
    def get(self, key: str) -> ActionSlot | None: ...


class SlotUser(Protocol):
    """bpy.types.AnimData or NlaStrip on Blender 4.4+: the slot of the action it plays."""
    action_slot: ActionSlot | None


if TYPE_CHECKING:
    class LayeredAction(bpy.types.Action):
        """bpy.types.Action from Blender 4.4 on: layers of strips, a channelbag per slot."""
        layers: ActionLayers
        slots: ActionSlots


def layered(action: bpy.types.Action) -> TypeGuard[LayeredAction]:
    """Whether ``action`` is a layered action (Blender 4.4+); 4.2 keeps F-curves on the action."""
    return hasattr(action, "layers")


def curves_of(action: bpy.types.Action, slot: ActionSlot | None) -> bpy.types.ActionFCurves:
    """The F-curve collection of ``slot`` in ``action`` (created if missing on 4.4+)."""
    if slot is None or not layered(action):
        return action.fcurves  # Blender 4.2: legacy actions
    if not action.layers:
        action.layers.new("layer0").strips.new(type='KEYFRAME')
    return action.layers[0].strips[0].channelbag(slot, ensure=True).fcurves


def curve_sets(action: bpy.types.Action) -> list[Iterable[bpy.types.FCurve]]:
    """Every F-curve collection of ``action``: one per channelbag (slot) on 4.4+, the action's
    own on 4.2."""
    if not layered(action) or not action.layers:
        return [getattr(action, "fcurves", ())]
    return [bag.fcurves for layer in action.layers for strip in layer.strips
            for bag in getattr(strip, "channelbags", ())]


def _groups_of(action: bpy.types.Action, slot: ActionSlot | None) -> bpy.types.ActionGroups:
    if slot is None or not layered(action):
        return action.groups
    return action.layers[0].strips[0].channelbag(slot, ensure=True).groups


def ensure_fcurve(action: bpy.types.Action, slot: ActionSlot | None, data_path: str, index: int,
                  group: str = "") -> bpy.types.FCurve:
    """The F-curve of ``data_path[index]``, created in ``group`` when the importer made none."""
    curves = curves_of(action, slot)
    fcurve = curves.find(data_path, index=index)
    if fcurve is not None:
        return fcurve
    if slot is None or not layered(action):
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

    def __init__(self, action: bpy.types.Action, slot: ActionSlot | None):
        self.action, self.slot = action, slot
        self.curves: dict[tuple[str, int], bpy.types.FCurve] = {(c.data_path, c.array_index): c
                                                                for c in curves_of(action, slot)}
        self.written: set[tuple[str, int]] = set()

    def ensure(self, data_path: str, index: int, group: str = "") -> bpy.types.FCurve:
        """ensure_fcurve() through the index."""
        fcurve = self.curves.get((data_path, index))
        if fcurve is None:
            fcurve = self.curves[data_path, index] = ensure_fcurve(self.action, self.slot,
                                                                   data_path, index, group)
        self.written.add((data_path, index))
        return fcurve

    def remove_unwritten(self) -> None:
        """Remove every F-curve of the slot that ``ensure`` did not hand out."""
        collection = curves_of(self.action, self.slot)
        for key in [k for k in self.curves if k not in self.written]:
            collection.remove(self.curves.pop(key))


def interpolation_codes(names: Sequence[str] | np.ndarray) -> npt.NDArray[np.int32]:
    """Blender's enum values for per-key interpolation names ('CONSTANT', 'LINEAR', 'BEZIER')."""
    names = np.asarray(names)
    if len(names) and (names == names[0]).all():  # the usual case: one mode for the whole curve
        return np.full(len(names), _INTERPOLATION[str(names[0])], dtype=np.int32)
    unique, per_key = np.unique(names, return_inverse=True)
    return np.array([_INTERPOLATION[name] for name in unique], dtype=np.int32)[per_key]


def has_bezier(codes: npt.NDArray[np.int32]) -> bool:
    """Whether any segment of ``codes`` (interpolation_codes) is BEZIER: only then are handles
    written."""
    return bool((codes == _INTERPOLATION["BEZIER"]).any())


def write_keyframes(fcurve: bpy.types.FCurve, co: npt.NDArray[np.float32], left: npt.NDArray[np.float32],
                    right: npt.NDArray[np.float32], codes: npt.NDArray[np.int32],
                    bezier: bool | None = None) -> None:
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
