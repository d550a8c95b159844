"""Blender operators: thin adapters that hand a file to ``core`` and report or build the result."""

import bpy

from .check_file import GLTF_SQLERP_OT_check_file

classes = (
    GLTF_SQLERP_OT_check_file,
)

register, unregister = bpy.utils.register_classes_factory(classes)
