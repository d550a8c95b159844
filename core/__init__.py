"""The add-on's Blender-free core: read, validate and evaluate glTF animation with numpy only.

Scripting API (documented in the README)::

    from gltf_sqlerp import core
    doc = core.load("arm.gltf")            # -> Document; raises core.GltfError
    clip = doc.animations[0]                # .name, .duration, .channels
    channel = clip.channels[0]              # .node, .path, .sampler, .fallback
    channel.evaluate(times)                 # (len(times), k); use_fallback=True for the fallback
    doc.node_matrices(0, 1.25)              # (node_count, 4, 4) global matrices
    doc.mesh_positions(node, 0, 1.25)       # one (V, 3) array per primitive
"""

from .sampling import Animation, Channel, Sampler
from .document import Document, load
from .gltf import Finding, GltfError

__all__ = ["load", "Document", "Animation", "Channel", "Sampler", "GltfError", "Finding"]
