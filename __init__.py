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
