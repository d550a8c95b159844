"""All-or-nothing changes to the .blend: remember which data-blocks exist, remove what a failed
operation added.

The bundled importer builds objects, meshes, armatures, materials, images and actions as it goes;
if anything fails half-way, ``rollback`` removes every data-block that was not there before.
"""

import bpy


def snapshot():
    """The set of every data-block in the file (by address; names can be reused)."""
    return {block.as_pointer() for block in bpy.data.user_map()}


def added_since(before):
    return [block for block in bpy.data.user_map() if block.as_pointer() not in before]


def rollback(before):
    """Remove every data-block added since ``before``; return how many."""
    added = added_since(before)
    if added:
        bpy.data.batch_remove(added)
    return len(added)
