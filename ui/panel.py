"""The add-on's sidebar panel in the 3D viewport (N panel, tab "glTF Sqlerp")."""

import bpy


class GLTF_SQLERP_PT_animation(bpy.types.Panel):
    bl_idname = "GLTF_SQLERP_PT_animation"
    bl_label = "glTF Sqlerp Animation"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "glTF Sqlerp"

    def draw(self, context):
        column = self.layout.column(align=True)
        column.operator("import_scene.gltf_sqlerp", text="Import glTF (Exact)", icon='IMPORT')
        column.operator("gltf_sqlerp.check_file", icon='CHECKMARK')
