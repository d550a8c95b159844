"""Reading float accessors of a .gltf with plain json and struct, independently of the core: the
outside reference that tests compare the core and Blender with."""

import json
import struct

import numpy as np

WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def raw_accessor(path, index):
    """Float accessor ``index`` of the .gltf at ``path`` (external .bin), as (count, width)."""
    document = json.loads(path.read_text())
    accessor = document["accessors"][index]
    view = document["bufferViews"][accessor["bufferView"]]
    width = WIDTHS[accessor["type"]]
    blob = (path.parent / document["buffers"][view["buffer"]]["uri"]).read_bytes()
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    stride = view.get("byteStride", 4 * width)
    rows = [struct.unpack_from(f"<{width}f", blob, start + i * stride)
            for i in range(accessor["count"])]
    return np.array(rows, dtype=np.float64).reshape(-1, width)
