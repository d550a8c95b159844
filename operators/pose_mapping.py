"""Affine maps from glTF channel values to the Blender property the bundled importer animates.

The bundled importer turns a glTF value into an object or pose-bone value with a fixed chain per
node: axis conversion, the node's ``rotation_before``/``rotation_after`` corrections, and for bones
the edit bone's rest transform (blender-notes.md). Every step is linear or affine in the value, so
the whole chain is one affine map ``blender = matrix @ gltf + offset``. Keys and Bézier handles are
points, so mapping them through it maps the curve exactly; for rotations the map is an isometry of
R⁴ and commutes with normalization, slerp and sqlerp.

The axis conversion is read off the importer's own conversion functions (so import options such as
+Y up are honoured); the node corrections are the ones its animation code applies (the same in
Blender 4.2 to 5.0, see blender-notes.md), written as matrices.
"""

from dataclasses import dataclass

import bpy
import numpy as np
from mathutils import Vector

from .bone_children import tip_offset


@dataclass
class ChannelMap:
    data_path: str      # e.g. 'pose.bones["Elbow"].rotation_quaternion' or 'location'
    group: str          # F-curve group the bundled importer uses
    matrix: np.ndarray  # (k, k): Blender components from glTF components
    offset: np.ndarray  # (k,)

    def apply(self, values):
        """Map (..., k) glTF values to Blender values."""
        return values @ self.matrix.T + self.offset


def is_bone(vnode):
    # VNode.Bone, read from the vnode's own class: its module moved between Blender versions.
    return vnode.type == type(vnode).Bone


def _axes(gltf):
    """The importer's axis conversions (glTF to Blender) as matrices, probed once per import with
    its own functions, so that options such as +Y up and the unit scale are honoured."""
    cached = getattr(gltf, "_gltf_sqlerp_axes", None)
    if cached is None:
        rotation = np.array([tuple(gltf.quaternion_gltf_to_blender(list(e))) for e in np.eye(4)]).T
        location = np.array([tuple(gltf.loc_gltf_to_blender(list(e))) for e in np.eye(3)]).T
        scale = np.array([tuple(gltf.scale_gltf_to_blender(list(e))) for e in np.eye(3)]).T
        cached = gltf._gltf_sqlerp_axes = (rotation, location, scale)
    return cached


def _array(matrix):
    """A mathutils Matrix as numpy, row by row: 4x faster than np.array(matrix), which reads it
    element by element (20 us a call, and an import makes one per channel)."""
    return np.array([tuple(row) for row in matrix])


def _left(q):
    """Matrix of q ⊗ · on Blender quaternions (w, x, y, z)."""
    w, x, y, z = q
    return np.array([[w, -x, -y, -z], [x, w, -z, y], [y, z, w, -x], [z, -y, x, w]])


def _right(q):
    """Matrix of · ⊗ q on Blender quaternions (w, x, y, z)."""
    w, x, y, z = q
    return np.array([[w, -x, -y, -z], [x, w, z, -y], [y, -z, w, x], [z, y, -x, w]])


def _rotation_map(gltf, vnode):
    # final = rotation_after ⊗ q ⊗ rotation_before; a bone's pose is edit_rotation⁻¹ ⊗ final.
    before = vnode.rotation_after
    if is_bone(vnode):
        before = vnode.editbone_rot.conjugated() @ before
    matrix = _left(tuple(before)) @ _right(tuple(vnode.rotation_before)) @ _axes(gltf)[0]
    return matrix, np.zeros(4)


def _translation_map(gltf, vnode):
    # final = rotation_after · location; a bone's pose is edit_rotation⁻¹ · (final − edit_location).
    matrix = _array(vnode.rotation_after.to_matrix()) @ _axes(gltf)[1]
    if is_bone(vnode):
        inverse = _array(vnode.editbone_rot.conjugated().to_matrix())
        return inverse @ matrix, -inverse @ np.array(tuple(vnode.editbone_trans))
    # Objects parented to a bone sit at the bone's tip in Blender: moved back by the edit bone's
    # real length, not the importer's bone_length (bone_children.py says why).
    return matrix, tip_offset(gltf, vnode)


def _scale_map(gltf, vnode):
    columns = vnode.base_scales_to_final_scales([Vector(c) for c in _axes(gltf)[2].T])
    return np.array([tuple(c) for c in columns]).T, np.zeros(3)


_MAPS = {"translation": (_translation_map, "location"),
         "rotation": (_rotation_map, "rotation_quaternion"),
         "scale": (_scale_map, "scale")}


def node_channel_map(gltf, vnode, path, group_name):
    """The ChannelMap of a translation/rotation/scale channel on ``vnode``."""
    build, blender_path = _MAPS[path]
    matrix, offset = build(gltf, vnode)
    if is_bone(vnode):
        name = bpy.utils.escape_identifier(vnode.blender_bone_name)
        return ChannelMap(f'pose.bones["{name}"].{blender_path}', vnode.blender_bone_name,
                          matrix, offset)
    return ChannelMap(blender_path, group_name, matrix, offset)


def weight_channel_map(target_count):
    """Morph weights land unchanged on shape-key values."""
    return ChannelMap("", "", np.eye(target_count), np.zeros(target_count))
