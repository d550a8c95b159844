"""The live preview's settings, saved with the .blend: ``scene.gltf_sqlerp_preview``.

``enabled`` ("Play glTF Exactly") and ``source`` choose what imported clips play: the CUBICSLERP
extension or the fallback sampler evaluated by the core on every frame change
(operators/preview/live.py), or Blender's own F-curves ('BLENDER', the same as the preview off); "as
exported" ('EXPORTED', 'EXPORTED_FALLBACK') also plays actions keyed in Blender the way the
CUBICSLERP export and its fallback would write them (operators/preview/exported.py).

No update callbacks: the bpy module of Blender 4.2 crashes at exit once a PropertyGroup whose
properties have Python callbacks has been registered. operators/preview/live.py watches both through
the message bus instead, so a change made in the UI shows at once. A script that sets them sees
the change at the next frame change; ``operators.preview.refresh(scene)`` (or the operator
``gltf_sqlerp.preview_toggle``) shows it at once.
"""

import bpy

PROPERTY = "gltf_sqlerp_preview"
PREVIEW_SOURCE_ITEMS = (
    ('EXTENSION', "CUBICSLERP Extension",
     "Play imported clips exactly as the glTF file says, EXT_animation_sqlerp included"),
    ('FALLBACK', "Fallback",
     "Play the fallback samplers exactly: what viewers without EXT_animation_sqlerp show"),
    ('EXPORTED', "As Exported (CUBICSLERP)",
     "Actions keyed in Blender: play what the CUBICSLERP export would write (the scene's export "
     "settings); imported clips play their extension"),
    ('EXPORTED_FALLBACK', "As Exported (Fallback)",
     "Actions keyed in Blender: play what the export's fallback would write; imported clips play "
     "their fallback"),
    ('BLENDER', "Blender F-Curves", "Play Blender's own F-curves (the same as the preview off)"),
)


class GLTF_SQLERP_PG_preview(bpy.types.PropertyGroup):
    enabled: bpy.props.BoolProperty(
        name="Play glTF Exactly", default=False,
        description="Pose armatures, objects and shape keys of imported clips from the glTF "
        "samplers on every frame change (keyframes are left untouched)")
    source: bpy.props.EnumProperty(name="Source", items=PREVIEW_SOURCE_ITEMS, default='EXTENSION',
                                   description="What imported clips play")


def register() -> None:
    bpy.utils.register_class(GLTF_SQLERP_PG_preview)
    # Added at run time: the stubs' Scene has no such attribute to assign.
    setattr(bpy.types.Scene, PROPERTY, bpy.props.PointerProperty(type=GLTF_SQLERP_PG_preview))
    from ..operators.preview import live as preview
    preview.watch_settings()


def unregister() -> None:
    from ..operators.preview import live as preview
    preview.unwatch_settings()
    delattr(bpy.types.Scene, PROPERTY)
    bpy.utils.unregister_class(GLTF_SQLERP_PG_preview)
