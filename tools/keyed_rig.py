"""Blender-keyed test rigs for the exporter: keys as animators set them.

``build(...)`` makes, in the current scene, an armature with a chain of bones and a few empties,
each animated by one action with Bezier keys (auto-clamped handles) every 4 to 12 frames, in every
rotation mode (quaternion, the six Euler orders, axis-angle), with large turns between keys (up to
``max_turn_deg``) and, optionally, an action that starts at a negative frame. ``build_tree(...)``
makes a 69-bone character tree 19 bones deep (spine, limbs, fingers, tail), keyed every 6 to 10
frames. ``build_arms(seed)`` makes what a new user tries: a 4-bone arm and an empty at 29.97 fps,
one action from a negative frame and one on quarter frames, some curves with FREE handles (set
here, broken tangents). ``build_bone_meshes(dense)`` makes a character whose armature object is
turned and scaled 0.01 (an FBX import) with box meshes parented to bones, keyed by an animator or
baked to a key every frame. Keys are written in bulk (keyframe_points.add + foreach_set), as the
add-on does. Deterministic for a given seed.
"""

from typing import cast

import bpy
import numpy as np

MODES = ("QUATERNION", "XYZ", "ZXY", "AXIS_ANGLE", "YZX", "XZY", "YXZ", "ZYX")


def _scene() -> bpy.types.Scene:
    scene = bpy.context.scene
    assert scene is not None, "bpy always has a scene"
    return scene


def key_frames(rng, count, first, gaps=(4, 12)):
    """``count`` key frames from ``first``, ``gaps`` (4 to 12) frames apart."""
    steps = rng.integers(gaps[0], gaps[1] + 1, count - 1)
    return first + np.concatenate([[0], np.cumsum(steps)]).astype(np.float64)


def _rotation_values(rng, mode, count, max_turn_deg):
    """(count, k) F-curve values of a wandering rotation in ``mode``, turning at most about
    max_turn_deg between keys."""
    step = np.radians(max_turn_deg)
    if mode == "QUATERNION":
        axis = rng.normal(size=(count, 3))
        axis /= np.linalg.norm(axis, axis=1, keepdims=True)
        angles = np.cumsum(rng.uniform(-step, step, count))
        # Slowly drifting axis: a rotation that is not about one axis.
        drift = np.cumsum(axis * 0.3, axis=0)
        drift /= np.linalg.norm(drift, axis=1, keepdims=True)
        return np.column_stack([np.cos(angles / 2), drift * np.sin(angles / 2)[:, None]])
    if mode == "AXIS_ANGLE":
        axis = np.cumsum(rng.normal(size=(count, 3)) * 0.3, axis=0) + (0.0, 0.0, 1.0)
        angles = np.cumsum(rng.uniform(-step, step, count))
        return np.column_stack([angles, axis])
    return np.cumsum(rng.uniform(-step / 1.8, step / 1.8, (count, 3)), axis=0)


def write_curve(curves, data_path, index, frames, values):
    """One Bezier F-curve with auto-clamped handles, in bulk."""
    fcurve = curves.new(data_path, index=index)
    points = fcurve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", np.column_stack([frames, values]).astype(np.float32).ravel())
    count = len(frames)
    points.foreach_set("interpolation", np.full(count, 2, dtype=np.int32))  # BEZIER
    handle_type = cast(bpy.types.EnumProperty, bpy.types.Keyframe.bl_rna.properties["handle_left_type"])
    auto = handle_type.enum_items["AUTO_CLAMPED"].value
    points.foreach_set("handle_left_type", np.full(count, auto, dtype=np.int32))
    points.foreach_set("handle_right_type", np.full(count, auto, dtype=np.int32))
    fcurve.update()
    return fcurve


def _new_action(obj, name):
    """An action assigned to ``obj`` and the F-curve collection to fill (a slot's on 4.4+)."""
    action = bpy.data.actions.new(name)
    obj.animation_data_create().action = action
    if not hasattr(action, "layers"):
        return action, action.fcurves
    # Blender 4.4+ (hence hasattr): slotted, layered actions, newer than the 4.2 bpy stubs.
    slot = obj.animation_data.action_slot or action.slots.new(  # pyright: ignore[reportAttributeAccessIssue]
        id_type='OBJECT', name=obj.name)
    obj.animation_data.action_slot = slot
    strip = action.layers.new("Layer").strips.new(type='KEYFRAME')  # pyright: ignore[reportAttributeAccessIssue]
    return action, strip.channelbag(slot, ensure=True).fcurves


