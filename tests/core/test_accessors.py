"""core.gltf.accessors.read_accessor: typed, strided, normalized, matrix and sparse views into buffers.

Expected values come from the glTF 2.0 spec worked by hand (§3.6.2 accessors: byteOffset, byteStride,
column-major matrices whose columns start on 4-byte boundaries, sparse substitution; §3.11 normalized
integers: byte max(c/127, -1), ubyte c/255, short max(c/32767, -1), ushort c/65535), from bytes
packed here with ``struct``, and from the Khronos sample models (their JSON min/max, and the same
model stored as .gltf, .glb, embedded and KHR_mesh_quantization variants).
"""

import struct
import time
import tracemalloc

import numpy as np
import pytest

from gltf_sqlerp.core.gltf.accessors import COMPONENT_TYPES, TYPE_SIZES, read_accessor
from gltf_sqlerp.core.gltf.errors import GltfError
from gltf_sqlerp.core.gltf.file import GltfFile, read_file

BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT, UNSIGNED_INT, FLOAT = 5120, 5121, 5122, 5123, 5125, 5126
KHRONOS = "khronos"


def gltf(accessors, data, views=None):
    """A GltfFile over one buffer; by default one buffer view spanning the whole buffer."""
    views = views if views is not None else [{"buffer": 0, "byteLength": len(data)}]
    document = {"asset": {"version": "2.0"}, "buffers": [{"byteLength": len(data)}],
                "bufferViews": views, "accessors": accessors}
    return GltfFile(json=document, buffers=[bytes(data)])


def accessor(component_type, kind, count, **extra):
    return {"bufferView": 0, "componentType": component_type, "type": kind, "count": count, **extra}


def raises(code, pointer, file, index=0):
    with pytest.raises(GltfError) as info:
        read_accessor(file, index)
    assert (info.value.code, info.value.pointer) == (code, pointer), str(info.value)


