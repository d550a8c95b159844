"""Affine maps from glTF channel values to the Blender property the bundled importer animates.

The bundled importer turns a glTF value into an object or pose-bone value with a fixed chain per
node: axis conversion, the node's ``rotation_before``/``rotation_after`` corrections, and for bones
the edit bone's rest transform (blender-notes.md). Every step is linear or affine in the value, so
the whole chain is one affine map ``blender = matrix @ gltf + offset``. Keys and Bézier handles are
points, so mapping them through it maps the curve exactly; for rotations the map is an isometry of
R⁴ and commutes with normalization, slerp and sqlerp.

The chain is read off by pushing basis vectors through the importer's own conversion functions, so
import options (such as +Y up) are honoured the way the bundled importer honours them.
"""

from dataclasses import dataclass

import bpy
import numpy as np
from mathutils import Quaternion, Vector


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


def _convert_translation(gltf, vnode, value):
    location = Vector(gltf.loc_gltf_to_blender(value))
    location = vnode.base_locs_to_final_locs([location])[0]
    parent = gltf.vnodes[vnode.parent] if vnode.parent is not None else None
    if not is_bone(vnode) and parent is not None and is_bone(parent):
        # Objects parented to a bone sit at the bone's tip in Blender; the importer moves them back.
        location = location + Vector((0, -parent.bone_length, 0))
    if is_bone(vnode):
        location = vnode.editbone_rot.conjugated() @ (location - vnode.editbone_trans)
    return location


def _convert_rotation(gltf, vnode, value):
    rotation = gltf.quaternion_gltf_to_blender(value)
    rotation = vnode.base_rots_to_final_rots([rotation])[0]
    if is_bone(vnode):
        rotation = vnode.editbone_rot.conjugated() @ rotation
    return Quaternion(rotation)


def _convert_scale(gltf, vnode, value):
    scale = Vector(gltf.scale_gltf_to_blender(value))
    return vnode.base_scales_to_final_scales([scale])[0]


_CONVERT = {"translation": (_convert_translation, "location", 3),
            "rotation": (_convert_rotation, "rotation_quaternion", 4),
            "scale": (_convert_scale, "scale", 3)}


def node_channel_map(gltf, vnode, path, group_name):
    """The ChannelMap of a translation/rotation/scale channel on ``vnode``."""
    convert, blender_path, width = _CONVERT[path]
    origin = np.array(convert(gltf, vnode, [0.0] * width), dtype=np.float64)
    if path == "rotation":
        origin = np.zeros(4)  # rotations are linear: no offset
    columns = [np.array(convert(gltf, vnode, list(e)), dtype=np.float64) - origin
               for e in np.eye(width)]
    if is_bone(vnode):
        name = bpy.utils.escape_identifier(vnode.blender_bone_name)
        return ChannelMap(f'pose.bones["{name}"].{blender_path}', vnode.blender_bone_name,
                          np.stack(columns, axis=1), origin)
    return ChannelMap(blender_path, group_name, np.stack(columns, axis=1), origin)


def weight_channel_map(target_count):
    """Morph weights land unchanged on shape-key values."""
    return ChannelMap("", "", np.eye(target_count), np.zeros(target_count))
