"""The add-on's Blender-free core: read, validate and evaluate glTF animation with numpy only.

Scripting API (docs/manual/scripting.md; each call below has a runnable example in its docstring)::

    from gltf_sqlerp import core
    doc = core.load("arm.gltf")            # -> Document; raises core.GltfError
    clip = doc.animations[0]                # .name, .duration, .channels
    channel = clip.channels[0]              # .node, .path, .sampler, .fallback
    channel.evaluate(times)                 # (len(times), k); use_fallback=True for the fallback
    doc.node_matrices(0, 1.25)              # (node_count, 4, 4) global matrices
    doc.mesh_positions(node, 0, 1.25)       # one (V, 3) array per primitive
"""

from .constants import (CUBIC_INTERPOLATIONS, CUBICSLERP, EXTENSION_NAME, FALLBACK_TOLERANCE_DEG, INTERPOLATIONS,
                        POINTER_EXTENSION_NAME, ROTATION_TOLERANCE_DEG)
from .sampling import Animation, Channel, Sampler
from .document import Document, load
from .gltf import Finding, GltfError

__all__ = ["load", "Document", "Animation", "Channel", "Sampler", "GltfError", "Finding",
           # the extension's names and the default tolerances (core/constants.py)
           "EXTENSION_NAME", "CUBICSLERP", "POINTER_EXTENSION_NAME", "INTERPOLATIONS", "CUBIC_INTERPOLATIONS",
           "ROTATION_TOLERANCE_DEG", "FALLBACK_TOLERANCE_DEG"]
