"""Blender user interface: panels and menus that draw settings and call operators, never ``core``
directly."""

from collections.abc import Callable
from typing import cast

import bpy

from . import deviation_properties, export_dialog, export_properties, menus, preview_properties, properties
from .panel import GLTF_SQLERP_PT_animation

# (register, unregister): the stubs say None
_panels_register, _panels_unregister = cast(tuple[Callable[[], None], Callable[[], None]],
                                            bpy.utils.register_classes_factory((GLTF_SQLERP_PT_animation,)))


def register() -> None:
    properties.register()
    export_properties.register()
    deviation_properties.register()
    preview_properties.register()
    _panels_register()
    menus.register()
    export_dialog.register()


def unregister() -> None:
    export_dialog.unregister()
    menus.unregister()
    _panels_unregister()
    preview_properties.unregister()
    deviation_properties.unregister()
    export_properties.unregister()
    properties.unregister()