def write_free_curve(curves, data_path, index, frames, values, rng=None):
    """One Bezier F-curve with FREE handles set here, as an animator drags them: each side's
    slope is the key's central slope scaled by its own random factor (broken tangents: the
    velocity jumps at keys), each handle a third of the way to the neighbouring key (no overlap)."""
    rng = rng if rng is not None else np.random.default_rng(index)
    fcurve = write_curve(curves, data_path, index, frames, values)
    points, count = fcurve.keyframe_points, len(frames)
    handle_type = cast(bpy.types.EnumProperty, bpy.types.Keyframe.bl_rna.properties["handle_left_type"])
    free = np.full(count, handle_type.enum_items["FREE"].value, dtype=np.int32)
    points.foreach_set("handle_left_type", free)
    points.foreach_set("handle_right_type", free)
    frames, values = np.asarray(frames, dtype=np.float64), np.asarray(values, dtype=np.float64)
    gaps = np.diff(frames)
    reach_left, reach_right = np.concatenate([gaps[:1], gaps]) / 3, np.concatenate([gaps, gaps[-1:]]) / 3
    slope = np.gradient(values, frames)
    left = np.column_stack([frames - reach_left, values - slope * rng.uniform(0.0, 2.0, count) * reach_left])
    right = np.column_stack([frames + reach_right, values + slope * rng.uniform(0.0, 2.0, count) * reach_right])
    points.foreach_set("handle_left", left.astype(np.float32).ravel())
    points.foreach_set("handle_right", right.astype(np.float32).ravel())
    return fcurve


def _animate(curves, rng, prefix, mode, keys, first, max_turn_deg, gaps=(4, 12), frames=None, free=False):
    """Rotation curves of ``mode`` under ``prefix``; ``frames`` (else drawn from ``gaps``) returned."""
    frames = key_frames(rng, keys, first, gaps) if frames is None else frames
    values = _rotation_values(rng, mode, len(frames), max_turn_deg)
    prop = {"QUATERNION": "rotation_quaternion",
            "AXIS_ANGLE": "rotation_axis_angle"}.get(mode, "rotation_euler")
    for index in range(values.shape[1]):
        if free:
            write_free_curve(curves, prefix + prop, index, frames, values[:, index], rng)
        else:
            write_curve(curves, prefix + prop, index, frames, values[:, index])
    return frames


def _armature_in_edit_mode(name):
    """(object, armature data) of a new armature ``name`` in the scene, active, in Edit Mode."""
    data = bpy.data.armatures.new(name)
    rig = bpy.data.objects.new(name, data)
    _scene().collection.objects.link(rig)
    view_layer = bpy.context.view_layer
    assert view_layer is not None, "bpy always has a view layer"
    view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode='EDIT')
    return rig, data


def build(bones: int = 4, objects: int = 2, keys: int = 12, max_turn_deg: float = 100.0, first_frame: int = -6,
          seed: int = 7, modes=MODES) -> tuple[bpy.types.Object, list[bpy.types.Object]]:
    """Make the rig in the current scene; returns (armature object, [empties])."""
    rng = np.random.default_rng(seed)
    scene = _scene()
    rig, data = _armature_in_edit_mode("KeyedRig")
    parent = None
    for i in range(bones):
        bone = data.edit_bones.new(f"bone{i}")
        bone.head, bone.tail = (0.0, 0.1 * (i % 2), float(i)), (0.0, 0.0, float(i + 1))
        bone.roll = 0.3 * i
        bone.parent = parent
        parent = bone
    bpy.ops.object.mode_set(mode='OBJECT')
    action, curves = _new_action(rig, "KeyedRigAction")
    assert rig.pose is not None, "an armature object has a pose"
    last = first_frame
    for i in range(bones):
        pose_bone = rig.pose.bones[f"bone{i}"]
        pose_bone.rotation_mode = modes[i % len(modes)]
        prefix = f'pose.bones["bone{i}"].'
        last = max(last, _animate(curves, rng, prefix, pose_bone.rotation_mode, keys, first_frame,
                                  max_turn_deg)[-1])
    empties = []
    for j in range(objects):
        empty = bpy.data.objects.new(f"Empty{j}", None)
        scene.collection.objects.link(empty)
        empty.location = (2.0 + j, 0.0, 0.0)
        empty.rotation_mode = modes[(j + 3) % len(modes)]
        _, empty_curves = _new_action(empty, f"Empty{j}Action")
        frames = _animate(empty_curves, rng, "", empty.rotation_mode, keys, 1 + 2 * j, max_turn_deg)
        last = max(last, frames[-1])
        empties.append(empty)
    scene.frame_start, scene.frame_end = int(first_frame), int(np.ceil(last))
    return rig, empties


