"""Accessors: typed views into buffer bytes, decoded to numpy arrays.

Every length is checked against the bytes that really exist before anything is allocated, so a tiny
hostile file cannot request gigabytes, and nothing is read past the end of a buffer or buffer view.
"""

import numpy as np
import numpy.typing as npt

from .errors import GltfError, pointer
from .file import GltfFile

COMPONENT_TYPES = {
    5120: np.dtype("<i1"),  # BYTE
    5121: np.dtype("<u1"),  # UNSIGNED_BYTE
    5122: np.dtype("<i2"),  # SHORT
    5123: np.dtype("<u2"),  # UNSIGNED_SHORT
    5125: np.dtype("<u4"),  # UNSIGNED_INT
    5126: np.dtype("<f4"),  # FLOAT
}
TYPE_SIZES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
MATRIX_ORDER = {"MAT2": 2, "MAT3": 3, "MAT4": 4}
SPARSE_INDEX_TYPES = (5121, 5123, 5125)

# glTF 2.0 §3.11: normalized integers decode as c / max, clamped at -1 for signed types.
_NORMALIZED_MAX = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}

# An accessor without a buffer view is all zeros; its size is not backed by any bytes, so a cap
# keeps a hostile count from allocating unbounded memory.
MAX_UNBACKED_ELEMENTS = 1 << 24


def read_accessor(gltf: GltfFile, index: int) -> np.ndarray:
    """Decode accessor ``index`` of ``gltf`` once; later calls return the same read-only array.

    Floats and normalized integers become float64 (glTF 2.0 section 3.11: c / max, clamped at -1
    for signed types); other integers keep their integer dtype. Sparse values are applied. Every
    length is checked against the bytes that exist before anything is allocated.

    Parameters
    ----------
    gltf : GltfFile
        The asset, its buffers read.
    index : int
        The accessor's index in ``gltf.json["accessors"]``.

    Returns
    -------
    (count, 1), (count, n) or (count, n, n) array
        SCALAR -> (count, 1), VECn -> (count, n), MATn -> (count, n, n) indexed [row, col];
        read-only.

    Raises
    ------
    GltfError
        The accessor does not exist, is malformed, or needs bytes its buffer view does not hold.

    Examples
    --------
    >>> data = np.array([0, 32767, -32768, 16384], "<i2").tobytes()  # normalized SHORT, VEC2
    >>> gltf = GltfFile({"bufferViews": [{"buffer": 0, "byteLength": 8}], "accessors": [{"bufferView": 0,
    ...                 "componentType": 5122, "normalized": True, "count": 2, "type": "VEC2"}]}, [data])
    >>> read_accessor(gltf, 0).tolist()  # c / 32767, -32768 clamped to -1.0
    [[0.0, 1.0], [-1.0, 0.50001...]]
    >>> read_accessor(gltf, 0) is read_accessor(gltf, 0)
    True
    """
    cacheable = isinstance(index, int) and not isinstance(index, bool)
    if cacheable and index in gltf.accessor_cache:
        return gltf.accessor_cache[index]
    array = _decode_accessor(gltf, index)
    array.flags.writeable = False
    if cacheable:
        gltf.accessor_cache[index] = array
    return array


def check_extent(gltf: GltfFile, index: int) -> None:
    """Raise GltfError where accessor ``index`` would need bytes its buffer view (or sparse views)
    does not hold, or more unbacked zeros than MAX_UNBACKED_ELEMENTS: every size is checked from
    the JSON and the buffer lengths alone, and nothing is decoded or allocated (views of the file's
    bytes only), so a few bytes of JSON cannot make a reader allocate gigabytes."""
    accessor, where, component_type, kind, count = _header(gltf, index)
    if "bufferView" in accessor:
        _elements(gltf, accessor, where, component_type, kind, count)
    elif count * TYPE_SIZES[kind] > MAX_UNBACKED_ELEMENTS:
        raise _too_large(where, count)
    sparse = accessor.get("sparse")
    if isinstance(sparse, dict):
        sparse_count = _integer(sparse, "count", where + "/sparse", minimum=1)
        for part, part_type, part_kind in (("indices", None, "SCALAR"), ("values", component_type, kind)):
            _sparse_part(gltf, sparse, part, where + "/sparse", sparse_count, part_type, part_kind)


