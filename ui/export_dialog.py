"""The "EXT_animation_sqlerp" panel inside File > Export > glTF 2.0 (the bundled dialog).

The bundled exporter calls ``draw_export(context, layout)`` of every enabled add-on that exposes a
``glTF2ExportUserExtension``; the package root forwards the name here.
"""


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