# A character-like tree: (name, parent, head, tail) per bone, parents first. The spine is 12 bones
# long and the fingers hang 4 + 3 bones below its top, so the deepest chain is 19 bones: errors of
# many animated rotations add up at its leaves, as they do in real rigs.
def tree_bones(spine=12, tail=8, fingers=5):
    """[(name, parent or None, head, tail)] of a spine with neck and head, two arms with hands and
    ``fingers`` fingers of 3 bones, two legs and a tail."""
    bones, up = [], 0.15
    parent = None
    for i in range(spine):  # hips at the bottom, chest at the top
        bones.append((f"spine{i:02d}", parent, (0.0, 0.0, 1.0 + up * i), (0.0, 0.0, 1.0 + up * (i + 1))))
        parent = f"spine{i:02d}"
    top = 1.0 + up * spine
    bones += [("neck0", parent, (0.0, 0.0, top), (0.0, 0.02, top + 0.08)),
              ("neck1", "neck0", (0.0, 0.02, top + 0.08), (0.0, 0.03, top + 0.16)),
              ("head", "neck1", (0.0, 0.03, top + 0.16), (0.0, 0.05, top + 0.4))]
    for side, sign in (("L", 1.0), ("R", -1.0)):
        arm = [(f"clavicle.{side}", parent, 0.0, 0.15), (f"upperarm.{side}", f"clavicle.{side}", 0.15, 0.45),
               (f"forearm.{side}", f"upperarm.{side}", 0.45, 0.72), (f"hand.{side}", f"forearm.{side}", 0.72, 0.8)]
        bones += [(name, up_name, (sign * a, 0.0, top - 0.05), (sign * b, 0.01, top - 0.05))
                  for name, up_name, a, b in arm]
        for f in range(fingers):
            finger_parent, y = f"hand.{side}", 0.02 * (f - 2)
            for k in range(3):
                name = f"finger{f}_{k}.{side}"
                a, b = 0.8 + 0.03 * k, 0.83 + 0.03 * k
                bones.append((name, finger_parent, (sign * a, y, top - 0.05), (sign * b, y, top - 0.06)))
                finger_parent = name
        leg = [(f"thigh.{side}", "spine00", 1.0, 0.55), (f"shin.{side}", f"thigh.{side}", 0.55, 0.1),
               (f"foot.{side}", f"shin.{side}", 0.1, 0.02)]
        bones += [(name, up_name, (sign * 0.1, 0.0, a), (sign * 0.1, 0.02, b)) for name, up_name, a, b in leg]
        bones.append((f"toe.{side}", f"foot.{side}", (sign * 0.1, 0.02, 0.02), (sign * 0.1, 0.12, 0.02)))
    parent = "spine00"
    for i in range(tail):
        bones.append((f"tail{i}", parent, (0.0, -0.1 * i, 1.0), (0.0, -0.1 * (i + 1), 0.98)))
        parent = f"tail{i}"
    return bones


def _armature_of(name: str, layout, roll: float, period: int) -> bpy.types.Object:
    """An armature object of the bones in ``layout`` ((name, parent, head, tail), parents first),
    bone i rolled ``roll`` x (i % ``period``), back in object mode."""
    rig, data = _armature_in_edit_mode(name)
    for i, (bone_name, parent, head, tail) in enumerate(layout):
        bone = data.edit_bones.new(bone_name)
        bone.head, bone.tail, bone.roll = head, tail, roll * (i % period)
        bone.parent = data.edit_bones[parent] if parent else None
    bpy.ops.object.mode_set(mode='OBJECT')
    return rig


