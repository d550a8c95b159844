"""What an import left in Blender, as plain Python data (not a test module).

``inventory()`` reads the current file through bpy only, never through the add-on, so that two
imports of one file (the bundled importer alone, and ours) can be compared value by value. It is a
flat dict: a key names one thing (a tuple starting with its kind, then the ID and the field), its
value is plain Python (numbers, strings, tuples), so that comparing two inventories is a dict
comparison.

Kinds of keys (ID kinds are Blender's ``id_type`` names: 'OBJECT', 'MATERIAL', 'KEY', ...):

- ("scene", field): frame range, rate, its objects, the selection and the active object.
- ("names", ID kind): the names of every ID of that kind (a node tree embedded in a material is
  "MATERIAL:<material>:node_tree").
- ("object", name, field): type, parent and how it hangs there, data, transforms, matrix_parent_inverse,
  matrix_world at the scene's first frame, collections, modifiers, constraints, vertex groups.
- ("bone", armature, bone, field): the rest (head, tail, roll matrix, parent, connection).
- ("pose", object, bone, field): rotation mode and the pose's transforms.
- ("mesh", name, field), ("shape key", key, block, field): counts, a checksum of the positions,
  shape key names, values and relations, materials.
- ("material", name, field), ("node", owner, node, field), ("links", owner): a material's settings,
  its node tree's nodes (type, settings, unlinked input values) and links; ``owner`` is
  "MATERIAL:<name>" for a material's embedded tree, "NODETREE:<name>" for a node group.
- ("camera" | "light", name, field): their settings; ("image", name, field).
- ("action", name, field): its slots (identifier, ID type), or its id_root before slotted actions.
- ("fcurve", action, slot, id_type, data_path, index, field): group, keys (every key's frame,
  value, handles, handle types, interpolation, easing), extrapolation, modifiers.
- ("animation", owner, field) and ("strip", owner, track, strip, field): an ID's active action and
  slot, its NLA tracks and their strips.
- ("custom", owner, property): custom properties on every ID.

A property an F-curve animates is recorded as ``ANIMATED`` instead of its value at the current
frame: its keys are compared instead, and they are the whole truth of what it plays.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

ANIMATED = "<animated>"
Inventory = dict[tuple, Any]

# Settings that are not the import's doing (UI state, values derived from others, run-time ids).
_SKIPPED = {"rna_type", "name", "name_full", "is_evaluated", "original", "users", "use_fake_user",
            "use_extra_user", "is_embedded_data", "is_missing", "is_runtime_data", "is_editmode",
            "tag", "is_library_indirect", "library", "library_weak_reference", "asset_data",
            "override_library", "preview", "session_uid", "id_type", "animation_data", "node_tree",
            "select", "dimensions", "is_dirty", "bindcode", "frame_duration", "is_active_output",
            "bl_description", "bl_icon", "bl_idname", "bl_label", "bl_static_type", "bl_width_default",
            "bl_width_min", "bl_width_max", "bl_height_default", "bl_height_min", "bl_height_max",
            "use_nodes"}  # use_nodes: always on, deprecated from Blender 5.0
_LEAF = ("BOOLEAN", "INT", "FLOAT", "STRING", "ENUM")
_KEY_FIELDS = (("co", 2), ("handle_left", 2), ("handle_right", 2), ("interpolation", 1),
               ("handle_left_type", 1), ("handle_right_type", 1), ("easing", 1))
_PROPERTY_AT_END = re.compile(r"^(.*?)\.?([A-Za-z_]\w*)$")


def inventory(bpy: Any) -> Inventory:
    """The inventory of ``bpy.data`` with the current scene at its first frame."""
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    animated = _animated_properties(bpy)
    found: Inventory = {}
    found.update(_scene(bpy, scene))
    for owner, _ in _ids(bpy):
        kind, _, name = owner.partition(":")
        found.setdefault(("names", kind), []).append(name)
    for kind in {k for k in found if k[0] == "names"}:
        found[kind] = tuple(sorted(found[kind]))
    for obj in bpy.data.objects:
        found.update(_object(obj, animated))
    for armature in bpy.data.armatures:
        found.update(_bones(armature))
    for mesh in bpy.data.meshes:
        found.update(_mesh(mesh))
    for key in bpy.data.shape_keys:
        found.update(_shape_keys(key, animated))
    for material in bpy.data.materials:
        found.update(_settings(("material", material.name), material, animated))
        if material.node_tree is not None:
            found.update(_node_tree(f"MATERIAL:{material.name}", material.node_tree, animated))
    for group in bpy.data.node_groups:
        found.update(_node_tree(f"NODETREE:{group.name}", group, animated))
    for kind, collection in (("camera", bpy.data.cameras), ("light", bpy.data.lights)):
        for data in collection:
            found.update(_settings((kind, data.name), data, animated))
    for image in bpy.data.images:
        found.update(_image(image))
    for action in bpy.data.actions:
        found.update(_action(action))
    for owner, data in _ids(bpy):
        found.update(_animation(owner, data))
        found.update(_custom(owner, data))
    return found


def _ids(bpy: Any) -> Iterator[tuple[str, Any]]:
    """(owner label, ID) of every ID an import makes, embedded node trees included."""
    for collection in (bpy.data.scenes, bpy.data.collections, bpy.data.objects, bpy.data.meshes,
                       bpy.data.armatures, bpy.data.shape_keys, bpy.data.materials, bpy.data.cameras,
                       bpy.data.lights, bpy.data.images, bpy.data.actions, bpy.data.node_groups,
                       bpy.data.textures, bpy.data.worlds):
        for data in collection:
            yield f"{data.id_type}:{data.name}", data
    for material in bpy.data.materials:
        if material.node_tree is not None:
            yield f"MATERIAL:{material.name}:node_tree", material.node_tree


def _animated_properties(bpy: Any) -> set[tuple[int, str]]:
    """(struct pointer, property) of every property an F-curve of an assigned action animates."""
    found: set[tuple[int, str]] = set()
    for _, data in _ids(bpy):
        for action, slot in _assigned(getattr(data, "animation_data", None)):
            for identifier, _, curve in _curves(action):
                if slot is not None and identifier != slot:
                    continue
                match = _PROPERTY_AT_END.match(curve.data_path)
                if match is None:
                    continue  # a custom property ('["name"]'): recorded with the ID's properties
                try:
                    struct = data.path_resolve(match[1]) if match[1] else data
                except ValueError:
                    continue  # a path that resolves to nothing animates nothing
                found.add((struct.as_pointer(), match[2]))
    return found


def _assigned(animation_data: Any) -> list[tuple[Any, str | None]]:
    """(action, slot identifier or None) of the active action and of every NLA strip."""
    if animation_data is None:
        return []
    found = []
    if animation_data.action is not None:
        found.append((animation_data.action, _slot_name(animation_data)))
    for track in animation_data.nla_tracks:
        for strip in track.strips:
            if strip.action is not None:
                found.append((strip.action, _slot_name(strip)))
    return found


def _slot_name(user: Any) -> str | None:
    slot = getattr(user, "action_slot", None)  # absent before slotted actions (4.2)
    return slot.identifier if slot is not None else None


def _curves(action: Any) -> Iterator[tuple[str, str, Any]]:
    """(slot identifier, ID type, F-curve) of every F-curve of the action;
    before slotted actions, one unnamed slot of the action's id_root."""
    slots = getattr(action, "slots", None)
    if slots is None:
        for curve in action.fcurves:
            yield "", action.id_root, curve
        return
    for layer in action.layers:
        for strip in layer.strips:
            for slot in slots:
                bag = strip.channelbag(slot)
                if bag is not None:
                    for curve in bag.fcurves:
                        yield slot.identifier, slot.target_id_type, curve


