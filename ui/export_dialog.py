"""The "EXT_animation_sqlerp" panel inside File > Export > glTF 2.0 (the bundled dialog).

The bundled exporter draws every function in its ``exporter_extension_layout_draw`` table. Blender
4.2 filled that table itself with ``draw_export`` of every enabled add-on exposing a
``glTF2ExportUserExtension`` (the package root forwards the name here); from 4.4 on (upstream
glTF-Blender-IO 49b56804) an add-on must put its function there, which register() does.
"""

import sys


def draw_export(context, layout):
    settings = context.scene.gltf_sqlerp_export
    header, body = layout.panel("GLTF_SQLERP_export_sqlerp", default_closed=False)
    header.use_property_split = False
    header.prop(settings, "enabled", text="")
    header.label(text="EXT_animation_sqlerp")
    if body:
        draw_settings(body, settings)


def draw_settings(layout, settings, show_enabled=True):
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


# The table's key: the add-on's module name ("gltf_sqlerp", or "bl_ext.<repo>.gltf_sqlerp"), the key
# Blender 4.2 used too, so the two never draw the panel twice.
_KEY = __package__.rpartition(".")[0]


def _layout_table():
    """The bundled exporter's ``exporter_extension_layout_draw`` dict, or None without one. Only a
    loaded bundled add-on is asked: importing it here, before Blender enables it, would make
    Blender reload it on enabling (its load time unknown), which empties the table again."""
    module = sys.modules.get("io_scene_gltf2")
    table = getattr(module, "exporter_extension_layout_draw", None)
    return table if isinstance(table, dict) else None


def register():
    table = _layout_table()
    if table is not None:
        table[_KEY] = draw_export


def unregister():
    table = _layout_table()
    if table is not None and table.get(_KEY) is draw_export:
        del table[_KEY]
