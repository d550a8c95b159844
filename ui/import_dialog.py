"""The "Exact animation" panel inside File > Import > glTF 2.0 (the bundled dialog).

The bundled importer finds ``draw_import(context, layout)`` on the add-on module (the package root
forwards the name here; bundled_gltf.dialogs says when it draws it).
"""

from typing import cast

import bpy


def draw_import(context: bpy.types.Context, layout: bpy.types.UILayout) -> None:
    settings = getattr(context.scene, "gltf_sqlerp_import", None)  # ui/properties.py's
    if settings is None:
        return
    # (header, body or None when closed): the stubs say None
    header, body = cast(tuple[bpy.types.UILayout, bpy.types.UILayout | None],
                        layout.panel("GLTF_SQLERP_import_exact", default_closed=False))
    header.use_property_split = False
    header.prop(settings, "exact_animation", text="")
    header.label(text="Exact Animation")
    if body:
        body.use_property_split = True
        body.active = settings.exact_animation
        body.prop(settings, "source")
        body.prop(settings, "rotation_tolerance")
        body.prop(settings, "bake")
        body.prop(settings, "onto")
        if settings.onto == 'ACTIVE':
            body.prop(settings, "prefix_map")