def plain(value: Any) -> Any:
    """A property value as plain Python: numbers, strings, tuples (matrices row by row)."""
    if hasattr(value, "to_dict"):
        return {k: plain(v) for k, v in value.to_dict().items()}
    if hasattr(value, "to_list"):
        return plain(value.to_list())
    if isinstance(value, (str, bytes, bool, int, float)) or value is None:
        return value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if hasattr(value, "name") and hasattr(value, "id_type"):  # an ID: by name
        return f"{value.id_type}:{value.name}"
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(value))
    try:
        return tuple(plain(v) for v in value)
    except TypeError:
        return repr(value)


def _settings(prefix: tuple, struct: Any, animated: set[tuple[int, str]],
              skipped: Iterable[str] = ()) -> Inventory:
    """Every setting of ``struct`` (numbers, strings, enums, ID pointers by name) under ``prefix``."""
    found: Inventory = {}
    pointer = struct.as_pointer()
    leave = _SKIPPED.union(skipped)
    for prop in struct.bl_rna.properties:
        name = prop.identifier
        if name in leave or (prop.type not in _LEAF and prop.type != "POINTER"):
            continue
        if (pointer, name) in animated:
            found[(*prefix, name)] = ANIMATED
            continue
        value = getattr(struct, name, None)
        if prop.type == "POINTER":
            if value is None or hasattr(value, "id_type"):
                found[(*prefix, name)] = plain(value)
            continue
        found[(*prefix, name)] = plain(value)
    return found