def build_tree(keys: int = 30, max_turn_deg: float = 30.0, gaps: tuple[int, int] = (6, 10), first_frame: int = 1,
               seed: int = 11, modes=MODES) -> bpy.types.Object:
    """A 69-bone character tree (tree_bones: depth 19) keyed as an animator keys it: Bezier keys
    every ``gaps`` frames on every bone, every rotation mode in turn. Returns the armature object."""
    rng = np.random.default_rng(seed)
    scene = _scene()
    layout = tree_bones()
    rig = _armature_of("TreeRig", layout, 0.2, 7)
    _, curves = _new_action(rig, "TreeRigAction")
    assert rig.pose is not None, "an armature object has a pose"
    last = first_frame
    for i, (name, *_) in enumerate(layout):
        pose_bone = rig.pose.bones[name]
        pose_bone.rotation_mode = modes[i % len(modes)]
        frames = _animate(curves, rng, f'pose.bones["{name}"].', pose_bone.rotation_mode, keys,
                          first_frame, max_turn_deg, gaps)
        last = max(last, frames[-1])
    scene.frame_start, scene.frame_end = int(first_frame), int(np.ceil(last))
    return rig


def add_fractional_empty(name: str = "Fractional", frames: tuple[float, ...] = (1.0, 7.5, 14.25),
                         turn_deg: float = 60.0) -> bpy.types.Object:
    """An empty turning about Z with keys at fractional frames: the last one (14.25) lies between
    the frames the bundled exporter samples, which stops at frame 14."""
    empty = bpy.data.objects.new(name, None)
    _scene().collection.objects.link(empty)
    empty.rotation_mode = 'XYZ'
    _, curves = _new_action(empty, f"{name}Action")
    angles = np.radians(turn_deg) * np.arange(len(frames)) * np.array([1.0, -0.5, 1.0])[:len(frames)]
    for index in range(3):
        write_curve(curves, "rotation_euler", index, np.asarray(frames), angles * (0.3, 0.2, 1.0)[index])
    return empty


def build_arms(seed: int = 1, bones: int = 4, keys: int = 12, max_turn_deg: float = 100.0,
               first_frame: int = -5) -> tuple[bpy.types.Object, bpy.types.Object]:
    """An arm chain of ``bones`` bones and one empty at 29.97 fps (render.fps 30, fps_base 1.001),
    keyed with ``seed``: the arm's action starts at the negative ``first_frame``, the empty's keys
    lie on fractional frames (a range such as 0.25 - 93.75); every other bone and the empty have
    FREE handles. Rotation modes cycle from an offset of 3 * seed, so seeds 1, 2 and 3 between
    them use all eight. Returns (armature object, empty)."""
    rng = np.random.default_rng(seed)
    scene = _scene()
    scene.render.fps, scene.render.fps_base = 30, 1.001
    shift = 3 * seed % len(MODES)
    modes = MODES[shift:] + MODES[:shift]
    rig, data = _armature_in_edit_mode("Arm")
    parent = None
    for i in range(bones):
        bone = data.edit_bones.new(f"arm{i}")
        bone.head, bone.tail, bone.roll = (0.0, 0.0, 0.8 * i), (0.0, 0.05, 0.8 * (i + 1)), 0.4 * i
        bone.parent, parent = parent, bone
    bpy.ops.object.mode_set(mode='OBJECT')
    _, curves = _new_action(rig, "ArmAction")
    assert rig.pose is not None, "an armature object has a pose"
    last = float(first_frame)
    for i in range(bones):
        pose_bone = rig.pose.bones[f"arm{i}"]
        pose_bone.rotation_mode = modes[i % len(modes)]
        frames = _animate(curves, rng, f'pose.bones["arm{i}"].', pose_bone.rotation_mode, keys, first_frame,
                          max_turn_deg, free=i % 2 == 1)
        last = max(last, frames[-1])
    empty = bpy.data.objects.new("Hand", None)
    scene.collection.objects.link(empty)
    empty.location, empty.rotation_mode = (1.5, 0.0, 1.0), modes[bones % len(modes)]
    _, empty_curves = _new_action(empty, "HandAction")
    # Quarter frames: whole frames never, so the range's both ends fall between Blender's frames.
    frames = key_frames(rng, keys, 0.25) + rng.choice((0.0, 0.25, 0.5), keys)
    _animate(empty_curves, rng, "", empty.rotation_mode, keys, 0, max_turn_deg, frames=frames, free=True)
    scene.frame_start, scene.frame_end = first_frame, int(np.ceil(max(last, frames[-1])))
    return rig, empty


Bone = tuple[str, str | None, tuple[float, float, float], tuple[float, float, float]]


