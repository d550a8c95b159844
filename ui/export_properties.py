"""Settings saved with the .blend: how glTF exports write rotations while this add-on is enabled
(the "EXT_animation_sqlerp" panel inside File > Export > glTF 2.0, and the defaults of
``export_scene.gltf_sqlerp``)."""

import bpy

from ..operators.exporting import options
from ..core import EXTENSION_NAME

PROPERTY = "gltf_sqlerp_export"


class GLTF_SQLERP_PG_export(bpy.types.PropertyGroup):
    enabled: bpy.props.BoolProperty(
        name=EXTENSION_NAME, default=True,
        description="Write rotations as CUBICSLERP samplers fitted to Blender's motion, with a fallback")
    tolerance: options.tolerance_property()
    precision: options.precision_property()
    fallback: options.fallback_property()
    fallback_tolerance: options.fallback_tolerance_property()
    property_tolerance: options.property_tolerance_property()
    world_space: options.world_space_property()


def register() -> None:
    bpy.utils.register_class(GLTF_SQLERP_PG_export)
    # Added at run time: the stubs' Scene has no such attribute to assign.
    setattr(bpy.types.Scene, PROPERTY, bpy.props.PointerProperty(type=GLTF_SQLERP_PG_export))


def unregister() -> None:
    delattr(bpy.types.Scene, PROPERTY)
    bpy.utils.unregister_class(GLTF_SQLERP_PG_export)
