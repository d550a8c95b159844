"""Entries in File > Import."""

import bpy


def menu_import(self, context):
    self.layout.operator("import_scene.gltf_sqlerp", text="glTF 2.0 with exact animation (.glb/.gltf)")


def register():
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