def test_tables_follow_the_spec():
    assert {k: (v.kind, v.itemsize) for k, v in COMPONENT_TYPES.items()} == {
        BYTE: ("i", 1), UNSIGNED_BYTE: ("u", 1), SHORT: ("i", 2), UNSIGNED_SHORT: ("u", 2),
        UNSIGNED_INT: ("u", 4), FLOAT: ("f", 4)}
    assert TYPE_SIZES == {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


# ---------------------------------------------------------------- component types


@pytest.mark.parametrize("component_type, fmt, values", [
    (BYTE, "b", [-128, -1, 0, 127]),
    (UNSIGNED_BYTE, "B", [0, 1, 200, 255]),
    (SHORT, "h", [-32768, -2, 3, 32767]),
    (UNSIGNED_SHORT, "H", [0, 7, 40000, 65535]),
    (UNSIGNED_INT, "I", [0, 1, 2**31, 2**32 - 1]),
])
def test_integer_components_keep_their_values(component_type, fmt, values):
    data = struct.pack(f"<{len(values)}{fmt}", *values)
    result = read_accessor(gltf([accessor(component_type, "SCALAR", len(values))], data), 0)
    assert result.shape == (len(values), 1)
    assert np.issubdtype(result.dtype, np.integer)
    assert result[:, 0].tolist() == values


def test_float_components_become_float64():
    values = [1.5, -2.25, 3.0e-8, 65504.0, -0.0, 0.1]
    data = struct.pack("<6f", *values)
    result = read_accessor(gltf([accessor(FLOAT, "VEC3", 2)], data), 0)
    assert result.dtype == np.float64 and result.shape == (2, 3)
    # 0.1 is not exact in float32: the decoded value is float32(0.1), as struct rounds it.
    expected = struct.unpack("<6f", data)
    assert result.ravel().tolist() == list(expected)
    assert result[1, 2] != 0.1 and abs(result[1, 2] - 0.1) < 1e-8


@pytest.mark.parametrize("kind, width", [("VEC2", 2), ("VEC3", 3), ("VEC4", 4)])
def test_vector_shapes(kind, width):
    values = list(range(3 * width))
    data = struct.pack(f"<{len(values)}H", *values)
    result = read_accessor(gltf([accessor(UNSIGNED_SHORT, kind, 3)], data), 0)
    assert result.shape == (3, width)
    assert result.tolist() == [values[i * width:(i + 1) * width] for i in range(3)]


# ---------------------------------------------------------------- normalized integers


@pytest.mark.parametrize("component_type, fmt, stored, expected", [
    # signed byte: max(c / 127, -1); -128 would be -1.0079 and is clamped to -1.
    (BYTE, "b", [-128, -127, -64, 0, 1, 127], [-1.0, -1.0, -64 / 127, 0.0, 1 / 127, 1.0]),
    (UNSIGNED_BYTE, "B", [0, 1, 128, 255], [0.0, 1 / 255, 128 / 255, 1.0]),
    (SHORT, "h", [-32768, -32767, -16384, 0, 32767], [-1.0, -1.0, -16384 / 32767, 0.0, 1.0]),
    (UNSIGNED_SHORT, "H", [0, 1, 32768, 65535], [0.0, 1 / 65535, 32768 / 65535, 1.0]),
])
def test_normalized_integers_follow_the_spec_formulas(component_type, fmt, stored, expected):
    data = struct.pack(f"<{len(stored)}{fmt}", *stored)
    file = gltf([accessor(component_type, "SCALAR", len(stored), normalized=True)], data)
    result = read_accessor(file, 0)
    assert result.dtype == np.float64
    assert result[:, 0].tolist() == pytest.approx(expected, abs=1e-15)
    assert result.min() >= -1.0 and result.max() <= 1.0


def test_normalized_vec4_rotation_bytes():
    # A quantized unit quaternion (0, 0, sin 45, cos 45) stored as signed bytes (round(f * 127)).
    stored = [0, 0, 90, 90]
    file = gltf([accessor(BYTE, "VEC4", 1, normalized=True)], struct.pack("<4b", *stored))
    result = read_accessor(file, 0)
    assert result[0].tolist() == pytest.approx([0.0, 0.0, 90 / 127, 90 / 127])
    assert np.linalg.norm(result[0]) == pytest.approx(1.0, abs=2 / 127)


@pytest.mark.parametrize("component_type, normalized", [
    (UNSIGNED_INT, True), (FLOAT, True), (UNSIGNED_BYTE, 1), (UNSIGNED_BYTE, "true")])
def test_normalized_only_for_byte_and_short_booleans(component_type, normalized):
    file = gltf([accessor(component_type, "SCALAR", 1, normalized=normalized)], b"\0" * 4)
    raises("ACCESSOR_NORMALIZED_INVALID", "/accessors/0/normalized", file)


# ---------------------------------------------------------------- offsets and strides


def test_byte_offsets_of_view_and_accessor_add_up():
    data = b"\xAA" * 8 + struct.pack("<4f", 9.0, 1.0, 2.0, 3.0)
    views = [{"buffer": 0, "byteOffset": 8, "byteLength": 16}]
    result = read_accessor(gltf([accessor(FLOAT, "SCALAR", 3, byteOffset=4)], data, views), 0)
    assert result[:, 0].tolist() == [1.0, 2.0, 3.0]


def test_interleaved_vertex_data_with_byte_stride():
    # Each 16-byte vertex: position (3 floats) then a normalized ushort UV pair.
    vertices = [((1.0, 2.0, 3.0), (0, 65535)), ((-4.0, 5.5, 0.25), (32768, 13107)),
                ((7.0, 8.0, 9.0), (65535, 0))]
    data = b"".join(struct.pack("<3f2H", *p, *uv) for p, uv in vertices)
    views = [{"buffer": 0, "byteLength": len(data), "byteStride": 16}]
    file = gltf([accessor(FLOAT, "VEC3", 3),
                 accessor(UNSIGNED_SHORT, "VEC2", 3, byteOffset=12, normalized=True)], data, views)
    assert read_accessor(file, 0).tolist() == [list(p) for p, _ in vertices]
    assert read_accessor(file, 1) == pytest.approx(
        np.array([[0.0, 1.0], [32768 / 65535, 13107 / 65535], [1.0, 0.0]]))


def test_vec3_bytes_with_stride_four():
    # KHR_mesh_quantization style: 3 signed bytes + 1 padding byte per element.
    data = struct.pack("<12b", 127, 0, -127, 99, -128, 64, 0, -99, 1, 2, 3, 99)
    views = [{"buffer": 0, "byteLength": 12, "byteStride": 4}]
    result = read_accessor(gltf([accessor(BYTE, "VEC3", 3, normalized=True)], data, views), 0)
    assert result == pytest.approx(
        np.array([[1.0, 0.0, -1.0], [-1.0, 64 / 127, 0.0], [1 / 127, 2 / 127, 3 / 127]]))


def test_stride_smaller_than_element_is_refused():
    views = [{"buffer": 0, "byteLength": 24, "byteStride": 8}]
    raises("ACCESSOR_INVALID_STRIDE", "/bufferViews/0/byteStride",
           gltf([accessor(FLOAT, "VEC3", 2)], b"\0" * 24, views))


def test_accessor_without_buffer_view_is_zeros():
    file = gltf([{"componentType": FLOAT, "type": "VEC3", "count": 4}], b"\0" * 4)
    result = read_accessor(file, 0)
    assert result.shape == (4, 3) and not result.any()


def test_results_are_shared_read_only_and_never_alias_the_buffer():
    """Decoded once per file: later reads return the same array, which no caller can modify
    (so no caller can corrupt what others read), and it owns its memory (not a view of bytes)."""
    data = struct.pack("<2f", 1.0, 2.0)
    file = gltf([accessor(FLOAT, "SCALAR", 2), accessor(UNSIGNED_BYTE, "SCALAR", 8)], data)
    first = read_accessor(file, 1)
    assert read_accessor(file, 1) is first
    with pytest.raises(ValueError):
        first[:] = 0
    assert first.base is None or not isinstance(first.base, (bytes, memoryview))
    assert read_accessor(file, 0)[:, 0].tolist() == [1.0, 2.0]
    assert read_accessor(file, 1)[:, 0].tolist() == list(data)


# ---------------------------------------------------------------- matrices


def test_mat2_unsigned_bytes_have_padded_columns():
    # Spec figure "MAT2, 1-byte components": m00 m10 -- -- m01 m11 -- --
    pad = 0xEE
    data = bytes([1, 2, pad, pad, 3, 4, pad, pad, 5, 6, pad, pad, 7, 8, pad, pad])
    result = read_accessor(gltf([accessor(UNSIGNED_BYTE, "MAT2", 2)], data), 0)
    assert result.shape == (2, 2, 2)
    assert result[0].tolist() == [[1, 3], [2, 4]]  # [row][column]
    assert result[1].tolist() == [[5, 7], [6, 8]]


def test_mat3_unsigned_bytes_have_padded_columns():
    # Spec figure "MAT3, 1-byte components": m00 m10 m20 -- m01 m11 m21 -- m02 m12 m22 --
    data = bytes([1, 2, 3, 0xEE, 4, 5, 6, 0xEE, 7, 8, 9, 0xEE])
    result = read_accessor(gltf([accessor(UNSIGNED_BYTE, "MAT3", 1, normalized=True)], data), 0)
    assert result[0] * 255 == pytest.approx(np.array([[1, 4, 7], [2, 5, 8], [3, 6, 9]]))


def test_mat3_shorts_have_padded_columns():
    # Spec figure "MAT3, 2-byte components": each column is 3 shorts + 2 padding bytes.
    columns = [(1, -2, 3), (-4, 5, -6), (7, -8, 32767)]
    data = b"".join(struct.pack("<3hH", *column, 0xEEEE) for column in columns)
    assert len(data) == 24
    result = read_accessor(gltf([accessor(SHORT, "MAT3", 1)], data), 0)
    assert result[0].tolist() == [[1, -4, 7], [-2, 5, -8], [3, -6, 32767]]


def test_trailing_padding_of_the_last_matrix_may_be_omitted():
    # Spec §3.6.2.4: alignment applies to the start of each column only, so trailing bytes may be
    # left out when no data follows: two MAT3 ubyte elements fit in 12 + 11 bytes.
    first = bytes([1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0])
    second = bytes([10, 11, 12, 0, 13, 14, 15, 0, 16, 17, 18])
    data = first + second
    result = read_accessor(gltf([accessor(UNSIGNED_BYTE, "MAT3", 2)], data), 0)
    assert result[1].tolist() == [[10, 13, 16], [11, 14, 17], [12, 15, 18]]
    # One byte less and the last component is missing.
    raises("ACCESSOR_TOO_LONG", "/accessors/0",
           gltf([accessor(UNSIGNED_BYTE, "MAT3", 2)], data[:-1]))


def test_mat2_floats_need_no_padding():
    data = struct.pack("<8f", 1, 2, 3, 4, 5, 6, 7, 8)
    result = read_accessor(gltf([accessor(FLOAT, "MAT2", 2)], data), 0)
    assert result.tolist() == [[[1, 3], [2, 4]], [[5, 7], [6, 8]]]


def test_mat4_float_translation_matrix_is_column_major():
    # A translation by (1, 2, 3) stored column by column: the translation is the 4th column.
    stored = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1]
    result = read_accessor(gltf([accessor(FLOAT, "MAT4", 1)], struct.pack("<16f", *stored)), 0)
    matrix = result[0]
    assert matrix.tolist() == [[1, 0, 0, 1], [0, 1, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]]
    assert (matrix @ np.array([10.0, 20.0, 30.0, 1.0])).tolist() == [11.0, 22.0, 33.0, 1.0]


