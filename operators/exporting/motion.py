"""The rotation Blender plays for one object or pose bone under one action, read from its F-curves.

The exporter fits its CUBICSLERP curves to this motion at any time, subframes included, so it is
computed from the keys themselves (core.blender_model.fcurves emulates Blender's F-curve evaluation) rather
than by sampling the scene frame by frame. Whatever cannot be emulated (F-curve modifiers, cyclic
extrapolation, easing modes, drivers) is named, and the exporter then leaves that channel as the
bundled exporter wrote it; its own sampling also checks the emulation (export_rotations).
"""

from __future__ import annotations  # LayeredAction: the type checker's only; ActionFCurves: gone from 5.0

from typing import TYPE_CHECKING, cast

import bpy
import numpy as np

from ...core.blender_model import rotation_modes
from ...core.fitting import RotationMotion
from ...core.blender_model import CurveKeys
from ..clip_curves import not_emulated, keys_of
from ..fcurves import ActionSlot, SlotUser, layered

if TYPE_CHECKING:
    from ..fcurves import LayeredAction


def action_curves(action: bpy.types.Action, obj: bpy.types.Object) -> bpy.types.ActionFCurves | None:
    """The F-curve collection ``obj`` plays from ``action`` (its slot on 4.4+), or None."""
    if not layered(action):
        return action.fcurves  # Blender 4.2: legacy actions
    slot = action_slot(action, obj)
    if slot is None or not action.layers or not action.layers[0].strips:
        return None
    bag = action.layers[0].strips[0].channelbag(slot)
    return bag.fcurves if bag is not None else None


def action_slot(action: LayeredAction, obj: bpy.types.Object) -> ActionSlot | None:
    """The slot of the layered ``action`` that ``obj`` plays (or would play): its own while
    the action is active on it, else the object slot named after it, else the first object slot."""
    animation = obj.animation_data
    if animation is not None and animation.action == action:
        slot = cast(SlotUser, animation).action_slot  # Blender 4.4+: ``action`` is layered
        if slot is not None:
            return slot
    object_slots = [slot for slot in action.slots if slot.target_id_type == 'OBJECT']
    named = [slot for slot in object_slots if slot.name_display == obj.name]
    return (named or object_slots or [None])[0]


def rotation_motion(obj: bpy.types.Object, bone_name: str | None,
                    action: bpy.types.Action | None) -> RotationMotion | str:
    """The RotationMotion of ``obj`` (or of its pose bone ``bone_name``) under ``action``, or a
    string saying why it cannot be computed from the keys."""
    owner = (obj.pose.bones.get(bone_name) if obj.pose is not None else None) if bone_name else obj
    if owner is None:
        return f"bone {bone_name!r} not found on {obj.name!r}"
    mode = owner.rotation_mode
    prop, width = rotation_modes.DATA_PATHS[mode]
    prefix = f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"].' if bone_name else ""
    collection = action_curves(action, obj) if action is not None else None
    current = getattr(owner, prop)
    curves, key_frames = [], [np.empty(0)]
    for index in range(width):
        fcurve = collection.find(prefix + prop, index=index) if collection is not None else None
        if fcurve is None or not len(fcurve.keyframe_points):
            curves.append(CurveKeys.constant(current[index]))
            continue
        reason = not_emulated(fcurve)
        if reason:
            return reason
        keys = keys_of(fcurve)
        curves.append(keys)
        key_frames.append(keys.co[:, 0])
    if _driven(obj, prefix + prop):
        return f"{prefix + prop} is driven (drivers are not emulated)"
    return RotationMotion(mode, np.unique(np.concatenate(key_frames)), curves)


def _driven(obj, data_path):
    animation = obj.animation_data
    return animation is not None and any(d.data_path == data_path for d in animation.drivers)
