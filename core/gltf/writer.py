"""Writing glTF: numpy arrays into accessors, and documents into .gltf or .glb files.

Files are written to a temporary file in the target folder and moved into place, so a failure
half-way never damages a file that was already there.
"""

import base64
import json
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .accessors import COMPONENT_TYPES, MATRIX_ORDER, TYPE_SIZES
from .file import CHUNK_BIN, CHUNK_JSON

_TYPE_BY_WIDTH = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}


class BufferBuilder:
    """Accessors collected into one binary buffer (buffer 0), each in its own buffer view.

    Views are 4-byte aligned and have no byteStride (animation samplers must not use it). The
    caller writes ``blob()`` as buffer 0 (write_gltf, write_glb).

    Attributes
    ----------
    document : dict
        The glTF JSON document the accessors and buffer views are appended to.
    parts : list of bytes
        Each view's bytes, padded to 4 bytes.
    length : int
        Bytes so far: where the next view starts.

    Examples
    --------
    >>> document = {}
    >>> builder = BufferBuilder(document)
    >>> builder.add_accessor([0.0, 1.0], bounds=True), builder.add_accessor([[1, 2, 3]], component_type=5121)
    (0, 1)
    >>> document["bufferViews"][1], len(builder.blob())  # 2 floats: 8 bytes; 3 bytes padded to 4
    ({'buffer': 0, 'byteOffset': 8, 'byteLength': 3}, 12)
    """

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.parts: list[bytes] = []
        self.length = 0

    def add_accessor(self, array: npt.ArrayLike, component_type: int = 5126, kind: str | None = None,
                     bounds: bool = False) -> int:
        """Append ``array`` as a new accessor in a buffer view of its own.

        Parameters
        ----------
        array : (count,), (count, width) or (count, 4, 4) array
            The elements; (count,) is (count, 1). Matrices are indexed [row, col].
        component_type : int
            The glTF componentType (5126: FLOAT).
        kind : str or None
            The accessor type; None: from the width (SCALAR, VEC2, VEC3, VEC4 or MAT4).
        bounds : bool
            Add ``min`` and ``max``, which animation inputs and POSITION require.

        Returns
        -------
        int
            The new accessor's index.
        """
        dtype = COMPONENT_TYPES[component_type]
        array = np.asarray(array)
        if array.ndim == 1:
            array = array[:, None]
        kind = kind or _TYPE_BY_WIDTH[int(np.prod(array.shape[1:]))]
        if kind in MATRIX_ORDER:
            array = array.transpose(0, 2, 1)  # glTF stores matrices column by column
        flat = np.ascontiguousarray(array.reshape(len(array), TYPE_SIZES[kind]), dtype=dtype)
        accessor = {"bufferView": self._add_view(flat.tobytes()), "componentType": component_type,
                    "count": len(flat), "type": kind}
        if bounds:
            accessor["min"] = _plain(flat.min(axis=0))
            accessor["max"] = _plain(flat.max(axis=0))
        accessors = self.document.setdefault("accessors", [])
        accessors.append(accessor)
        return len(accessors) - 1

    def _add_view(self, data):
        views = self.document.setdefault("bufferViews", [])
        views.append({"buffer": 0, "byteOffset": self.length, "byteLength": len(data)})
        padding = -len(data) % 4
        self.parts.append(data + b"\0" * padding)
        self.length += len(data) + padding
        return len(views) - 1

    def blob(self) -> bytes:
        """Join the views' bytes: the buffer's data."""
        return b"".join(self.parts)


def _plain(values):
    """Accessor bounds as JSON numbers: float32 values written with float64 repr round-trip."""
    return [float(v) if np.issubdtype(type(v), np.floating) else int(v) for v in values]


def write_gltf(path: str | os.PathLike[str], document: dict[str, Any], blob: bytes, embed: bool = False) -> None:
    """Write ``document`` with ``blob`` as buffer 0: beside it as ``<stem>.bin``, or embedded."""
    path = Path(path)
    document = dict(document)
    if embed:
        uri = "data:application/octet-stream;base64," + base64.b64encode(blob).decode("ascii")
    else:
        uri = path.with_suffix(".bin").name
        write_atomic(path.with_suffix(".bin"), blob)
    document["buffers"] = [{"byteLength": len(blob), "uri": uri}]
    write_atomic(path, (json.dumps(document, indent=1) + "\n").encode("utf-8"))


def write_glb(path: str | os.PathLike[str], document: dict[str, Any], blob: bytes) -> None:
    """Write a binary glTF: 12-byte header, JSON chunk (space padded), BIN chunk (zero padded)."""
    document = dict(document)
    document["buffers"] = [{"byteLength": len(blob)}]
    json_bytes = json.dumps(document, separators=(",", ":")).encode("utf-8")
    json_bytes += b" " * (-len(json_bytes) % 4)
    blob += b"\0" * (-len(blob) % 4)
    chunks = struct.pack("<II", len(json_bytes), CHUNK_JSON) + json_bytes
    chunks += struct.pack("<II", len(blob), CHUNK_BIN) + blob
    header = struct.pack("<4sII", b"glTF", 2, 12 + len(chunks))
    write_atomic(Path(path), header + chunks)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename.

    A failure half-way never damages a file that was already there, and leaves no temporary file.
    A replaced file's permissions are kept; a new one gets the mode ``open()`` would give it.

    Parameters
    ----------
    path : Path
        The file to create or replace; its folder must exist.
    data : bytes
        The whole content.

    Raises
    ------
    OSError
        The folder cannot be written to, or the disk is full.

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = Path(folder) / "a.bin"
    ...     write_atomic(target, b"old"); write_atomic(target, b"new")
    ...     print(target.read_bytes(), [item.name for item in Path(folder).iterdir()])
    b'new' ['a.bin']
    """
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        # mkstemp creates owner-only files; give the result the mode a plain open() would have.
        os.chmod(temporary, _file_mode(path))
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _file_mode(path):
    """The replaced file's mode, or the default for new files under the current umask."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
