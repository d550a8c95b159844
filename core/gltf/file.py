"""Reading a glTF asset: the JSON document and the bytes of its buffers.

Handles ``.gltf`` (JSON with external or ``data:`` buffers) and ``.glb`` (binary container). Every
buffer URI is resolved inside the asset's own folder only, because a file from the internet must not
be able to make us read ``/etc/passwd`` or a user's documents: absolute paths, schemes other than
``data:``, ``..`` escapes and symlinks leading out are refused.
"""

import base64
import binascii
import json
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import numpy as np

from .errors import GltfError, pointer

GLB_MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


@dataclass
class GltfFile:
    """A glTF asset as read: its JSON document and the bytes of its buffers.

    Attributes
    ----------
    json : dict
        The JSON document, as parsed: any JSON value may be anywhere in it.
    buffers : list of bytes or None
        The bytes of each buffer, cut to its byteLength; None for a buffer without data (no uri,
        and not a GLB's BIN chunk).
    path : Path or None
        The file read; None when parsed from bytes.
    base_dir : Path or None
        Where external URIs resolve; None: they cannot be read.
    accessor_cache : dict of int to array
        Decoded accessors by index, filled by accessors.read_accessor: validation, animations and
        the scene read many of the same accessors.
    """

    json: dict[str, Any]
    buffers: list[bytes | None] = field(default_factory=list)
    path: Path | None = None
    base_dir: Path | None = None
    accessor_cache: dict[int, np.ndarray] = field(default_factory=dict, repr=False)


