"""core.gltf.accessors.read_accessor refuses what the buffers cannot hold and what the JSON gets
wrong: accessors and buffer views past their ends, absurd counts (fast, without allocating),
malformed fields, missing accessors and buffers.

Expected codes and pointers are glTF-Validator's names for these faults; the bounds are the glTF 2.0
spec's (§3.6.2.4: byteOffset + byteStride * (count - 1) + element size <= bufferView.byteLength).
"""

import struct
import time
import tracemalloc

import pytest

from helpers.accessor_files import FLOAT, UNSIGNED_BYTE, accessor, gltf, raises

from gltf_sqlerp.core.gltf.accessors import read_accessor
from gltf_sqlerp.core.gltf.errors import GltfError


def test_accessor_that_exactly_fits_and_one_byte_more():
    # Spec: byteOffset + stride * (count - 1) + element size <= bufferView.byteLength.
    data = bytes(range(44))
    fits = [{"buffer": 0, "byteLength": 44, "byteStride": 16}]
    assert read_accessor(gltf([accessor(FLOAT, "VEC3", 3)], data, fits), 0).shape == (3, 3)
    short = [{"buffer": 0, "byteLength": 43, "byteStride": 16}]
    raises("ACCESSOR_TOO_LONG", "/accessors/0", gltf([accessor(FLOAT, "VEC3", 3)], data, short))


def test_accessor_longer_than_its_view_at_its_index():
    data = struct.pack("<4f", 0, 1, 2, 3)
    views = [{"buffer": 0, "byteLength": 16}, {"buffer": 0, "byteOffset": 8, "byteLength": 8}]
    items = [accessor(FLOAT, "SCALAR", 4), dict(accessor(FLOAT, "VEC2", 2), bufferView=1),
             dict(accessor(FLOAT, "SCALAR", 2), bufferView=1, byteOffset=4)]
    file = gltf(items, data, views)
    assert read_accessor(file, 0)[:, 0].tolist() == [0, 1, 2, 3]
    raises("ACCESSOR_TOO_LONG", "/accessors/1", file, 1)
    raises("ACCESSOR_TOO_LONG", "/accessors/2", file, 2)


def test_view_longer_than_its_buffer():
    views = [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 4, "byteLength": 8}]
    file = gltf([accessor(FLOAT, "SCALAR", 2), dict(accessor(FLOAT, "SCALAR", 1), bufferView=1)],
                b"\0" * 8, views)
    assert read_accessor(file, 0).shape == (2, 1)
    raises("BUFFER_VIEW_TOO_LONG", "/bufferViews/1", file, 1)


@pytest.mark.parametrize("item", [
    accessor(FLOAT, "MAT4", 10**15),                               # petabytes of matrices
    accessor(FLOAT, "VEC4", 2**62),
    dict(accessor(UNSIGNED_BYTE, "SCALAR", 2**40), byteOffset=2**40),
])
def test_absurd_count_on_a_tiny_buffer_fails_fast_without_allocating(item):
    file = gltf([item], b"\0" * 4)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        raises("ACCESSOR_TOO_LONG", "/accessors/0", file)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 0.2
    assert peak < 1 << 20  # numpy reports its allocations to tracemalloc


def test_absurd_count_without_buffer_view_fails_fast_without_allocating():
    file = gltf([{"componentType": FLOAT, "type": "MAT4", "count": 10**12}], b"\0" * 4)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        raises("ACCESSOR_TOO_LARGE", "/accessors/0", file)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 0.2 and peak < 1 << 20


@pytest.mark.parametrize("change, code, pointer", [
    ({"bufferView": 3}, "UNRESOLVED_REFERENCE", "/accessors/0/bufferView"),
    ({"bufferView": -1}, "UNRESOLVED_REFERENCE", "/accessors/0/bufferView"),
    ({"bufferView": None}, "UNRESOLVED_REFERENCE", "/accessors/0/bufferView"),
    ({"componentType": 5124}, "VALUE_NOT_IN_LIST", "/accessors/0/componentType"),  # no INT in glTF
    ({"componentType": [5126]}, "VALUE_NOT_IN_LIST", "/accessors/0/componentType"),
    ({"componentType": True}, "VALUE_NOT_IN_LIST", "/accessors/0/componentType"),
    ({"type": "VEC5"}, "VALUE_NOT_IN_LIST", "/accessors/0/type"),
    ({"type": {"VEC3": 1}}, "VALUE_NOT_IN_LIST", "/accessors/0/type"),
    ({"count": 0}, "TYPE_MISMATCH", "/accessors/0/count"),
    ({"count": 1.5}, "TYPE_MISMATCH", "/accessors/0/count"),
    ({"count": None}, "UNDEFINED_PROPERTY", "/accessors/0/count"),
    ({"byteOffset": -4}, "TYPE_MISMATCH", "/accessors/0/byteOffset"),
])
def test_malformed_accessor_fields(change, code, pointer):
    item = accessor(FLOAT, "SCALAR", 1)
    item.update(change)
    if change.get("count", 1) is None:
        del item["count"]
    raises(code, pointer, gltf([item], b"\0" * 4))


@pytest.mark.parametrize("index", [1, -1, "0", True])
def test_missing_accessor(index):
    with pytest.raises(GltfError) as info:
        read_accessor(gltf([accessor(FLOAT, "SCALAR", 1)], b"\0" * 4), index)
    assert info.value.code == "UNRESOLVED_REFERENCE"
    assert info.value.pointer == f"/accessors/{index}"


def test_view_of_a_missing_buffer_and_of_a_buffer_without_data():
    file = gltf([accessor(FLOAT, "SCALAR", 1)], b"\0" * 4, [{"buffer": 2, "byteLength": 4}])
    raises("UNRESOLVED_REFERENCE", "/bufferViews/0/buffer", file)
    file = gltf([accessor(FLOAT, "SCALAR", 1)], b"\0" * 4)
    file.buffers[0] = None  # e.g. a GLB buffer 0 without a BIN chunk
    raises("BUFFER_MISSING_DATA", "/buffers/0", file)
