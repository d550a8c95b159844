"""The export's options, one definition each: properties of ``export_scene.gltf_sqlerp`` (scripts)
and of the scene's export settings (ui/export_properties.py: the bundled dialog, the sidebar), made
by one function each so that the two cannot drift apart."""

from typing import Any

import bpy

# What bpy.props' functions return: bpy.props._PropertyDeferred, a property for a class annotation.
# The stubs lack that class (they type the calls as returning None), so it is Any here.
PropertyDefinition = Any

FALLBACK_ITEMS = (
    ('AUTO', "Smallest Fitted", "LINEAR or CUBICSPLINE (at all or some of the CUBICSLERP key times), "
     "whichever writes fewer bytes within the fallback tolerance of the CUBICSLERP curve, never with "
     "more keys than a key per frame"),
    ('LINEAR', "LINEAR, Fitted", "A LINEAR sampler with as few keys as keep it within the fallback "
     "tolerance of the CUBICSLERP curve (viewers without the extension play it)"),
    ('SAMPLED', "LINEAR, Every Frame", "The bundled exporter's own per-frame LINEAR sampler"),
    ('CUBICSPLINE', "CUBICSPLINE, Fitted", "A CUBICSPLINE sampler at the CUBICSLERP key times, "
     "tangents fitted to the CUBICSLERP curve"),
    ('NONE', "None (Required)", "No usable fallback: a one-key STEP sampler, and "
     "EXT_animation_sqlerp in extensionsRequired (viewers without it refuse the file)"),
)


PRECISION_ITEMS = (
    ('SHORT', "16-bit", "Normalized 16-bit quaternion components: half the bytes of floats, up to "
     "0.0035 degrees of rounding, which the fit leaves room for within the tolerance"),
    ('FLOAT', "32-bit Float", "Float quaternion components"),
)


def tolerance_property() -> PropertyDefinition:
    return bpy.props.FloatProperty(
        name="Tolerance", description="Largest angle (degrees) between the rotation the extension "
        "plays and Blender's, at any time (8 checks per frame): of every bone's and object's world "
        "rotation with World Space on, else of each channel's own", default=0.01, min=0.0001, max=10.0,
        precision=4)


def fallback_property() -> PropertyDefinition:
    return bpy.props.EnumProperty(name="Fallback", items=FALLBACK_ITEMS, default='AUTO')


def precision_property() -> PropertyDefinition:
    return bpy.props.EnumProperty(name="Precision", items=PRECISION_ITEMS, default='SHORT',
                                  description="How the CUBICSLERP sampler and a LINEAR fallback store "
                                  "their quaternions")


def fallback_tolerance_property() -> PropertyDefinition:
    return bpy.props.FloatProperty(
        name="Fallback Tolerance", description="Largest angle (degrees) between what viewers "
        "without the extension play (a fitted fallback) and the CUBICSLERP curve per channel, and "
        "Blender's world rotations with World Space on", default=0.1, min=0.001, max=10.0, precision=3)


def world_space_property() -> PropertyDefinition:
    return bpy.props.BoolProperty(
        name="World Space", default=True,
        description="Hold the tolerances for the world rotation of every bone and object: errors "
        "add up along chains of animated bones, so those are measured together and refitted finer "
        "where they miss (slower on rigs with long animated chains). Off: per channel")


def property_tolerance_property() -> PropertyDefinition:
    return bpy.props.FloatProperty(
        name="Location/Scale/Shape Key Tolerance", description="How far translation, scale and "
        "morph-weight channels may move from the per-frame samples, as a fraction of the model's size "
        "(the diagonal of its bounding box): translations by that share of the size, scales by that "
        "fraction of their value, weights by that much; animation pointer properties (materials, "
        "lights, cameras) by that fraction of max(1, their largest magnitude). Fewer keys are "
        "written where they stay within it; 0 keeps a key on every frame", default=1e-4, min=0.0,
        max=0.1, soft_min=1e-6, soft_max=0.01, precision=6,
        # Blender reads step as a float (1e-5 a click here); the stubs follow its docs, which say int.
        step=0.001)  # pyright: ignore[reportArgumentType]
