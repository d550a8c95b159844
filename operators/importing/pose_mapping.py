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

from .armature_frames import scaled

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


def roll_difference(rest: np.ndarray, rig_rest: np.ndarray) -> np.ndarray:
    """(4, 4) K: the rig's bone at rest is the imported bone turned by a swing (which moves the
    bone's Y axis) and then by K, a twist about Y (its roll). A clip keeps the rig's roll:
    the rig's bone plays A @ K where the imported bone plays A, its direction the file's."""
    w, _, y, _ = _quaternion(rest[:3, :3].T @ rig_rest[:3, :3])
    norm = np.hypot(w, y)
    twist = np.eye(4)
    if norm > 1e-12:  # no twist is defined when the swing is half a turn: none
        c, s = (w * w - y * y) / norm ** 2, 2 * w * y / norm ** 2  # cos, sin of the twist angle
        twist[[0, 0, 2, 2], [0, 2, 0, 2]] = c, s, -s, c
    return twist


def rest_change(rest: np.ndarray, parent_rest: np.ndarray | None, rig_rest: np.ndarray,
                rig_parent_rest: np.ndarray | None, parent_roll: np.ndarray,
                turn: np.ndarray | None = None, ratio: float = 1.0) -> np.ndarray:
    """(4, 4) rigid M with rig basis = M @ S_k(imported basis) @ K (K: roll_difference, S_k: the
    translation times ``ratio``), so that the rig's bone plays G @ S_k(A) @ K wherever the
    imported one plays A, its parent playing G @ S_k(A_parent) @ K_parent (Blender's pose chain
    A = A_parent @ rest_parent⁻¹ @ rest @ basis; S_k keeps products). ``rest``: a bone's
    ``matrix_local`` (armature space, no scale); parents None for root bones, whose rest is
    first turned by ``turn`` (G, armature_frames.turn: the file's armature space seen from the
    rig's); ``parent_roll``: the parent's K (identity for a root)."""
    relative = _relative(rest, parent_rest)
    if parent_rest is None and turn is not None:
        relative = turn @ relative
    return np.linalg.inv(_relative(rig_rest, rig_parent_rest)) @ np.linalg.inv(parent_roll) \
        @ scaled(relative, ratio)


def _relative(rest, parent_rest):
    return rest if parent_rest is None else np.linalg.inv(parent_rest) @ rest


def retargeted(mapping: ChannelMap, path: str, change: np.ndarray, roll: np.ndarray,
               bone_name: str | None, ratio: float = 1.0) -> ChannelMap:
    """``mapping`` (glTF values to the imported node's basis) followed by rig basis = change @
    S_k(basis) @ roll (rest_change): rotations q -> m ⊗ q ⊗ k, locations times ``ratio`` (k, the
    rig's size over the file's) and moved by change; scales stay (exact for uniform scale and
    for bones without roll change: a scale along a rolled axis would need shear). Still linear
    in the glTF values, so keys and handles map exactly. ``bone_name``: the rig's bone, None for
    an object."""
    matrix, offset = mapping.matrix, mapping.offset
    if path == "rotation":
        turn = _left(_quaternion(change[:3, :3])) @ _right(_quaternion(roll[:3, :3]))
        matrix, offset = turn @ matrix, turn @ offset
    elif path == "translation":
        turned = change[:3, :3] * ratio
        matrix, offset = turned @ matrix, turned @ offset + change[:3, 3]
    if bone_name is None or path == "weights":
        return ChannelMap(mapping.data_path, mapping.group, matrix, offset)
    name = bpy.utils.escape_identifier(bone_name)
    property_name = mapping.data_path.rsplit(".", 1)[-1]
    return ChannelMap(f'pose.bones["{name}"].{property_name}', bone_name, matrix, offset)


def _quaternion(rotation):
    """(w, x, y, z) of a 3x3 rotation matrix."""
    from ...bundled_gltf import node_objects  # the importer's package imports this one
    x, y, z, w = node_objects.quaternions(rotation)
    return np.array([w, x, y, z])
