"""Settings saved with the .blend: how File > Import > glTF 2.0 treats animation while this add-on
is enabled (the "Exact animation" panel inside the bundled import dialog)."""

import bpy

from ..operators.importing import ONTO_ITEMS, SOURCE_ITEMS

PROPERTY = "gltf_sqlerp_import"


class GLTF_SQLERP_PG_import(bpy.types.PropertyGroup):
    exact_animation: bpy.props.BoolProperty(
        name="Exact Animation", default=True,
        description="Write animation so that Blender plays exactly what the glTF spec says "
        "(glTF Sqlerp Animation)")
    source: bpy.props.EnumProperty(name="Play", items=SOURCE_ITEMS, default='EXTENSION')
    rotation_tolerance: bpy.props.FloatProperty(
        name="Rotation Tolerance", description="Largest angle (degrees) between Blender's curves "
        "and the spec at any time", default=0.01, min=0.0001, max=10.0, precision=4)
    bake: bpy.props.BoolProperty(name="Bake Every Frame", default=False,
                                 description="LINEAR keys on every frame instead of fitted curves")
    onto: bpy.props.EnumProperty(name="Onto", items=ONTO_ITEMS, default='NEW')
    prefix_map: bpy.props.StringProperty(
        name="Name Prefixes", default="", description="Onto a rig: file=rig name prefixes, "
        "comma-separated (e.g. 'mixamorig:=' matches the file's 'mixamorig:Hips' with 'Hips')")


def register() -> None:
    bpy.utils.register_class(GLTF_SQLERP_PG_import)
    # Added at run time: the stubs' Scene has no such attribute to assign.
    setattr(bpy.types.Scene, PROPERTY, bpy.props.PointerProperty(type=GLTF_SQLERP_PG_import))


def unregister() -> None:
    delattr(bpy.types.Scene, PROPERTY)
    bpy.utils.unregister_class(GLTF_SQLERP_PG_import)
