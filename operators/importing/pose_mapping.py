"""Affine maps from glTF channel values to the Blender property the bundled importer animates.

The bundled importer turns a glTF value into an object or pose-bone value with a fixed chain per
node: axis conversion, the node's ``rotation_before``/``rotation_after`` corrections, and for bones
the edit bone's rest transform (blender-notes.md). Every step is linear or affine in the value, so
the whole chain is one affine map ``blender = matrix @ gltf + offset``. Keys and Bézier handles are
points, so mapping them through it maps the curve exactly; for rotations the map is an isometry of
R⁴ and commutes with normalization, slerp and sqlerp.

The chain's pieces come from the importer's own node records and conversion functions through
``bundled_gltf.imported.NodeRest`` (so import options such as +Y up are honoured); here they are
put together as matrices.
"""

from dataclasses import dataclass

from typing import TYPE_CHECKING

import bpy
import numpy as np

if TYPE_CHECKING:  # the bundled importer's view imports the operators
    from ...bundled_gltf import imported


@dataclass
class ChannelMap:
    data_path: str      # e.g. 'pose.bones["Elbow"].rotation_quaternion' or 'location'
    group: str          # F-curve group the bundled importer uses
    matrix: np.ndarray  # (k, k): Blender components from glTF components
    offset: np.ndarray  # (k,)

    def apply(self, values: np.ndarray) -> np.ndarray:
        """Map (..., k) glTF values to Blender values."""
        return values @ self.matrix.T + self.offset


def _left(q):
    """Matrix of q ⊗ · on Blender quaternions (w, x, y, z)."""
    w, x, y, z = q
    return np.array([[w, -x, -y, -z], [x, w, -z, y], [y, z, w, -x], [z, -y, x, w]])


def _right(q):
    """Matrix of · ⊗ q on Blender quaternions (w, x, y, z)."""
    w, x, y, z = q
    return np.array([[w, -x, -y, -z], [x, w, z, -y], [y, -z, w, x], [z, y, -x, w]])


def _conjugate(q):
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def _rotation_map(rest):
    # final = rotation_after ⊗ q ⊗ rotation_before; a bone's pose is edit_rotation⁻¹ ⊗ final.
    matrix = _left(rest.rotation_after) @ _right(rest.rotation_before) @ rest.axes_rotation
    if rest.bone_name is not None:
        matrix = _left(_conjugate(rest.edit_rotation)) @ matrix
    return matrix, np.zeros(4)


def _translation_map(rest):
    # final = rotation_after · location; a bone's pose is edit_rotation⁻¹ · (final − edit_location).
    matrix = rest.after_matrix @ rest.axes_location
    if rest.bone_name is not None:
        inverse = rest.edit_matrix.T
        return inverse @ matrix, -inverse @ rest.edit_translation
    # Objects parented to a bone sit at the bone's tip in Blender: moved back by the edit bone's
    # real length, not the importer's bone_length (bundled_gltf/bone_children.py says why).
    return matrix, rest.tip_offset


def _scale_map(rest):
    return rest.scale_matrix, np.zeros(3)


_MAPS = {"translation": (_translation_map, "location"),
         "rotation": (_rotation_map, "rotation_quaternion"),
         "scale": (_scale_map, "scale")}


def node_channel_map(rest: "imported.NodeRest", path: str, group_name: str) -> ChannelMap:
    """The ChannelMap of a translation/rotation/scale channel on a node with ``rest``
    (bundled_gltf.imported.NodeRest)."""
    build, blender_path = _MAPS[path]
    matrix, offset = build(rest)
    if rest.bone_name is not None:
        name = bpy.utils.escape_identifier(rest.bone_name)
        return ChannelMap(f'pose.bones["{name}"].{blender_path}', rest.bone_name, matrix, offset)
    return ChannelMap(blender_path, group_name, matrix, offset)


def weight_channel_map(target_count: int) -> ChannelMap:
    """Morph weights land unchanged on shape-key values."""
    return ChannelMap("", "", np.eye(target_count), np.zeros(target_count))
