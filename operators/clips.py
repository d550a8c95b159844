"""The glTF clips imported onto an object, and making one of them the clip it plays.

An imported clip is an Action carrying our stored glTF data (action_data). On Blender 4.4+ one
action holds every object of a glTF animation, each in its own slot; on 4.2 each object has its
own action. Making a clip active assigns its action (and this object's slot) directly, for the
object and for its shape keys, which is what the bundled importer does for the first clip.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

import bpy

from . import action_data, fcurves


@dataclass
class Clip:
    name: str                # the glTF animation's name (its NLA track)
    action: bpy.types.Action
    slots: dict[str, str]    # id_type ('Object' | 'Key') -> slot identifier ('' on Blender 4.2)
    active: bool


def _owners(obj: bpy.types.Object) -> Iterator[tuple[bpy.types.Object | bpy.types.Key, str]]:
    """(ID, id_type) of what a clip can animate on ``obj``: the object and its shape keys."""
    yield obj, "Object"
    keys = getattr(getattr(obj, "data", None), "shape_keys", None)
    if keys is not None:
        yield keys, "Key"


def imported_clips(obj: bpy.types.Object | None) -> list[Clip]:
    """Every imported clip that animates ``obj`` (or its shape keys), in glTF order."""
    if obj is None:
        return []
    names = {owner.name: kind for owner, kind in _owners(obj)}
    clips: list[tuple[int, Clip]] = []
    for action in bpy.data.actions:
        try:
            data = action_data.load(action)  # read once per stored record: this runs on every redraw
        except action_data.RecordError:
            continue  # a newer add-on's clip (the deviation report says so when asked for it)
        if data is None:
            continue
        slots = {r.id_type: r.slot for r in data.channels if names.get(r.id_name) == r.id_type}
        if slots:
            clips.append((data.animation, Clip(data.name, action, slots, _is_playing(obj, action, slots))))
    return [clip for _, clip in sorted(clips, key=lambda pair: pair[0])]


def _is_playing(obj: bpy.types.Object, action: bpy.types.Action, slots: dict[str, str]) -> bool:
    animation = obj.animation_data
    if animation is None or animation.action != action:
        return False
    slot = getattr(animation, "action_slot", None)
    return slot is None or slot.identifier == slots.get("Object", slot.identifier)


def activate(obj: bpy.types.Object, clip: Clip) -> None:
    """Assign ``clip``'s action and slots to ``obj`` and its shape keys."""
    for owner, kind in _owners(obj):
        if kind not in clip.slots:
            continue
        animation = owner.animation_data or owner.animation_data_create()
        animation.action = clip.action
        identifier = clip.slots[kind]
        if identifier and hasattr(animation, "action_slot") and fcurves.layered(clip.action):
            # Blender 4.4+ (the checks above): the stubs' AnimData, Blender 4.2's, has no slot
            cast(fcurves.SlotUser, animation).action_slot = clip.action.slots[identifier]


class GLTF_SQLERP_OT_activate_clip(bpy.types.Operator):
    """Play this glTF clip on the active object (assigns its action and slot)"""

    bl_idname = "gltf_sqlerp.activate_clip"
    bl_label = "Play Clip"
    bl_options = {'REGISTER', 'UNDO'}

    action: bpy.props.StringProperty(name="Action", description="The clip's action")

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not imported_clips(context.active_object):
            cls.poll_message_set("The active object has no imported glTF clip")
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set[str]:
        obj = context.active_object
        if obj is None:  # poll asks for one; a script's context may have none
            self.report({'ERROR'}, "no active object")
            return {'CANCELLED'}
        clip = next((c for c in imported_clips(obj) if c.action.name == self.action), None)
        if clip is None:
            self.report({'ERROR'}, f"'{self.action}' is not a glTF clip of '{obj.name}'")
            return {'CANCELLED'}
        activate(obj, clip)
        if context.view_layer is not None:
            context.view_layer.update()
        self.report({'INFO'}, f"'{obj.name}' plays '{clip.name}'")
        return {'FINISHED'}
