"""glTF and GLB files laid out by hand for the file-reading tests (tests/core/test_gltf_file_*.py):
JSON documents with their buffers, data: URIs, GLB headers and chunks (glTF 2.0 spec §4), and the
error core.gltf.file must raise."""

import base64
import json
import struct

import pytest

from gltf_sqlerp.core.gltf.errors import GltfError

JSON_TYPE = 0x4E4F534A  # "JSON" read as a little-endian uint32 (spec §4.4.3)
BIN_TYPE = 0x004E4942   # "BIN\0"


def data_uri(payload, mime="application/octet-stream"):
    """A base64 data: URI holding ``payload``."""
    return f"data:{mime};base64," + base64.b64encode(payload).decode("ascii")


def gltf_bytes(buffers):
    """The JSON of a .gltf with only an asset and these buffers."""
    return json.dumps({"asset": {"version": "2.0"}, "buffers": buffers}).encode("utf-8")


def chunk(kind, body, pad=b"\0"):
    """A GLB chunk: length, type, body padded to 4 bytes."""
    body = body + pad * (-len(body) % 4)  # chunks are padded to 4 bytes (spec §4.4.1)
    return struct.pack("<II", len(body), kind) + body


def glb(document, bin_body=None, version=2, length_delta=0, chunks=None):
    """A GLB laid out by hand: header (magic, version, total length), JSON chunk, optional BIN."""
    if chunks is None:
        body = json.dumps(document).encode("utf-8") if isinstance(document, dict) else document
        chunks = [chunk(JSON_TYPE, body, pad=b" ")]
        if bin_body is not None:
            chunks.append(chunk(BIN_TYPE, bin_body))
    payload = b"".join(chunks)
    return struct.pack("<4sII", b"glTF", version, 12 + len(payload) + length_delta) + payload


def raises(code, pointer, call, *args, **kwargs):
    """Check that ``call(*args, **kwargs)`` fails with this code at this JSON pointer; the error."""
    with pytest.raises(GltfError) as info:
        call(*args, **kwargs)
    assert (info.value.code, info.value.pointer) == (code, pointer), str(info.value)
    return info.value
