"""The names this add-on reads and writes, and its default tolerances: one place for each.

As glTF-Transform keeps its extension names in one constants module, every module here imports
these instead of writing the strings again (tests/repository/test_layout.py fails on a copy elsewhere). The
extension's text: docs/EXT_animation_sqlerp/README.md.

>>> EXTENSION_NAME, CUBICSLERP
('EXT_animation_sqlerp', 'CUBICSLERP')
>>> CUBICSLERP in INTERPOLATIONS and CUBICSLERP in CUBIC_INTERPOLATIONS
True
"""

EXTENSION_NAME = "EXT_animation_sqlerp"
"""The extension: in ``extensionsUsed`` / ``extensionsRequired`` and as a channel's extension object."""

CUBICSLERP = "CUBICSLERP"
"""The interpolation of the extension's samplers: squad through in-tangent, value, out-tangent."""

POINTER_EXTENSION_NAME = "KHR_animation_pointer"
"""The Khronos extension whose channels target any animatable property by a JSON pointer."""

INTERPOLATIONS = ("STEP", "LINEAR", "CUBICSPLINE", CUBICSLERP)
"""Every sampler interpolation the core plays: the glTF 2.0 three, and the extension's."""

CUBIC_INTERPOLATIONS = ("CUBICSPLINE", CUBICSLERP)
"""The interpolations whose samplers hold three outputs per key (in-tangent, value, out-tangent)."""

ROTATION_TOLERANCE_DEG = 0.01
"""Default bound, in degrees, on a rotation's error: the import's Blender curves against the spec,
the export's CUBICSLERP curves against the motion Blender plays (of every bone's world rotation)."""

FALLBACK_TOLERANCE_DEG = 0.1
"""Default bound, in degrees, on a LINEAR fallback's error against the curve it stands in for."""
