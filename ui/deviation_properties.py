"""The last deviation report, kept on the scene for the panel: ``scene.gltf_sqlerp_deviation``.

Written by ``gltf_sqlerp.deviation_report`` and ``gltf_sqlerp.add_keys``
(operators/deviation.store_summary): the action reported, a one-line summary, and the worst rows
(at most operators.preview.deviation.SUMMARY_ROWS), each with the three pair maxima (degrees for
rotations; -1 where Blender's curves could not be compared), then the worst pointer curves (source
'POINTER': Blender's curve against the import's reference, absolute in ``ext_blender`` and in units
of its range in ``relative``), and ``lines``: the same as text, one
label per line.
"""

import bpy

PROPERTY = "gltf_sqlerp_deviation"


class GLTF_SQLERP_PG_deviation_row(bpy.types.PropertyGroup):
    target: bpy.props.StringProperty(name="Target", description="Bone, object or shape keys")
    path: bpy.props.StringProperty(name="Path", description="glTF path of the channel")
    source: bpy.props.StringProperty(name="Source", description="What Blender's curves should play")
    unit: bpy.props.StringProperty(name="Unit", description="'°' for rotations")
    ext_fallback: bpy.props.FloatProperty(name="Extension - Fallback", precision=5)
    ext_blender: bpy.props.FloatProperty(name="Extension - Blender", precision=5)
    fallback_blender: bpy.props.FloatProperty(name="Fallback - Blender", precision=5)
    relative: bpy.props.FloatProperty(
        name="Of Range", description="Pointer curves (source POINTER): the largest difference between "
        "Blender's curve and the import's reference, in units of the curve's range; -1 for channels",
        precision=7)
    blender_frame: bpy.props.FloatProperty(
        name="Frame",
        description="Action frame where Blender's curves deviate most from the source")
    note: bpy.props.StringProperty(name="Note")


class GLTF_SQLERP_PG_deviation(bpy.types.PropertyGroup):
    action: bpy.props.StringProperty(name="Action", description="The action last reported")
    summary: bpy.props.StringProperty(name="Summary")
    lines: bpy.props.StringProperty(name="Lines", description="The summary and one line per row, "
                                    "newline-separated, ready to draw as labels")
    rows: bpy.props.CollectionProperty(type=GLTF_SQLERP_PG_deviation_row)


_classes = (GLTF_SQLERP_PG_deviation_row, GLTF_SQLERP_PG_deviation)


def register() -> None:
    for cls in _classes:
        bpy.utils.register_class(cls)
    # Added at run time: the stubs' Scene has no such attribute to assign.
    setattr(bpy.types.Scene, PROPERTY, bpy.props.PointerProperty(type=GLTF_SQLERP_PG_deviation))


def unregister() -> None:
    delattr(bpy.types.Scene, PROPERTY)
    for cls in reversed(_classes):
        bpy.utils.unregister_class(cls)