def _header(gltf, index):
    accessor, where = _accessor(gltf.json, index)
    component_type = _component_type(accessor, where)
    kind = accessor.get("type")
    if not isinstance(kind, str) or kind not in TYPE_SIZES:
        raise GltfError("VALUE_NOT_IN_LIST", where + "/type", f"unknown accessor type {kind!r}")
    count = _integer(accessor, "count", where, minimum=1)
    return accessor, where, component_type, kind, count


def _too_large(where, count):
    return GltfError("ACCESSOR_TOO_LARGE", where,
                     f"accessor has {count} elements but no buffer view to back them")


def _decode_accessor(gltf, index):
    accessor, where, component_type, kind, count = _header(gltf, index)
    normalized = accessor.get("normalized", False)
    if normalized is not False and (normalized is not True or component_type not in _NORMALIZED_MAX):
        raise GltfError("ACCESSOR_NORMALIZED_INVALID", where + "/normalized",
                        "only byte and short accessors can be normalized")

    if "bufferView" in accessor:
        raw = _read_elements(gltf, accessor, where, component_type, kind, count)
    else:
        if count * TYPE_SIZES[kind] > MAX_UNBACKED_ELEMENTS:
            raise _too_large(where, count)
        raw = np.zeros(_element_shape(count, kind), COMPONENT_TYPES[component_type])
    if "sparse" in accessor:
        raw = _apply_sparse(gltf, accessor, where, raw, component_type, kind, count)
    return _decode(raw, component_type, normalized)


def as_stored(values: npt.ArrayLike, precision: str) -> npt.NDArray[np.float64]:
    """Round ``values`` to what a reader decodes once they are written with ``precision``.

    The exporter checks what the file will play, not what it fitted.

    Parameters
    ----------
    values : (...) float array
        Any shape; for "SHORT", values in [-1, 1].
    precision : str
        "FLOAT": float32 components. "SHORT": normalized 16-bit ones, c = round(f x 32767),
        decoded by read_accessor's rule (c / 32767).

    Returns
    -------
    (...) float64 array
        The decoded values, shape kept.

    Raises
    ------
    ValueError
        ``precision`` is neither "FLOAT" nor "SHORT".

    Examples
    --------
    >>> as_stored([0.5, -1.0], "SHORT").tolist()  # round(16383.5) = 16384 (to even); 16384 / 32767
    [0.50001..., -1.0]
    >>> as_stored([0.1], "FLOAT").tolist()  # float32's nearest: 13421773 / 2**27
    [0.10000000149011612]
    """
    values = np.asarray(values, dtype=np.float64)
    if precision == "SHORT":
        raw = np.clip(np.round(values * _NORMALIZED_MAX[5122]), -32767.0, 32767.0)
        return _decode(raw, 5122, True)
    if precision == "FLOAT":
        return values.astype(np.float32).astype(np.float64)
    raise ValueError(f"precision must be 'FLOAT' or 'SHORT', got {precision!r}")


def _decode(raw, component_type, normalized):
    if component_type == 5126:
        return raw.astype(np.float64)
    if normalized:
        decoded = raw.astype(np.float64) / _NORMALIZED_MAX[component_type]
        return np.maximum(decoded, -1.0) if component_type in (5120, 5122) else decoded
    return np.array(raw)