# ---------------------------------------------------------------- sparse


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


# ---------------------------------------------------------------- bounds and references


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


# ---------------------------------------------------------------- real Khronos models

MODELS = ["AnimatedCube/glTF/AnimatedCube.gltf",
          "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
          "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
          "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
          "AnimatedTriangle/glTF/AnimatedTriangle.gltf",
          "AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf",
          "BoxAnimated/glTF/BoxAnimated.gltf",
          "BoxAnimated/glTF-Binary/BoxAnimated.glb",
          "BoxAnimated/glTF-Embedded/BoxAnimated.gltf",
          "CesiumMan/glTF/CesiumMan.gltf",
          "CesiumMan/glTF-Binary/CesiumMan.glb",
          "InterpolationTest/glTF/InterpolationTest.gltf",
          "InterpolationTest/glTF-Binary/InterpolationTest.glb",
          "RiggedFigure/glTF/RiggedFigure.gltf",
          "RiggedFigure/glTF-Binary/RiggedFigure.glb",
          "RiggedSimple/glTF/RiggedSimple.gltf",
          "RiggedSimple/glTF-Binary/RiggedSimple.glb",
          "SimpleMorph/glTF/SimpleMorph.gltf",
          "SimpleMorph/glTF-Embedded/SimpleMorph.gltf",
          "SimpleSkin/glTF/SimpleSkin.gltf",
          "SimpleSkin/glTF-Embedded/SimpleSkin.gltf"]

