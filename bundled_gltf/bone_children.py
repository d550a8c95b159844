"""Objects parented to a bone: where Blender puts them, and the rest location that undoes it.

Blender places an object parented to a bone at the bone's tip: its parent matrix is the pose
bone's matrix moved along the bone's own Y axis by the edit bone's length. The bundled importer
moves such objects back by its own ``bone_length``, but with its default bone heuristic
("BLENDER") it builds the edit bone ``bone_length / max(armature scale)`` long. On an armature
scaled by 100 (files from centimetre tools) the two differ by 99 %, and every rigid part moves by
nearly a bone length (io_scene_gltf2's node.py, Blender 4.2 to 5.3, then moves the object by
``(0, -bone_length, 0)``; versions: bone_children_misplaced). The offset that cancels Blender's is
the real edit bone's length, read back from the armature, whatever heuristic built it.
"""

from typing import Any

import numpy as np

# ``gltf`` below is the bundled importer's glTF object and a vnode one of its VNodes: io_scene_gltf2
# has no types.


def tip_length(gltf: Any, bone_vnode: Any) -> float:
    """The length of the edit bone built for ``bone_vnode``: how far along its Y axis Blender puts
    the objects parented to it."""
    armature = gltf.vnodes[bone_vnode.bone_arma].blender_object
    return float(armature.data.bones[bone_vnode.blender_bone_name].length)


def bone_parent(gltf: Any, vnode: Any) -> Any | None:
    """The bone vnode ``vnode`` hangs from, or None."""
    parent = gltf.vnodes[vnode.parent] if vnode.parent is not None else None
    if parent is None or parent.type != type(parent).Bone:
        return None
    return parent


def place_at_bone_heads(gltf: Any) -> int:
    """Give every object parented to a bone the rest location that cancels Blender's move to the
    bone's tip (the bundled importer subtracted ``bone_length`` instead). Returns how many moved."""
    moved = 0
    for vnode in gltf.vnodes.values():
        obj = getattr(vnode, "blender_object", None)
        parent = bone_parent(gltf, vnode)
        if obj is None or parent is None or vnode.type == type(vnode).Bone:
            continue
        change = parent.bone_length - tip_length(gltf, parent)
        if change == 0.0:
            continue
        obj.location.y += change
        if hasattr(obj, "gltf2_animation_rest"):  # the importer's record of the rest matrix
            rest = obj.gltf2_animation_rest.copy()
            rest.translation.y += change
            obj.gltf2_animation_rest = rest
        moved += 1
    return moved


def tip_offset(gltf: Any, vnode: Any) -> np.ndarray:
    """(3,) what to add to a Blender location of ``vnode`` so it is measured from its parent
    bone's head: zero unless the parent is a bone."""
    parent = bone_parent(gltf, vnode)
    if parent is None:
        return np.zeros(3)
    return np.array((0.0, -tip_length(gltf, parent), 0.0))
