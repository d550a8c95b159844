"""core.gltf.accessors.read_accessor: typed, normalized, strided and matrix views into buffers.

Expected values come from the glTF 2.0 spec worked by hand (§3.6.2 accessors: byteOffset, byteStride,
column-major matrices whose columns start on 4-byte boundaries; §3.11 normalized integers: byte
max(c/127, -1), ubyte c/255, short max(c/32767, -1), ushort c/65535) and from bytes packed here with
``struct``. Sparse accessors: test_accessors_sparse.py; refused ones: test_accessors_errors.py.
"""

import struct

import numpy as np
import pytest

from helpers.accessor_files import (BYTE, FLOAT, SHORT, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT, accessor,
                                    gltf, raises)

from gltf_sqlerp.core.gltf.accessors import COMPONENT_TYPES, TYPE_SIZES, read_accessor


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