def _accessor(document, index):
    accessors = document.get("accessors", [])
    if (not isinstance(accessors, list) or isinstance(index, bool) or not isinstance(index, int)
            or not 0 <= index < len(accessors)):
        raise GltfError("UNRESOLVED_REFERENCE", pointer("accessors", index),
                        f"accessor {index} does not exist")
    accessor = accessors[index]
    where = pointer("accessors", index)
    if not isinstance(accessor, dict):
        raise GltfError("TYPE_MISMATCH", where, f"accessor {index} must be an object")
    return accessor, where


def _component_type(accessor, where):
    component_type = accessor.get("componentType")
    if (isinstance(component_type, bool) or not isinstance(component_type, int)
            or component_type not in COMPONENT_TYPES):
        raise GltfError("VALUE_NOT_IN_LIST", where + "/componentType",
                        f"unknown accessor componentType {component_type!r}")
    return component_type


def _integer(obj, key, where, minimum=0, default=None):
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        code = "UNDEFINED_PROPERTY" if value is None else "TYPE_MISMATCH"
        raise GltfError(code, f"{where}/{key}",
                        f"'{key}' must be an integer >= {minimum}, found {value!r}")
    return value


def _element_shape(count, kind):
    order = MATRIX_ORDER.get(kind)
    return (count, order, order) if order else (count, TYPE_SIZES[kind])


def _buffer_view_bytes(gltf, view_index, where):
    """The bytes of a buffer view, after checking that the view lies inside its buffer."""
    views = gltf.json.get("bufferViews", [])
    if (isinstance(view_index, bool) or not isinstance(view_index, int) or not isinstance(views, list)
            or not 0 <= view_index < len(views) or not isinstance(views[view_index], dict)):
        raise GltfError("UNRESOLVED_REFERENCE", where, f"buffer view {view_index!r} does not exist")
    view, view_where = views[view_index], pointer("bufferViews", view_index)
    buffer_index = view.get("buffer")
    if (isinstance(buffer_index, bool) or not isinstance(buffer_index, int)
            or not 0 <= buffer_index < len(gltf.buffers)):
        raise GltfError("UNRESOLVED_REFERENCE", view_where + "/buffer",
                        f"buffer {buffer_index!r} does not exist")
    data = gltf.buffers[buffer_index]
    if data is None:
        raise GltfError("BUFFER_MISSING_DATA", pointer("buffers", buffer_index),
                        f"buffer {buffer_index} has no data")
    offset = _integer(view, "byteOffset", view_where, default=0)
    length = _integer(view, "byteLength", view_where, minimum=1)
    if offset + length > len(data):
        raise GltfError("BUFFER_VIEW_TOO_LONG", view_where,
                        f"buffer view ends at byte {offset + length}, past the end of buffer "
                        f"{buffer_index} ({len(data)} bytes)")
    return memoryview(data)[offset:offset + length], view, view_where


def _read_elements(gltf, accessor, where, component_type, kind, count):
    return np.ascontiguousarray(_elements(gltf, accessor, where, component_type, kind, count))


def _elements(gltf, accessor, where, component_type, kind, count):
    """The accessor's elements as a strided view of the file's bytes (nothing copied)."""
    data, view, view_where = _buffer_view_bytes(gltf, accessor["bufferView"], where + "/bufferView")
    dtype = COMPONENT_TYPES[component_type]
    offset = _integer(accessor, "byteOffset", where, default=0)
    column_bytes, columns, _ = _layout(kind, dtype.itemsize)
    element_bytes = column_bytes * columns
    stride = view.get("byteStride", element_bytes)
    if isinstance(stride, bool) or not isinstance(stride, int) or stride < element_bytes:
        raise GltfError("ACCESSOR_INVALID_STRIDE", view_where + "/byteStride",
                        f"byteStride {stride!r} is smaller than one element ({element_bytes} bytes)")
    return _strided_elements(data, offset, count, stride, kind, dtype, where,
                             "accessor needs {end} bytes of its buffer view, which has {size}")


