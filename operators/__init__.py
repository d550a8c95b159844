"""Blender operators: thin adapters that hand a file to ``core`` and build or report the result."""

import bpy

from .check_file import GLTF_SQLERP_OT_check_file
from .clips import GLTF_SQLERP_OT_activate_clip
from .import_gltf import IMPORT_SCENE_OT_gltf_sqlerp

classes = (
    GLTF_SQLERP_OT_check_file,
    GLTF_SQLERP_OT_activate_clip,
    IMPORT_SCENE_OT_gltf_sqlerp,
)

register, unregister = bpy.utils.register_classes_factory(classes)