def _scene(bpy: Any, scene: Any) -> Inventory:
    active = bpy.context.view_layer.objects.active
    return {("scene", "frame_start"): scene.frame_start, ("scene", "frame_end"): scene.frame_end,
            ("scene", "fps"): scene.render.fps, ("scene", "fps_base"): scene.render.fps_base,
            ("scene", "objects"): tuple(sorted(o.name for o in scene.objects)),
            ("scene", "selected"): tuple(sorted(o.name for o in scene.objects if o.select_get())),
            ("scene", "active"): active.name if active is not None else None}


def _object(obj: Any, animated: set[tuple[int, str]]) -> Inventory:
    key = ("object", obj.name)
    pointer = obj.as_pointer()
    found: Inventory = {
        (*key, "type"): obj.type,
        (*key, "parent"): obj.parent.name if obj.parent is not None else None,
        (*key, "parent_type"): obj.parent_type,
        (*key, "parent_bone"): obj.parent_bone,
        (*key, "data"): plain(obj.data),
        (*key, "matrix_parent_inverse"): plain(obj.matrix_parent_inverse),
        (*key, "matrix_world"): plain(obj.matrix_world),
        (*key, "collections"): tuple(sorted(c.name for c in obj.users_collection)),
        (*key, "modifiers"): tuple((m.name, m.type, plain(getattr(m, "object", None))) for m in obj.modifiers),
        (*key, "constraints"): tuple((c.name, c.type) for c in obj.constraints),
        (*key, "vertex_groups"): tuple(g.name for g in obj.vertex_groups),
        (*key, "material_slots"): tuple((s.link, plain(s.material)) for s in obj.material_slots),
    }
    for name in ("location", "rotation_mode", "rotation_quaternion", "rotation_euler", "scale",
                 "delta_location", "delta_rotation_quaternion", "delta_scale", "hide_render",
                 "hide_viewport", "display_type", "empty_display_type", "empty_display_size"):
        found[(*key, name)] = ANIMATED if (pointer, name) in animated else plain(getattr(obj, name))
    rest = getattr(obj, "gltf2_animation_rest", None)  # the bundled importer's own record
    if rest is not None:
        found[(*key, "gltf2_animation_rest")] = plain(rest)
    if obj.pose is not None:
        for bone in obj.pose.bones:
            bone_pointer = bone.as_pointer()
            for name in ("rotation_mode", "location", "rotation_quaternion", "rotation_euler", "scale"):
                value = ANIMATED if (bone_pointer, name) in animated else plain(getattr(bone, name))
                found[("pose", obj.name, bone.name, name)] = value
            found[("pose", obj.name, bone.name, "constraints")] = tuple(
                (c.name, c.type) for c in bone.constraints)
    return found


def _bones(armature: Any) -> Inventory:
    found: Inventory = {("armature", armature.name, "bones"): tuple(b.name for b in armature.bones)}
    for bone in armature.bones:
        key = ("bone", armature.name, bone.name)
        found[(*key, "parent")] = bone.parent.name if bone.parent is not None else None
        for name in ("head_local", "tail_local", "matrix_local", "use_connect", "use_deform",
                     "inherit_scale", "use_inherit_rotation", "use_local_location"):
            found[(*key, name)] = plain(getattr(bone, name))
    return found


def _mesh(mesh: Any) -> Inventory:
    key = ("mesh", mesh.name)
    positions = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", positions)
    return {
        (*key, "vertices"): len(mesh.vertices), (*key, "polygons"): len(mesh.polygons),
        (*key, "positions"): zlib.crc32(positions.tobytes()),
        (*key, "shape_keys"): (plain(mesh.shape_keys),
                               tuple(b.name for b in mesh.shape_keys.key_blocks) if mesh.shape_keys else ()),
        (*key, "materials"): tuple(plain(m) for m in mesh.materials),
        (*key, "uv_layers"): tuple(u.name for u in mesh.uv_layers),
        (*key, "attributes"): tuple(sorted((a.name, a.domain, a.data_type) for a in mesh.attributes)),
    }


