"""The valid base asset every hostile case is made from, and its serializations.

Two nodes (node 0 with a one-triangle mesh and node 1 as its child), one animation with a LINEAR
rotation channel that plays a CUBICSLERP sampler through EXT_animation_sqlerp, a LINEAR
translation, a STEP scale and a CUBICSPLINE translation; one buffer, one buffer view per accessor.
"""

import json
import math
import struct
from typing import Callable

import numpy as np

EXTENSION = "EXT_animation_sqlerp"
BIN_NAME = "base.bin"
GIB_COUNT = 1 << 31  # an element count that would need gigabytes


def _quat(axis, degrees):
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    half = math.radians(degrees) / 2
    return [*(axis * math.sin(half)), math.cos(half)]


def base_arrays():
    """The accessor data of the base asset, by accessor index (float32 arrays)."""
    q0, q1 = _quat((0, 0, 1), 0), _quat((0, 0, 1), 90)
    qa, qb = _quat((0, 0, 1), 20), _quat((0, 0, 1), 70)
    return {
        0: [[0.0], [1.0]],                                   # key times (every sampler)
        1: [q0, q1],                                         # LINEAR rotation (the fallback)
        2: [q0, q0, qa, qb, q1, q1],                         # CUBICSLERP a1 v1 b1 a2 v2 b2
        3: [[0, 0, 0], [1, 2, 3]],                           # LINEAR translation
        4: [[1, 1, 1], [2, 2, 2]],                           # STEP scale
        5: [[0, 0, 0], [0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0]],  # CUBICSPLINE
        6: [[0, 0, 0], [1, 0, 0], [0, 1, 0]],                # mesh POSITION
    }


TYPES = {0: "SCALAR", 1: "VEC4", 2: "VEC4", 3: "VEC3", 4: "VEC3", 5: "VEC3", 6: "VEC3"}


def base_document(arrays=None, uri: str | None = BIN_NAME):
    """(JSON dict, buffer bytes) of the valid base asset; ``arrays`` replaces accessor data
    (same layout as base_arrays); ``uri`` None leaves the buffer without a URI (for a .glb)."""
    arrays = base_arrays() if arrays is None else arrays
    blob, views, accessors = bytearray(), [], []
    for index in sorted(arrays):
        data = np.asarray(arrays[index], dtype=np.float32)
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": data.nbytes})
        accessor = {"bufferView": index, "componentType": 5126, "count": len(data),
                    "type": TYPES[index]}
        if index in (0, 6):
            finite = np.where(np.isfinite(data), data, 0.0)
            accessor["min"] = [float(v) for v in finite.min(axis=0)]
            accessor["max"] = [float(v) for v in finite.max(axis=0)]
        accessors.append(accessor)
        blob += data.tobytes()
    buffer: dict[str, int | str] = {"byteLength": len(blob)}
    if uri is not None:
        buffer["uri"] = uri
    document = {
        "asset": {"version": "2.0", "generator": "gltf_sqlerp hostile corpus"},
        "extensionsUsed": [EXTENSION],
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Root", "mesh": 0, "children": [1]},
                  {"name": "Child", "translation": [0, 1, 0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 6}}]}],
        "animations": [{
            "name": "Hostile",
            "samplers": [
                {"input": 0, "output": 1, "interpolation": "LINEAR"},
                {"input": 0, "output": 2, "interpolation": "CUBICSLERP"},
                {"input": 0, "output": 3, "interpolation": "LINEAR"},
                {"input": 0, "output": 4, "interpolation": "STEP"},
                {"input": 0, "output": 5, "interpolation": "CUBICSPLINE"},
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 1, "path": "rotation"},
                 "extensions": {EXTENSION: {"sampler": 1}}},
                {"sampler": 2, "target": {"node": 0, "path": "translation"}},
                {"sampler": 3, "target": {"node": 0, "path": "scale"}},
                {"sampler": 4, "target": {"node": 1, "path": "translation"}},
            ],
        }],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [buffer],
    }
    return document, bytes(blob)


def dump_json(document: dict) -> bytes:
    """The JSON text of ``document`` as a case writes it (indented by one space)."""
    # allow_nan: Python writes NaN/Infinity literals, which a hostile file may well contain.
    return json.dumps(document, indent=1).encode("utf-8")


def glb_bytes(json_bytes, bin_bytes=None, chunks=None):
    """A .glb container; ``chunks`` ([(type, bytes)]) replaces the JSON and BIN chunks."""
    if chunks is None:
        json_bytes = json_bytes + b" " * (-len(json_bytes) % 4)
        chunks = [(0x4E4F534A, json_bytes)]
        if bin_bytes is not None:
            chunks.append((0x004E4942, bin_bytes + b"\0" * (-len(bin_bytes) % 4)))
    body = b"".join(struct.pack("<II", len(data), kind) + data for kind, data in chunks)
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def base_glb(mutate: Callable[[dict], None] | None = None) -> tuple[bytes, bytes]:
    """(JSON bytes, BIN chunk) of the base asset for a .glb, its JSON changed by ``mutate``."""
    document, blob = base_document(uri=None)
    if mutate is not None:
        mutate(document)
    return dump_json(document), blob

