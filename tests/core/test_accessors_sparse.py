"""core.gltf.accessors.read_accessor on sparse accessors: values substituted at their indices,
over a base buffer view or over zeros, and the sparse objects it refuses.

Expected values come from the glTF 2.0 spec worked by hand (§3.6.2.3 sparse accessors: strictly
increasing unsigned indices, values laid out like the accessor's own elements, no more than count of
them) and from bytes packed here with ``struct``.
"""

import struct

import pytest

from helpers.accessor_files import FLOAT, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT, gltf, raises

from gltf_sqlerp.core.gltf.accessors import read_accessor


def sparse_file(index_type, indices, values, base=True, count=6):
    """Base: floats 0..count-1 (or no buffer view); sparse indices then values after it."""
    fmt = {UNSIGNED_BYTE: "B", UNSIGNED_SHORT: "H", UNSIGNED_INT: "I"}[index_type]
    base_bytes = struct.pack(f"<{count}f", *range(count))
    index_bytes = struct.pack(f"<{len(indices)}{fmt}", *indices)
    index_bytes += b"\0" * (-len(index_bytes) % 4)
    value_bytes = struct.pack(f"<{len(values)}f", *values)
    data = base_bytes + index_bytes + value_bytes
    views = [{"buffer": 0, "byteLength": len(base_bytes)},
             {"buffer": 0, "byteOffset": len(base_bytes), "byteLength": len(index_bytes)},
             {"buffer": 0, "byteOffset": len(base_bytes) + len(index_bytes),
              "byteLength": len(value_bytes)}]
    item = {"componentType": FLOAT, "type": "SCALAR", "count": count,
            "sparse": {"count": len(indices),
                       "indices": {"bufferView": 1, "componentType": index_type},
                       "values": {"bufferView": 2}}}
    if base:
        item["bufferView"] = 0
    return gltf([item], data, views)


@pytest.mark.parametrize("index_type", [UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT])
def test_sparse_values_replace_base_elements(index_type):
    result = read_accessor(sparse_file(index_type, [1, 4], [10.0, 40.0]), 0)
    assert result[:, 0].tolist() == [0.0, 10.0, 2.0, 3.0, 40.0, 5.0]


@pytest.mark.parametrize("index_type", [UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT])
def test_sparse_without_buffer_view_starts_from_zeros(index_type):
    result = read_accessor(sparse_file(index_type, [0, 2, 5], [7.0, 8.0, 9.0], base=False), 0)
    assert result[:, 0].tolist() == [7.0, 0.0, 8.0, 0.0, 0.0, 9.0]


def test_sparse_vec3_with_offsets():
    values = [(1.0, 2.0, 3.0), (4.0, 5.0, 6.0)]
    data = b"\xFF" * 4 + struct.pack("<2H", 3, 0) + b"\xFF" * 4 + struct.pack("<6f", *sum(values, ()))
    views = [{"buffer": 0, "byteLength": 8},
             {"buffer": 0, "byteOffset": 8, "byteLength": len(data) - 8}]
    item = {"componentType": FLOAT, "type": "VEC3", "count": 4,
            "sparse": {"count": 2,
                       "indices": {"bufferView": 0, "byteOffset": 4, "componentType": UNSIGNED_SHORT},
                       "values": {"bufferView": 1, "byteOffset": 4}}}
    raises("ACCESSOR_SPARSE_INDICES_NON_INCREASING", "/accessors/0/sparse/indices",
           gltf([item], data, views))
    data = b"\xFF" * 4 + struct.pack("<2H", 0, 3) + data[8:]
    result = read_accessor(gltf([item], data, views), 0)
    assert result.tolist() == [[1, 2, 3], [0, 0, 0], [0, 0, 0], [4, 5, 6]]


def test_sparse_normalized_values_are_decoded():
    data = bytes([1, 0, 0, 0]) + bytes([255, 0])  # index 1 (ubyte, padded), value (255, 0)
    views = [{"buffer": 0, "byteLength": 4}, {"buffer": 0, "byteOffset": 4, "byteLength": 2}]
    item = {"componentType": UNSIGNED_BYTE, "type": "VEC2", "count": 3, "normalized": True,
            "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": UNSIGNED_BYTE},
                       "values": {"bufferView": 1}}}
    result = read_accessor(gltf([item], data, views), 0)
    assert result.tolist() == [[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]


def test_sparse_mat2_byte_values_are_padded_like_any_matrix():
    # Sparse values are laid out like the accessor: MAT2 ubyte columns padded to 4 bytes.
    values = bytes([1, 2, 0xEE, 0xEE, 3, 4])  # trailing padding omitted
    data = bytes([1, 0, 0, 0]) + values
    views = [{"buffer": 0, "byteLength": 4}, {"buffer": 0, "byteOffset": 4, "byteLength": 6}]
    item = {"componentType": UNSIGNED_BYTE, "type": "MAT2", "count": 2,
            "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": UNSIGNED_BYTE},
                       "values": {"bufferView": 1}}}
    result = read_accessor(gltf([item], data, views), 0)
    assert result.tolist() == [[[0, 0], [0, 0]], [[1, 3], [2, 4]]]


@pytest.mark.parametrize("index_type", [UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT])
def test_sparse_index_out_of_range(index_type):
    raises("ACCESSOR_SPARSE_INDEX_OOB", "/accessors/0/sparse/indices",
           sparse_file(index_type, [1, 6], [1.0, 2.0]))


@pytest.mark.parametrize("indices", [[2, 2], [4, 1], [0, 3, 2]])
def test_sparse_indices_not_increasing(indices):
    raises("ACCESSOR_SPARSE_INDICES_NON_INCREASING", "/accessors/0/sparse/indices",
           sparse_file(UNSIGNED_SHORT, indices, [1.0] * len(indices)))


def test_sparse_count_larger_than_accessor():
    raises("ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE", "/accessors/0/sparse/count",
           sparse_file(UNSIGNED_BYTE, [0, 1, 2], [1.0, 2.0, 3.0], count=2))


def test_sparse_indices_must_be_unsigned_integers():
    file = sparse_file(UNSIGNED_INT, [1, 4], [1.0, 2.0])
    file.json["accessors"][0]["sparse"]["indices"]["componentType"] = FLOAT
    raises("VALUE_NOT_IN_LIST", "/accessors/0/sparse/indices/componentType", file)


def test_sparse_values_longer_than_their_view():
    file = sparse_file(UNSIGNED_SHORT, [1, 4], [1.0, 2.0])
    file.json["accessors"][0]["sparse"]["values"]["byteOffset"] = 4
    raises("ACCESSOR_TOO_LONG", "/accessors/0/sparse/values", file)