def _shape_keys(key: Any, animated: set[tuple[int, str]]) -> Inventory:
    found: Inventory = {("shape key", key.name, "", "user"): plain(key.user),
                        ("shape key", key.name, "", "use_relative"): key.use_relative}
    for block in key.key_blocks:
        found.update(_settings(("shape key", key.name, block.name), block, animated,
                               skipped=("data", "points")))
    return found


def _node_tree(owner: str, tree: Any, animated: set[tuple[int, str]]) -> Inventory:
    found: Inventory = {("nodes", owner): tuple(sorted((n.name, n.bl_idname) for n in tree.nodes))}
    for node in tree.nodes:
        key = ("node", owner, node.name)
        found.update(_settings(key, node, animated))
        found[(*key, "parent")] = node.parent.name if node.parent is not None else None
        for index, socket in enumerate(node.inputs):
            if socket.is_linked or not hasattr(socket, "default_value"):
                continue
            animated_value = (socket.as_pointer(), "default_value") in animated
            found[(*key, "input", index, socket.identifier)] = (
                ANIMATED if animated_value else plain(socket.default_value))
    found[("links", owner)] = tuple(sorted(
        (link.from_node.name, link.from_socket.identifier, link.to_node.name, link.to_socket.identifier)
        for link in tree.links))
    return found


def _image(image: Any) -> Inventory:
    key = ("image", image.name)
    return {(*key, "size"): tuple(image.size), (*key, "source"): image.source,
            (*key, "filepath"): image.filepath, (*key, "packed"): image.packed_file is not None,
            (*key, "colorspace"): image.colorspace_settings.name, (*key, "alpha_mode"): image.alpha_mode}


def _action(action: Any) -> Inventory:
    key = ("action", action.name)
    slots = getattr(action, "slots", None)
    found: Inventory = {
        (*key, "slots"): tuple((s.identifier, s.target_id_type) for s in slots) if slots is not None
        else (("", action.id_root),),
        (*key, "use_frame_range"): action.use_frame_range,
        (*key, "use_cyclic"): action.use_cyclic,
    }
    curves = []
    for slot, id_type, curve in _curves(action):
        curves.append((slot, curve.data_path, curve.array_index))
        ckey = ("fcurve", action.name, slot, id_type, curve.data_path, curve.array_index)
        found[(*ckey, "group")] = curve.group.name if curve.group is not None else None
        found[(*ckey, "extrapolation")] = curve.extrapolation
        found[(*ckey, "modifiers")] = tuple(m.type for m in curve.modifiers)
        found[(*ckey, "mute")] = curve.mute
        found[(*ckey, "auto_smoothing")] = curve.auto_smoothing
        found[(*ckey, "keys")] = _keys(curve)
    found[(*key, "fcurves")] = tuple(sorted(curves))
    return found


def _keys(curve: Any) -> tuple:
    """Every key of the F-curve: (frame, value, left handle, right handle, interpolation, handle
    types, easing), read in bulk."""
    points = curve.keyframe_points
    columns = []
    for name, width in _KEY_FIELDS:
        values = np.empty(len(points) * width, dtype=np.float64 if width == 2 else np.int64)
        points.foreach_get(name, values)
        columns.append(values.reshape(len(points), width))
    return tuple(map(tuple, np.hstack([c.astype(np.float64) for c in columns]).tolist()))


def _animation(owner: str, data: Any) -> Inventory:
    animation_data = getattr(data, "animation_data", None)
    if animation_data is None:
        return {}
    key = ("animation", owner)
    found: Inventory = {
        (*key, "action"): plain(animation_data.action),
        (*key, "action_slot"): _slot_name(animation_data),
        (*key, "tracks"): tuple((t.name, t.mute, t.lock, t.is_solo) for t in animation_data.nla_tracks),
        (*key, "blending"): (animation_data.action_extrapolation, animation_data.action_blend_type,
                             animation_data.action_influence, animation_data.use_nla),
    }
    for track in animation_data.nla_tracks:
        for strip in track.strips:
            skey = ("strip", owner, track.name, strip.name)
            found[(*skey, "action")] = plain(strip.action)
            found[(*skey, "action_slot")] = _slot_name(strip)
            for name in ("mute", "blend_type", "extrapolation", "scale", "repeat", "frame_start",
                         "frame_end", "action_frame_start", "action_frame_end"):
                found[(*skey, name)] = plain(getattr(strip, name))
    return found


def _custom(owner: str, data: Any) -> Inventory:
    return {("custom", owner, name): plain(data[name]) for name in data.keys()}
