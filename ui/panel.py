"""The add-on's sidebar panel in the 3D viewport (N panel, tab "glTF Sqlerp"), in the order a user
works: import a file, pick a clip of the active object, preview it exactly, check how far
Blender's curves are from the spec, export with CUBICSLERP rotations. Sections whose operators are
not registered are not drawn."""

from typing import Protocol, cast

import bpy

from ..operators import imported_clips
from .export_dialog import draw_settings


class _ClipButton(Protocol):
    """gltf_sqlerp.activate_clip's properties on its button (the stubs' OperatorProperties has none)."""
    action: str


class _ImportButton(Protocol):
    """import_scene.gltf_sqlerp's property that the Add Clips to Rig button sets."""
    onto: str


class _ExportButton(Protocol):
    """export_scene.gltf_sqlerp's properties that its button sets."""
    tolerance: float
    fallback: str
    fallback_tolerance: float
    precision: str
    property_tolerance: float
    world_space: bool


def _registered(idname: str) -> bool:
    category, name = idname.split(".")
    return name in dir(getattr(bpy.ops, category))


class GLTF_SQLERP_PT_animation(bpy.types.Panel):
    bl_idname = "GLTF_SQLERP_PT_animation"
    bl_label = "glTF Sqlerp Animation"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "glTF Sqlerp"

    def draw(self, context: bpy.types.Context) -> None:
        layout = self.layout
        if layout is None:  # Blender draws a panel with its layout
            return
        column = layout.column(align=True)
        column.operator("import_scene.gltf_sqlerp", text="Import glTF (Exact)", icon='IMPORT')
        add = column.row(align=True)
        add.enabled = context.active_object is not None
        cast(_ImportButton, add.operator("import_scene.gltf_sqlerp", text="Add Clips to Rig",
                                         icon='ARMATURE_DATA')).onto = 'ACTIVE'
        column.operator("gltf_sqlerp.check_file", icon='CHECKMARK')
        draw_clips(layout.box(), context)
        draw_preview(layout, context)
        draw_deviation(layout, context)
        draw_export(layout, context)


def draw_clips(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    obj = context.active_object
    layout.label(text=f"Clips of {obj.name}" if obj else "Clips", icon='ACTION')
    clips = imported_clips(obj)
    if not clips:
        layout.label(text="Select an object with imported glTF clips")
        return
    column = layout.column(align=True)
    for clip in clips:
        button = cast(_ClipButton, column.operator("gltf_sqlerp.activate_clip", text=clip.name, depress=clip.active,
                                                   icon='PLAY' if clip.active else 'BLANK1'))
        button.action = clip.action.name


def draw_preview(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    settings = getattr(context.scene, "gltf_sqlerp_preview", None)
    if settings is None:
        return
    box = layout.box()
    box.prop(settings, "enabled")
    row = box.row()
    row.active = settings.enabled
    row.prop(settings, "source", expand=True)


def draw_deviation(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    if not _registered("gltf_sqlerp.deviation_report"):
        return
    box = layout.box()
    row = box.row(align=True)
    row.operator("gltf_sqlerp.deviation_report", icon='VIEWZOOM')
    if _registered("gltf_sqlerp.add_keys"):
        row.operator("gltf_sqlerp.add_keys", icon='KEY_HLT')
    summary = getattr(context.scene, "gltf_sqlerp_deviation", None)
    for line in getattr(summary, "lines", "").splitlines() if summary is not None else ():
        box.label(text=line)


def draw_export(layout: bpy.types.UILayout, context: bpy.types.Context) -> None:
    settings = getattr(context.scene, "gltf_sqlerp_export", None)
    if settings is None or not _registered("export_scene.gltf_sqlerp"):
        return
    box = layout.box()
    # The button carries the scene's settings (saved with the .blend) into the operator.
    button = cast(_ExportButton, box.operator("export_scene.gltf_sqlerp", text="Export glTF (CUBICSLERP)",
                                              icon='EXPORT'))
    button.tolerance, button.fallback = settings.tolerance, settings.fallback
    button.fallback_tolerance, button.precision = settings.fallback_tolerance, settings.precision
    button.property_tolerance, button.world_space = settings.property_tolerance, settings.world_space
    draw_settings(box.column(), settings, show_enabled=False)
