"""glTF Sqlerp Animation: glTF animation into and out of Blender, exactly as the spec says.

This module only registers the Blender parts. Importing the package (and ``core``) needs no bpy, so
pipelines and tests can use the evaluator without Blender.
"""


def register():
    from . import operators, ui
    operators.register()
    ui.register()


def unregister():
    from . import operators, ui
    ui.unregister()
    operators.unregister()


def __getattr__(name):
    # Blender's bundled glTF importer looks these names up on every enabled add-on module. They are
    # resolved on first use so that importing the package never needs bpy.
    if name == "glTF2ImportUserExtension":
        from .operators.import_session import glTF2ImportUserExtension
        return glTF2ImportUserExtension
    if name == "glTF2ExportUserExtension":
        from .operators.export_hook import glTF2ExportUserExtension
        return glTF2ExportUserExtension
    if name == "draw_export":
        from .ui.export_dialog import draw_export
        return draw_export
    if name in ("glTF2_pre_export_callback", "glTF2_post_export_callback"):
        # The bundled exporter samples with frame_set: the live preview is held while it runs.
        from .operators import preview
        return getattr(preview, name)
    if name == "draw_import":
        from .ui.import_dialog import draw_import
        return draw_import
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
