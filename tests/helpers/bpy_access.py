"""What the tests and their child jobs reach in Blender that the bpy type stubs cannot describe
(not a test module). The add-on registers its operators (``export_scene.gltf_sqlerp``,
``gltf_sqlerp.check_file`` ...) and its scene settings (``scene.gltf_sqlerp_export`` ...) at run
time, so they are looked up by name here; the stubs type ``bpy.context.scene`` ``Scene | None``.
bpy is imported inside each function: core-only runs need no Blender, and the child jobs set
Blender's user folder before the first import.
"""


def operator(idname):
    """``bpy.ops.<idname>``: ``operator("export_scene.gltf_sqlerp")(filepath=...)``,
    ``operator("gltf_sqlerp.activate_clip").poll()``."""
    import bpy
    category, name = idname.split(".")
    return getattr(getattr(bpy.ops, category), name)


def settings(scene, name):
    """The add-on's property group ``scene.<name>`` ('gltf_sqlerp_export', 'gltf_sqlerp_import',
    'gltf_sqlerp_preview', 'gltf_sqlerp_deviation')."""
    return getattr(scene, name)


def current_scene():
    """``bpy.context.scene``: None only in a context without any window or file, never here."""
    import bpy
    scene = bpy.context.scene
    assert scene is not None
    return scene
