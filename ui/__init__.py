"""Blender user interface: panels that draw settings and call operators, never ``core`` directly."""

import bpy

from .panel import GLTF_SQLERP_PT_animation

classes = (
    GLTF_SQLERP_PT_animation,
)

register, unregister = bpy.utils.register_classes_factory(classes)
