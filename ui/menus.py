"""Entries in File > Import and File > Export."""

import bpy


def menu_import(self, context):
    self.layout.operator("import_scene.gltf_sqlerp", text="glTF 2.0 with exact animation (.glb/.gltf)")


def menu_export(self, context):
    self.layout.operator("export_scene.gltf_sqlerp", text="glTF 2.0 with CUBICSLERP rotations (.glb/.gltf)")


def register():
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