def _strided_elements(data, offset, count, stride, kind, dtype, where, too_long):
    """A view of ``count`` elements ``stride`` bytes apart: (count, rows), or (count, n, n) for
    matrices, after checking that the last one ends inside ``data`` (``too_long``: the message).

    Matrices are stored column by column with each column padded to 4 bytes, so
    (count, columns, rows) strides read every layout."""
    column_bytes, columns, rows = _layout(kind, dtype.itemsize)
    end = offset + stride * (count - 1) + _used_bytes(column_bytes, columns, rows, dtype)
    if end > len(data):
        raise GltfError("ACCESSOR_TOO_LONG", where, too_long.format(end=end, size=len(data)))
    elements = np.ndarray((count, columns, rows), dtype, data, offset,
                          (stride, column_bytes, dtype.itemsize))
    if kind in MATRIX_ORDER:
        return elements.transpose(0, 2, 1)
    return elements.reshape(count, rows)


def _used_bytes(column_bytes, columns, rows, dtype):
    # glTF 2.0 §3.6.2.4: alignment applies to the start of each column only, so the padding after
    # the last column of the last element may be omitted.
    return column_bytes * (columns - 1) + rows * dtype.itemsize


def _layout(kind, itemsize):
    """(bytes per column, columns, rows) of one element; columns of matrices align to 4 bytes."""
    order = MATRIX_ORDER.get(kind)
    if order is None:
        return TYPE_SIZES[kind] * itemsize, 1, TYPE_SIZES[kind]
    return -(-order * itemsize // 4) * 4, order, order


def _apply_sparse(gltf, accessor, where, raw, component_type, kind, count):
    sparse, sparse_where = accessor["sparse"], where + "/sparse"
    if not isinstance(sparse, dict):
        raise GltfError("TYPE_MISMATCH", sparse_where, "'sparse' must be an object")
    sparse_count = _integer(sparse, "count", sparse_where, minimum=1)
    if sparse_count > count:
        raise GltfError("ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE", sparse_where + "/count",
                        f"sparse count {sparse_count} exceeds the accessor count {count}")
    indices = _sparse_part(gltf, sparse, "indices", sparse_where, sparse_count)
    values = _sparse_part(gltf, sparse, "values", sparse_where, sparse_count,
                          component_type=component_type, kind=kind)
    if np.any(indices >= count):
        raise GltfError("ACCESSOR_SPARSE_INDEX_OOB", sparse_where + "/indices",
                        f"sparse indices must be below the accessor count {count}")
    if np.any(np.diff(indices.astype(np.int64)) <= 0):
        raise GltfError("ACCESSOR_SPARSE_INDICES_NON_INCREASING", sparse_where + "/indices",
                        "sparse indices must be strictly increasing")
    raw = np.array(raw)
    raw[indices.astype(np.int64)] = values
    return raw


def _sparse_part(gltf, sparse, part, sparse_where, sparse_count, component_type=None, kind="SCALAR"):
    block, where = sparse.get(part), f"{sparse_where}/{part}"
    if not isinstance(block, dict):
        raise GltfError("UNDEFINED_PROPERTY", where, f"sparse '{part}' must be an object")
    if component_type is None:
        component_type = block.get("componentType")
        if component_type not in SPARSE_INDEX_TYPES or isinstance(component_type, bool):
            raise GltfError("VALUE_NOT_IN_LIST", where + "/componentType",
                            "sparse indices must be unsigned byte, short or int")
    data, _, _ = _buffer_view_bytes(gltf, block.get("bufferView"), where + "/bufferView")
    dtype = COMPONENT_TYPES[component_type]
    offset = _integer(block, "byteOffset", where, default=0)
    column_bytes, columns, _ = _layout(kind, dtype.itemsize)
    elements = _strided_elements(  # sparse data is tightly packed: no byteStride
        data, offset, sparse_count, column_bytes * columns, kind, dtype, where,
        f"sparse {part} need {{end}} bytes of their buffer view, which has {{size}}")
    return elements.reshape(sparse_count) if kind == "SCALAR" and part == "indices" else elements