VARIANTS = [("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"),
            ("AnimatedTriangle/glTF/AnimatedTriangle.gltf", "AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf"),
            ("BoxAnimated/glTF/BoxAnimated.gltf", "BoxAnimated/glTF-Binary/BoxAnimated.glb"),
            ("BoxAnimated/glTF/BoxAnimated.gltf", "BoxAnimated/glTF-Embedded/BoxAnimated.gltf"),
            ("CesiumMan/glTF/CesiumMan.gltf", "CesiumMan/glTF-Binary/CesiumMan.glb"),
            ("InterpolationTest/glTF/InterpolationTest.gltf", "InterpolationTest/glTF-Binary/InterpolationTest.glb"),
            ("RiggedFigure/glTF/RiggedFigure.gltf", "RiggedFigure/glTF-Binary/RiggedFigure.glb"),
            ("RiggedSimple/glTF/RiggedSimple.gltf", "RiggedSimple/glTF-Binary/RiggedSimple.glb"),
            ("SimpleMorph/glTF/SimpleMorph.gltf", "SimpleMorph/glTF-Embedded/SimpleMorph.gltf"),
            ("SimpleSkin/glTF/SimpleSkin.gltf", "SimpleSkin/glTF-Embedded/SimpleSkin.gltf")]


@pytest.fixture(scope="module")
def khronos(shared_assets):
    return lambda relative: read_file(shared_assets / KHRONOS / relative)


@pytest.mark.parametrize("first, second", VARIANTS, ids=[a.split("/")[0] + "-" + b.split("/")[1]
                                                         for a, b in VARIANTS])
def test_variants_of_a_model_decode_to_identical_arrays(khronos, first, second):
    a, b = khronos(first), khronos(second)
    items = a.json["accessors"]
    assert len(items) == len(b.json["accessors"])
    for index, item in enumerate(items):
        other = b.json["accessors"][index]
        assert (item["type"], item["componentType"], item["count"]) == \
               (other["type"], other["componentType"], other["count"])
        left, right = read_accessor(a, index), read_accessor(b, index)
        assert left.dtype == right.dtype and np.array_equal(left, right), index


