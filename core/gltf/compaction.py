"""Dropping the accessors and buffer views nothing references any more, and the bytes they held.

A converted file replaces animation samplers' data: their old accessors stay in the JSON until
something removes them, and their bytes stay in the buffers. ``compact`` keeps every accessor a
mesh, skin, animation sampler or known extension references (and every buffer view those
accessors, images or known extensions reference), renumbers them in their order, rewrites every
reference, and rebuilds each buffer from the byte ranges of the views it keeps, in their order.

Which references exist depends on the extensions a file uses: an extension may name an accessor
or a buffer view by index anywhere in its object. ``unknown_extensions`` lists those of a file
this module cannot rewrite (neither known to hold no such reference nor handled here); a caller
must not compact such a file, since renumbering would silently break it.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ..constants import EXTENSION_NAME

# Extensions known to hold no accessor, buffer view or buffer index (materials, textures, lights,
# metadata; images and textures are never renumbered here). Every KHR_materials_* is such.
NO_BUFFER_REFERENCES = {
    "KHR_texture_transform", "KHR_lights_punctual", "KHR_texture_basisu", "EXT_texture_webp",
    "EXT_texture_avif", "MSFT_texture_dds", "KHR_mesh_quantization", "KHR_xmp_json_ld",
    "KHR_animation_pointer", "EXT_lights_image_based"}
# Extensions whose references ``compact`` rewrites (EXT_animation_sqlerp names samplers, which
# are never renumbered).
REWRITTEN = {"KHR_draco_mesh_compression", "EXT_mesh_gpu_instancing", EXTENSION_NAME}
DRACO, INSTANCING = "KHR_draco_mesh_compression", "EXT_mesh_gpu_instancing"


@dataclass(frozen=True)
class Compaction:
    """Where ``compact`` moved each accessor, buffer view and buffer.

    Attributes
    ----------
    accessors : (old count,) int array
        New index of each old accessor, -1 when dropped.
    views : (old count,) int array
        New index of each old buffer view, -1 when dropped.
    buffers : (old count,) int array
        New index of each old buffer, -1 when dropped.
    """

    accessors: np.ndarray
    views: np.ndarray
    buffers: np.ndarray

    @property
    def dropped_accessors(self) -> int:
        """How many accessors were dropped."""
        return int(np.count_nonzero(self.accessors < 0))


def unknown_extensions(gltf: dict[str, Any]) -> list[str]:
    """Find the extensions a document declares or holds that ``compact`` cannot rewrite.

    A caller must not compact a document that has any: renumbering would silently break it.

    Parameters
    ----------
    gltf : dict
        A glTF JSON document; its ``extensionsUsed`` and every ``extensions`` object in it count.

    Returns
    -------
    list of str
        Their names, sorted; empty when ``compact`` may run.

    Examples
    --------
    >>> document = {"extensionsUsed": ["KHR_materials_unlit", "EXT_meshopt_compression"],
    ...             "nodes": [{"extensions": {"MY_instances": {"accessor": 4}}}]}
    >>> unknown_extensions(document)  # every KHR_materials_* holds no buffer reference
    ['EXT_meshopt_compression', 'MY_instances']
    """
    names = set(n for n in gltf.get("extensionsUsed", []) if isinstance(n, str))
    return unknown_names(names | _extension_names(gltf))


def unknown_names(names: Iterable[str]) -> list[str]:
    """Select the extension names that may hold references ``compact`` cannot rewrite.

    Parameters
    ----------
    names : iterable of str
        Extension names.

    Returns
    -------
    list of str
        Those neither known to hold no accessor, buffer view or buffer index nor rewritten by
        ``compact``, sorted and without duplicates.

    Examples
    --------
    >>> unknown_names(["KHR_texture_transform", "KHR_draco_mesh_compression", "EXT_meshopt_compression"])
    ['EXT_meshopt_compression']
    """
    return sorted(n for n in set(names) if n not in NO_BUFFER_REFERENCES and n not in REWRITTEN
                  and not n.startswith("KHR_materials_"))


def _extension_names(value):
    """Every key of every ``extensions`` object anywhere in the JSON value."""
    found = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            extensions = item.get("extensions")
            if isinstance(extensions, dict):
                found.update(k for k in extensions if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def compact(gltf: dict[str, Any], buffers: Sequence[bytes | None]) -> tuple[list[bytes], Compaction]:
    """Drop the accessors, buffer views and bytes nothing references, renumbering the rest.

    Kept items stay in their order; each buffer keeps the byte ranges of its views, each at its
    old offset modulo 4 (every alignment the file met it still meets). Buffers left without a
    view are dropped.

    Parameters
    ----------
    gltf : dict
        A validated glTF JSON document without unknown_extensions; changed in place.
    buffers : sequence of bytes or None
        The bytes of each old buffer; None where a buffer has no data.

    Returns
    -------
    list of bytes
        The rebuilt bytes of each kept buffer (``gltf["buffers"]``' byteLength set to match).
    Compaction
        The old -> new index maps.

    Examples
    --------
    >>> scalar = {"componentType": 5126, "count": 1, "type": "SCALAR"}  # one float: 4 bytes
    >>> gltf = {"buffers": [{"byteLength": 8}], "skins": [{"inverseBindMatrices": 1}],
    ...         "bufferViews": [{"buffer": 0, "byteLength": 4}, {"buffer": 0, "byteOffset": 4, "byteLength": 4}],
    ...         "accessors": [{**scalar, "bufferView": 0}, {**scalar, "bufferView": 1}]}
    >>> buffers, compaction = compact(gltf, [b"AAAABBBB"])  # accessor 0 and its view are unused
    >>> buffers, compaction.accessors.tolist(), gltf["skins"]
    ([b'BBBB'], [-1, 0], [{'inverseBindMatrices': 0}])
    >>> gltf["bufferViews"], gltf["buffers"]
    ([{'buffer': 0, 'byteOffset': 0, 'byteLength': 4}], [{'byteLength': 4}])
    """
    accessor_map = _keep(len(gltf.get("accessors", [])), _accessor_references(gltf))
    _renumber(gltf, "accessors", _accessor_slots(gltf), accessor_map)
    view_map = _keep(len(gltf.get("bufferViews", [])), _view_references(gltf))
    _renumber(gltf, "bufferViews", _view_slots(gltf), view_map)
    new_buffers, buffer_map = _rebuild_buffers(gltf, buffers)
    return new_buffers, Compaction(accessor_map, view_map, buffer_map)


def _keep(count, referenced):
    """(count,) new indices: the referenced ones in their order, -1 for the others."""
    kept = np.zeros(count, dtype=bool)
    kept[[i for i in referenced if 0 <= i < count]] = True
    return np.where(kept, np.cumsum(kept) - 1, -1)


def _accessor_slots(gltf):
    """(object, key) of every accessor reference (the value object[key] is the index)."""
    slots = []
    for mesh in gltf.get("meshes", []):
        for primitive in mesh.get("primitives", []):
            attributes = primitive.get("attributes", {})
            slots += [(attributes, k) for k in attributes]
            if "indices" in primitive:
                slots.append((primitive, "indices"))
            for target in primitive.get("targets", []):
                slots += [(target, k) for k in target]
    slots += [(skin, "inverseBindMatrices") for skin in gltf.get("skins", [])
              if "inverseBindMatrices" in skin]
    for animation in gltf.get("animations", []):
        for sampler in animation.get("samplers", []):
            slots += [(sampler, k) for k in ("input", "output") if k in sampler]
    for node in gltf.get("nodes", []):
        attributes = node.get("extensions", {}).get(INSTANCING, {}).get("attributes", {})
        slots += [(attributes, k) for k in attributes]
    return slots


def _accessor_references(gltf):
    return [int(obj[key]) for obj, key in _accessor_slots(gltf)]


def _view_slots(gltf):
    """(object, key) of every buffer view reference."""
    slots = []
    for accessor in gltf.get("accessors", []):
        if "bufferView" in accessor:
            slots.append((accessor, "bufferView"))
        sparse = accessor.get("sparse")
        if isinstance(sparse, dict):
            slots += [(sparse[part], "bufferView") for part in ("indices", "values") if part in sparse]
    slots += [(image, "bufferView") for image in gltf.get("images", []) if "bufferView" in image]
    for mesh in gltf.get("meshes", []):
        for primitive in mesh.get("primitives", []):
            draco = primitive.get("extensions", {}).get(DRACO)
            if isinstance(draco, dict) and "bufferView" in draco:
                slots.append((draco, "bufferView"))
    return slots


def _view_references(gltf):
    return [int(obj[key]) for obj, key in _view_slots(gltf)]


def _renumber(gltf, key, slots, index_map):
    """Point every reference in ``slots`` at its new index and keep only the kept entries of
    ``gltf[key]`` (``index_map``: old index -> new index, -1 when dropped)."""
    for obj, slot in slots:
        obj[slot] = int(index_map[int(obj[slot])])
    gltf[key] = [item for item, new in zip(gltf.get(key, []), index_map) if new >= 0]
    if not gltf[key]:
        del gltf[key]


def _rebuild_buffers(gltf, buffers):
    """(new bytes per kept buffer, old -> new buffer map). Each buffer keeps the
    byte ranges of its views, overlapping ranges merged (views may share bytes), each range placed
    at its old offset modulo 4: every alignment the file met (accessor components, vertex
    strides) it still meets."""
    views = gltf.get("bufferViews", [])
    declared = gltf.get("buffers", [])
    rebuilt = []
    for b in range(len(declared)):
        mine = [v for v in views if int(v["buffer"]) == b]
        old = buffers[b] if b < len(buffers) else None
        rebuilt.append(_pack(mine, old) if mine else None)
    buffer_map = _keep(len(declared), [b for b, data in enumerate(rebuilt) if data is not None])
    for view in views:
        view["buffer"] = int(buffer_map[int(view["buffer"])])
    new_buffers = []
    for buffer, data in zip(declared, rebuilt):
        if data is not None:
            new_buffers.append(data)
            buffer["byteLength"] = len(data)
    gltf["buffers"] = [buffer for buffer, new in zip(declared, buffer_map) if new >= 0]
    if not gltf["buffers"]:
        del gltf["buffers"]
    return new_buffers, buffer_map


def _pack(views, data):
    """The bytes of the ranges ``views`` cover in ``data``; their byteOffsets set in place. When
    the views cover the whole buffer in place already, the buffer comes back unchanged."""
    starts = np.array([int(v.get("byteOffset", 0)) for v in views], dtype=np.int64)
    ends = starts + np.array([int(v["byteLength"]) for v in views], dtype=np.int64)
    order = np.argsort(starts, kind="stable")
    # A block starts where a view starts past every earlier view's end (overlaps merged).
    reach = np.maximum.accumulate(ends[order])
    new_block = np.ones(len(order), dtype=bool)
    new_block[1:] = starts[order][1:] >= reach[:-1]
    block_of = np.empty(len(order), dtype=np.intp)
    block_of[order] = np.cumsum(new_block) - 1
    block_starts = starts[order][new_block]
    block_ends = np.maximum.reduceat(ends[order], np.flatnonzero(new_block))
    parts, placed, length = [], [], 0
    for start, end in zip(block_starts.tolist(), block_ends.tolist()):
        gap = (start - length) % 4  # the same offset modulo 4 as before
        parts += [b"\0" * gap, data[start:end]]
        placed.append(length + gap)
        length += gap + end - start
    for view, start, block in zip(views, starts.tolist(), block_of.tolist()):
        offset = placed[block] + start - int(block_starts[block])
        if offset or "byteOffset" in view:  # the default stays implicit where it was
            view["byteOffset"] = offset
    return b"".join(parts)
