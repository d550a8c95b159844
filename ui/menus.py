"""Entries in File > Import and File > Export."""

import bpy


def menu_import(self: bpy.types.Menu, context: bpy.types.Context) -> None:
    if self.layout is not None:  # a menu's draw function always has one
        self.layout.operator("import_scene.gltf_sqlerp", text="glTF 2.0 with exact animation (.glb/.gltf)")


def menu_export(self: bpy.types.Menu, context: bpy.types.Context) -> None:
    if self.layout is not None:
        self.layout.operator("export_scene.gltf_sqlerp", text="glTF 2.0 with CUBICSLERP rotations (.glb/.gltf)")


def register() -> None:
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
