"""The "EXT_animation_sqlerp" panel inside File > Export > glTF 2.0 (the bundled dialog), which
register() puts in that dialog's table (bundled_gltf.dialogs says how, per Blender version).
"""

from typing import cast

import bpy

from ..bundled_gltf import register_export_draw, unregister_export_draw
from ..operators.exporting import ExportSettingsGroup, export_settings
from ..core import EXTENSION_NAME


def draw_export(context: bpy.types.Context, layout: bpy.types.UILayout) -> None:
    settings = export_settings(context.scene)
    if settings is None:  # the add-on's settings are registered with this module's panel
        return
    # (header, body or None when closed): the stubs say None
    header, body = cast(tuple[bpy.types.UILayout, bpy.types.UILayout | None],
                        layout.panel("GLTF_SQLERP_export_sqlerp", default_closed=False))
    header.use_property_split = False
    header.prop(settings, "enabled", text="")
    header.label(text=EXTENSION_NAME)
    if body:
        draw_settings(body, settings)


def draw_settings(layout: bpy.types.UILayout, settings: ExportSettingsGroup, show_enabled: bool = True) -> None:
    """The settings; ``show_enabled=False`` in the sidebar, whose button always writes CUBICSLERP."""
    layout.use_property_split = True
    layout.active = settings.enabled or not show_enabled
    layout.prop(settings, "tolerance")
    layout.prop(settings, "precision")
    layout.prop(settings, "fallback")
    row = layout.row()
    row.active = layout.active and settings.fallback in {'AUTO', 'LINEAR', 'CUBICSPLINE'}
    row.prop(settings, "fallback_tolerance")
    layout.prop(settings, "world_space")
    layout.prop(settings, "property_tolerance")


# The add-on's module name ("gltf_sqlerp", or "bl_ext.<repo>.gltf_sqlerp").
_KEY = __name__.rsplit(".", 2)[0]


def register() -> None:
    register_export_draw(_KEY, draw_export)


def unregister() -> None:
    unregister_export_draw(_KEY, draw_export)