def read_file(path: str | os.PathLike[str]) -> GltfFile:
    """Read a ``.gltf`` or ``.glb`` file and the buffers it references.

    The two forms are told apart by the first bytes, not the name. External buffers are read
    from the file's own folder only (read_relative_uri).

    Parameters
    ----------
    path : str or PathLike
        The .gltf or .glb file.

    Returns
    -------
    GltfFile
        Its JSON document and buffers, ``path`` and ``base_dir`` (the file's folder) set.

    Raises
    ------
    GltfError
        The file cannot be read (IO_ERROR), is no valid GLB or JSON, or a buffer's data is
        missing, malformed, shorter than its byteLength or outside the file's folder.

    Examples
    --------
    >>> glb = read_file("samples/sqlerp_arm.glb")  # a GLB: it starts with b"glTF"
    >>> len(glb.buffers[0]) == glb.json["buffers"][0]["byteLength"]
    True
    >>> glb.buffers == read_file("samples/sqlerp_arm.gltf").buffers  # the same data as a .gltf + .bin
    True
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GltfError("IO_ERROR", "", f"cannot read {path}: {exc.strerror or exc}") from None
    gltf = parse_bytes(data, base_dir=path.parent)
    gltf.path = path
    return gltf


def parse_bytes(data: bytes | bytearray | memoryview,
                base_dir: str | os.PathLike[str] | None = None) -> GltfFile:
    """Parse the bytes of a ``.gltf`` or ``.glb``; external URIs resolve inside ``base_dir``."""
    data = bytes(data)
    if data[:4] == GLB_MAGIC:
        json_bytes, bin_chunk = _split_glb(data)
    else:
        json_bytes, bin_chunk = data, None
    document = _parse_json(json_bytes)
    base = Path(base_dir) if base_dir is not None else None
    buffers = _load_buffers(document, bin_chunk, base)
    return GltfFile(json=document, buffers=buffers, base_dir=base)


def parse_json_only(data: bytes | bytearray | memoryview) -> dict[str, Any]:
    """Parse the JSON document of a ``.gltf`` or ``.glb``'s bytes, its buffers left unread.

    Parameters
    ----------
    data : bytes-like
        The whole file: a GLB (starting with b"glTF") or JSON text (UTF-8, a BOM allowed).

    Returns
    -------
    dict
        The JSON document.

    Raises
    ------
    GltfError
        A malformed GLB container, invalid JSON, or a JSON root that is not an object.

    Examples
    --------
    >>> parse_json_only(b'{"asset": {"version": "2.0"}}')
    {'asset': {'version': '2.0'}}
    >>> sorted(parse_json_only(Path("samples/sqlerp_arm.glb").read_bytes())["buffers"][0])  # no uri: the BIN chunk
    ['byteLength']
    """
    data = bytes(data)
    return _parse_json(_split_glb(data)[0] if data[:4] == GLB_MAGIC else data)


def _split_glb(data):
    """Return (JSON chunk bytes, BIN chunk bytes or None), checking every length against the data."""
    if len(data) < 12:
        raise GltfError("GLB_UNEXPECTED_END_OF_HEADER", "", "GLB header is shorter than 12 bytes")
    _, version, length = struct.unpack_from("<4sII", data, 0)
    if version != 2:
        raise GltfError("GLB_INVALID_VERSION", "", f"GLB version {version} is not supported (2 is)")
    if length != len(data):
        raise GltfError("GLB_LENGTH_MISMATCH", "",
                        f"GLB header declares {length} bytes but the file has {len(data)}")
    chunks, offset = [], 12
    while offset < length:
        if offset + 8 > length:
            raise GltfError("GLB_UNEXPECTED_END_OF_CHUNK_HEADER", "",
                            f"GLB chunk header at byte {offset} runs past the end of the file")
        chunk_length, chunk_type = struct.unpack_from("<II", data, offset)
        start = offset + 8
        if start + chunk_length > length:
            raise GltfError("GLB_CHUNK_TOO_BIG", "",
                            f"GLB chunk at byte {offset} declares {chunk_length} bytes, "
                            f"more than the {length - start} left in the file")
        chunks.append((chunk_type, data[start:start + chunk_length]))
        offset = start + chunk_length
    if not chunks or chunks[0][0] != CHUNK_JSON:
        raise GltfError("GLB_UNEXPECTED_FIRST_CHUNK", "", "the first GLB chunk is not JSON")
    bins = [body for kind, body in chunks[1:] if kind == CHUNK_BIN]
    if len(bins) > 1:
        raise GltfError("GLB_DUPLICATE_CHUNK", "", "the GLB file has more than one BIN chunk")
    return chunks[0][1], (bins[0] if bins else None)


def _parse_json(raw):
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise GltfError("INVALID_JSON", "", f"the JSON is not valid UTF-8: {exc.reason}") from None
    except (ValueError, RecursionError) as exc:  # ValueError: also Python's int-digit limit
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise GltfError("INVALID_JSON", "", f"the file is not valid JSON{where}") from None
    if not isinstance(document, dict):
        raise GltfError("INVALID_JSON_ROOT_OBJECT", "", "the JSON root is not an object")
    return document


def _load_buffers(document, bin_chunk, base_dir):
    buffers = document.get("buffers", [])
    if not isinstance(buffers, list):
        raise GltfError("TYPE_MISMATCH", "/buffers", "'buffers' must be an array")
    return [_load_buffer(document, i, buffer, bin_chunk, base_dir) for i, buffer in enumerate(buffers)]


def _load_buffer(document, index, buffer, bin_chunk, base_dir):
    where = pointer("buffers", index)
    if not isinstance(buffer, dict):
        raise GltfError("TYPE_MISMATCH", where, f"buffer {index} must be an object")
    byte_length = _byte_length(buffer, index, where)
    uri = buffer.get("uri")
    if uri is None:
        # Only the first buffer of a GLB may live in the BIN chunk; others simply have no data.
        data = bin_chunk if index == 0 else None
        if data is None:
            return None
    elif not isinstance(uri, str):
        raise GltfError("TYPE_MISMATCH", where + "/uri", f"buffer {index} 'uri' must be a string")
    elif uri.startswith("data:"):
        data = decode_data_uri(uri, where + "/uri")
    else:
        data = read_relative_uri(uri, base_dir, where + "/uri")
    if len(data) < byte_length:
        raise GltfError("BUFFER_BYTE_LENGTH_MISMATCH", where,
                        f"buffer {index} declares {byte_length} bytes but its data has {len(data)}")
    return data[:byte_length]


def _byte_length(buffer, index, where):
    """The buffer's byteLength; else the validator's finding for it (a missing or null one is
    UNDEFINED_PROPERTY of the buffer, a float like 1.5 or a string TYPE_MISMATCH, 0 out of range)."""
    value = buffer.get("byteLength")
    if value is None:
        raise GltfError("UNDEFINED_PROPERTY", where, "Property 'byteLength' must be defined.")
    # The validator reads 10.0 as 10 (its _tryFixInt); bool is no JSON number.
    integral = isinstance(value, float) and value.is_integer()
    if isinstance(value, bool) or not (isinstance(value, int) or integral):
        raise GltfError("TYPE_MISMATCH", where + "/byteLength",
                        f"buffer {index} 'byteLength' must be an integer, not {value!r}")
    if value < 1:
        raise GltfError("VALUE_NOT_IN_RANGE", where + "/byteLength",
                        f"buffer {index} 'byteLength' is {value!r}; it must be at least 1")
    return int(value)


def decode_data_uri(uri: str, where: str) -> bytes:
    """Decode a base64 ``data:`` URI; anything else inside ``data:`` is refused."""
    header, sep, payload = uri.partition(",")
    if not sep or not header.endswith(";base64"):
        raise GltfError("INVALID_URI", where, "only base64 'data:' URIs are supported")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise GltfError("INVALID_URI", where, "the 'data:' URI holds invalid base64") from None


def read_relative_uri(uri: str, base_dir: Path | None, where: str) -> bytes:
    """Read a URI relative to the asset's folder, refusing anything that would leave it.

    A file from the internet must not make a reader open other files: absolute paths, schemes,
    ``..`` escapes and symlinks leading out of ``base_dir`` are refused. ``%xx`` escapes decode.

    Parameters
    ----------
    uri : str
        The URI as the JSON holds it (not a ``data:`` URI).
    base_dir : Path or None
        The asset's folder; None (an asset parsed from bytes) refuses every URI.
    where : str
        JSON pointer of the URI, for the error.

    Returns
    -------
    bytes
        The whole file.

    Raises
    ------
    GltfError
        INVALID_URI without ``base_dir``, URI_OUTSIDE_FOLDER, or IO_ERROR when it cannot be read.

    Examples
    --------
    >>> data = read_relative_uri("sqlerp%5Farm.bin", Path("samples"), "/buffers/0/uri")  # %5F: "_"
    >>> data == Path("samples/sqlerp_arm.bin").read_bytes()
    True
    >>> try:
    ...     read_relative_uri("../README.md", Path("samples"), "/buffers/0/uri")
    ... except GltfError as error:
    ...     print(error.code)
    URI_OUTSIDE_FOLDER
    """
    if base_dir is None:
        raise GltfError("INVALID_URI", where, "an external URI needs the file's folder to resolve it")
    relative = unquote(uri)
    if _SCHEME.match(relative) or relative.startswith(("/", "\\")) or "\x00" in relative:
        raise GltfError("URI_OUTSIDE_FOLDER", where,
                        f"URI '{uri}' is absolute or has a scheme; only paths inside the file's "
                        "folder are read")
    root = base_dir.resolve()
    target = (root / relative.replace("\\", "/")).resolve()
    if target != root and root not in target.parents:
        raise GltfError("URI_OUTSIDE_FOLDER", where,
                        f"URI '{uri}' leads outside the file's folder; it is not read")
    try:
        return target.read_bytes()
    except OSError as exc:
        raise GltfError("IO_ERROR", where, f"cannot read '{uri}': {exc.strerror or exc}") from None