@pytest.mark.parametrize("relative", MODELS)
def test_decoded_values_match_the_json_min_and_max(khronos, relative):
    # Exporters write each accessor's per-component bounds; for matrices they are in storage
    # (column-major) order, so this also checks the matrix layout on real data.
    file = khronos(relative)
    checked = 0
    for index, item in enumerate(file.json["accessors"]):
        if "min" not in item or item.get("normalized"):
            continue
        values = read_accessor(file, index)
        if values.ndim == 3:
            values = values.transpose(0, 2, 1)
        values = values.reshape(len(values), -1)
        for key, reduce in (("min", np.min), ("max", np.max)):
            expected = np.asarray(item[key], dtype=np.float64)
            if item["componentType"] == FLOAT:  # bounds are single precision (spec §3.6.2.5)
                expected = expected.astype(np.float32).astype(np.float64)
            assert reduce(values, axis=0).tolist() == expected.tolist(), (index, key)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("model", ["CesiumMan", "RiggedFigure", "RiggedSimple", "SimpleSkin"])
def test_inverse_bind_matrices_are_affine(khronos, model):
    # Inverse bind matrices are rigid/affine: bottom row (0, 0, 0, 1), translation in column 3.
    file = khronos(f"{model}/glTF/{model}.gltf")
    for skin in file.json["skins"]:
        matrices = read_accessor(file, skin["inverseBindMatrices"])
        assert matrices.shape == (len(skin["joints"]), 4, 4)
        assert np.array_equal(matrices[:, 3, :], np.tile([0.0, 0.0, 0.0, 1.0], (len(matrices), 1)))
        assert np.abs(np.linalg.det(matrices)).min() > 1e-6


def test_box_animated_key_times_and_values(khronos):
    file = khronos("BoxAnimated/glTF/BoxAnimated.gltf")
    animation = file.json["animations"][0]
    for sampler in animation["samplers"]:
        item = file.json["accessors"][sampler["input"]]
        times = read_accessor(file, sampler["input"])[:, 0]
        assert times.shape == (item["count"],)
        assert times[0] == np.float32(item["min"][0]) and times[-1] == np.float32(item["max"][0])
        assert np.all(np.diff(times) > 0)
    rotation_times = read_accessor(file, animation["samplers"][0]["input"])[:, 0]
    assert rotation_times.tolist() == [1.25, 2.5]  # count 2, min 1.25, max 2.5 in the JSON
    rotations = read_accessor(file, animation["samplers"][0]["output"])
    assert rotations.shape == (2, 4)
    assert np.linalg.norm(rotations, axis=1) == pytest.approx([1.0, 1.0], abs=1e-6)
    translations = read_accessor(file, animation["samplers"][1]["output"])
    assert translations.shape == (4, 3) and translations[0].tolist() == [0.0, 0.0, 0.0]


def test_quantized_morph_cube_matches_the_float_model(khronos):
    quantized = khronos("AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf")
    floats = khronos("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")
    q_sampler = quantized.json["animations"][0]["samplers"][0]
    f_sampler = floats.json["animations"][0]["samplers"][0]
    assert quantized.json["accessors"][q_sampler["output"]] == {
        "bufferView": 4, "byteOffset": 0, "componentType": UNSIGNED_BYTE, "count": 254,
        "type": "SCALAR", "normalized": True}

    weights_q = read_accessor(quantized, q_sampler["output"])
    weights_f = read_accessor(floats, f_sampler["output"])
    assert weights_q.dtype == np.float64 and weights_q.shape == weights_f.shape == (254, 1)
    assert np.abs(weights_q - weights_f).max() <= 1 / 255  # within one quantization step
    assert np.abs(weights_q - weights_f).max() > 0  # they really are different encodings
    times_q = read_accessor(quantized, q_sampler["input"])
    times_f = read_accessor(floats, f_sampler["input"])
    assert times_q == pytest.approx(times_f, abs=1e-5)


def test_quantized_morph_cube_positions_dequantize_to_the_float_cube(khronos):
    # KHR_mesh_quantization: ushort positions (stride 8) scaled by the mesh node's scale and offset
    # by its translation give the float model's triangles (vertex order differs between files).
    quantized = khronos("AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf")
    floats = khronos("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")
    node = quantized.json["nodes"][0]

    def triangles(file, scale: np.ndarray | float = 1.0, offset: np.ndarray | float = 0.0):
        primitive = file.json["meshes"][0]["primitives"][0]
        positions = read_accessor(file, primitive["attributes"]["POSITION"]) * scale + offset
        indices = read_accessor(file, primitive["indices"])[:, 0]
        corners = np.round(positions[indices] / 1e-4).astype(int).reshape(-1, 3, 3)
        return sorted(tuple(sorted(map(tuple, triangle))) for triangle in corners)

    dequantized = triangles(quantized, np.array(node["scale"]), np.array(node["translation"]))
    assert dequantized == triangles(floats)
    assert len(dequantized) == 12  # a cube: 6 faces of 2 triangles
