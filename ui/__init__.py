"""Blender user interface: panels and menus that draw settings and call operators, never ``core``
directly."""

import bpy

from . import deviation_properties, export_dialog, export_properties, menus, preview_properties, properties
from .panel import GLTF_SQLERP_PT_animation

_panels_register, _panels_unregister = bpy.utils.register_classes_factory((GLTF_SQLERP_PT_animation,))


def register():
    properties.register()
    export_properties.register()
    deviation_properties.register()
    preview_properties.register()
    _panels_register()
    menus.register()
    export_dialog.register()


def unregister():
    export_dialog.unregister()
    menus.unregister()
    _panels_unregister()
    preview_properties.unregister()
    deviation_properties.unregister()
    export_properties.unregister()
    properties.unregister()
