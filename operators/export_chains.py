"""The first shares of the export's tolerances per rotation channel, from Blender's hierarchy.

Errors add up along chains of animated bones (export_world measures them and tightens what misses);
a channel starts at 1 / sqrt(n) of the tolerances, n the most animated rotations on one chain
through it: errors of independent fits add up about as a random walk does, so most chains hold
at the first fit, at far coarser keys than the certain split (1 / n) needs. Read from Blender (a
bone's parent, an object's parent or parent bone), not from the exporter's tree, so that the
head start (export_headstart) predicts the very tasks the export builds. Imports nothing of the
bundled exporter: the head start runs where its internals moved too.
"""

import bpy
import numpy as np

from ..core.world_error import chain_shares


def initial_shares(keys):
    """{(object name, bone name or None): share of the tolerances} for the rotation channels
    ``keys`` that play together: 1 / sqrt(n), n the most of them on one chain through each."""
    index, parents = {}, []
    for key in keys:
        chain = []
        while key is not None and key not in index:
            chain.append(key)
            key = _blender_parent(key)
        parent = index[key] if key is not None else -1
        for link in reversed(chain):  # from the top down: parents get their index first
            index[link] = len(parents)
            parents.append(parent)
            parent = index[link]
    animated = np.zeros(len(parents), dtype=bool)
    animated[[index[key] for key in keys]] = True
    shares = np.sqrt(chain_shares(np.array(parents, dtype=np.intp), animated)) if parents else []
    return {key: float(shares[index[key]]) for key in keys}


def _blender_parent(key):
    """The (object, bone) key of what Blender parents ``key`` to, or None at a root."""
    obj = bpy.data.objects.get(key[0])
    if obj is None:
        return None
    if key[1] is not None:
        bone = obj.pose.bones.get(key[1]) if obj.pose else None
        if bone is not None and bone.parent is not None:
            return (obj.name, bone.parent.name)
        return (obj.name, None)
    if obj.parent is None:
        return None
    bone = obj.parent_bone if obj.parent_type == 'BONE' and obj.parent_bone else None
    return (obj.parent.name, bone)