def character_bones(fingers: int = 2) -> list[Bone]:
    """[(name, parent, head, tail)] in centimetres, Y up (as an FBX file's armature): hips and a
    spine of 3, neck, head, two arms (clavicle, upper arm, forearm, hand) with ``fingers``
    3-bone fingers; the head and every finger end in an unanimated leaf bone (an FBX end bone)."""
    bones: list[Bone] = [("hips", None, (0, 95, 0), (0, 105, 0))]
    for i in range(3):
        bones.append((f"spine{i}", bones[-1][0], (0, 105 + 12 * i, 0), (0, 117 + 12 * i, 0)))
    bones += [("neck", "spine2", (0, 141, 0), (0, 150, 2)), ("head", "neck", (0, 150, 2), (0, 165, 3)),
              ("head_end", "head", (0, 165, 3), (0, 180, 3))]
    for side, sign in (("L", 1), ("R", -1)):
        x, parent = 0.0, "spine2"
        for name, length in (("clavicle", 15), ("upperarm", 28), ("forearm", 26), ("hand", 8)):
            bones.append((f"{name}.{side}", parent, (sign * x, 138, 0), (sign * (x + length), 138, -1)))
            x, parent = x + length, f"{name}.{side}"
        for f in range(fingers):
            parent, z, start = f"hand.{side}", 2.0 * f - fingers + 1, x
            for k, name in enumerate(("0", "1", "2", "end")):
                bones.append((f"finger{f}_{name}.{side}", parent, (sign * (start + 3 * k), 138, z),
                              (sign * (start + 3 * k + 3), 137.5, z)))
                parent = f"finger{f}_{name}.{side}"
    return bones


MESH_BONES = ("hips", "spine2", "head", "upperarm.L", "forearm.L", "hand.L", "upperarm.R", "forearm.R",
              "hand.R")


def build_bone_meshes(dense: bool = True, keys: int = 16, gaps: tuple[int, int] = (6, 10),
                      max_turn_deg: float = 30.0, seed: int = 5) -> bpy.types.Object:
    """A character whose armature OBJECT is turned 90° about X and scaled 0.01 (an FBX import in
    centimetres), rigid box meshes parented to bones (parent_type 'BONE', MESH_BONES), every bone
    but the leaves keyed by an animator (``keys`` Bezier keys ``gaps`` frames apart) and, if
    ``dense``, baked to a key on every frame (Blender's own curve values, as an imported clip is).
    Returns the armature object."""
    rng = np.random.default_rng(seed)
    scene = _scene()
    layout = character_bones()
    rig = _armature_of("Character", layout, 0.15, 5)
    rig.rotation_euler, rig.scale = (np.pi / 2, 0.0, 0.0), (0.01, 0.01, 0.01)
    _, curves = _new_action(rig, "CharacterAction")
    assert rig.pose is not None, "an armature object has a pose"
    last = 1.0
    for i, (name, *_) in enumerate(n for n in layout if not n[0].endswith("_end")):
        pose_bone = rig.pose.bones[name]
        pose_bone.rotation_mode = MODES[i % len(MODES)]
        frames = _animate(curves, rng, f'pose.bones["{name}"].', pose_bone.rotation_mode, keys, 1, max_turn_deg,
                          gaps)
        last = max(last, frames[-1])
    if dense:
        _bake_every_frame(curves, np.arange(1.0, last + 1.0))
    for name in MESH_BONES:
        _box_on_bone(rig, name, rng.uniform(3.0, 8.0))
    scene.frame_start, scene.frame_end = 1, int(last)
    return rig


def _bake_every_frame(curves, frames: np.ndarray) -> None:
    """Each curve replaced by its own values at ``frames`` (Bezier keys, auto-clamped)."""
    baked = [(c.data_path, c.array_index, [c.evaluate(f) for f in frames]) for c in curves]
    for fcurve in list(curves):
        curves.remove(fcurve)
    for data_path, index, values in baked:
        write_curve(curves, data_path, index, frames, np.asarray(values))


def _box_on_bone(rig: bpy.types.Object, bone: str, half: float) -> bpy.types.Object:
    """A box mesh of half-size ``half`` (armature units) hanging on ``bone``'s middle."""
    corners = [(x, y, z) for x in (-half, half) for y in (-half, half) for z in (-half, half)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(f"{bone}_box")
    mesh.from_pydata(corners, [], faces)
    part = bpy.data.objects.new(f"{bone}_box", mesh)
    _scene().collection.objects.link(part)
    part.parent, part.parent_type, part.parent_bone = rig, 'BONE', bone
    # A bone child sits at the bone's tail: back by half the bone, to its middle.
    part.location = (0.0, -0.5 * cast(bpy.types.Armature, rig.data).bones[bone].length, 0.0)
    return part
