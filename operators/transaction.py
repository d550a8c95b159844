"""All-or-nothing changes to the .blend: remember which data-blocks exist, remove what a failed
operation added.

The bundled importer builds objects, meshes, armatures, materials, images and actions as it goes;
if anything fails half-way, ``rollback`` removes every data-block that was not there before.
"""

import bpy


def _blocks() -> dict[bpy.types.ID, set[bpy.types.ID]]:
    """Every data-block in the file (with its users)."""
    # user_map's three arguments are optional (None is refused); the stubs make them required.
    return bpy.data.user_map()  # pyright: ignore[reportCallIssue]


def snapshot() -> set[int]:
    """The set of every data-block in the file (by address; names can be reused)."""
    return {block.as_pointer() for block in _blocks()}


def added_since(before: set[int]) -> list[bpy.types.ID]:
    return [block for block in _blocks() if block.as_pointer() not in before]


def rollback(before: set[int]) -> int:
    """Remove every data-block added since ``before``; return how many."""
    added = added_since(before)
    if added:
        bpy.data.batch_remove(added)
    return len(added)
