"""The "EXT_animation_sqlerp" panel inside File > Export > glTF 2.0 (the bundled dialog), which
register() puts in that dialog's table (bundled_gltf.dialogs says how, per Blender version).
"""

from ..bundled_gltf import register_export_draw, unregister_export_draw


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


# The add-on's module name ("gltf_sqlerp", or "bl_ext.<repo>.gltf_sqlerp").
_KEY = __package__.rpartition(".")[0]


def register():
    register_export_draw(_KEY, draw_export)


def unregister():
    unregister_export_draw(_KEY, draw_export)
