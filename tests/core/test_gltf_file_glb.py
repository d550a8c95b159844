"""core.gltf.file: the JSON of a .gltf and the GLB container (header, JSON chunk, BIN chunk).

Expected values come from the glTF 2.0 spec (GLB layout §4: 12-byte header magic/version/length,
chunks of length + type, JSON chunk first, BIN chunk optional and only for buffer 0; error codes named
as Khronos glTF-Validator names them), from bytes built here with ``struct``, and from the Khronos
sample models in the shared assets (their .glb walked chunk by chunk by hand, and the same model as
.gltf, .glb and embedded data: URIs). Where buffers come from in a .gltf: test_gltf_file_uris.py.
"""

import json
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers.gltf_bytes import BIN_TYPE, JSON_TYPE, chunk, data_uri, glb, gltf_bytes, raises

from gltf_sqlerp.core.gltf.file import parse_bytes, read_file

KHRONOS = "khronos"


# ---------------------------------------------------------------- JSON


@pytest.mark.parametrize("text", [b"[]", b'"glTF"', b"3", b"null"])
def test_json_root_must_be_an_object(text):
    raises("INVALID_JSON_ROOT_OBJECT", "", parse_bytes, text)


@pytest.mark.parametrize("text", [
    b'{"asset": {"version": "2.0"}',            # unterminated
    b"{'asset': 1}",                             # not JSON quoting
    b"",                                         # empty file
    b'{"a": "\xff\xfe"}',                        # not UTF-8
    b"[" * 100000 + b"]" * 100000,               # nesting deep enough to exhaust the parser
    b'{"count": ' + b"9" * 5000 + b"}",          # Python refuses integers this long (ValueError)
], ids=["unterminated", "single-quotes", "empty", "not-utf8", "deep-nesting", "huge-integer"])
def test_invalid_json_is_refused(text):
    raises("INVALID_JSON", "", parse_bytes, text)


# ---------------------------------------------------------------- GLB


def test_glb_bin_chunk_is_buffer_zero():
    payload = struct.pack("<4f", 0.0, 1.0, 2.0, 3.0)
    data = glb({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 16}]}, payload)
    gltf = parse_bytes(data)
    assert gltf.buffers == [payload]
    assert gltf.json["buffers"] == [{"byteLength": 16}]


def test_glb_bin_chunk_may_be_padded_past_byte_length():
    # The BIN chunk is padded to 4 bytes, so it may be up to 3 bytes longer than buffer 0.
    payload = b"\x01\x02\x03\x04\x05"
    gltf = parse_bytes(glb({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 5}]}, payload))
    assert gltf.buffers == [payload]


def test_only_buffer_zero_may_use_the_bin_chunk():
    document = {"asset": {"version": "2.0"},
                "buffers": [{"byteLength": 4}, {"byteLength": 4}]}
    gltf = parse_bytes(glb(document, b"abcd"))
    assert gltf.buffers == [b"abcd", None]


def test_glb_without_bin_chunk_is_valid():
    # The BIN chunk is optional; buffers may come from data: URIs instead.
    document = {"asset": {"version": "2.0"}, "buffers": [{"byteLength": 2, "uri": data_uri(b"hi")}]}
    gltf = parse_bytes(glb(document))
    assert gltf.buffers == [b"hi"]


def test_glb_unknown_chunk_types_are_skipped():
    # Spec §4.4.3: client implementations must ignore chunks with unknown types.
    chunks = [chunk(JSON_TYPE, json.dumps({"buffers": [{"byteLength": 4}]}).encode(), b" "),
              chunk(BIN_TYPE, b"wxyz"), chunk(0x12345678, b"junk")]
    assert parse_bytes(glb(None, chunks=chunks)).buffers == [b"wxyz"]


def test_glb_is_recognised_by_magic_not_by_name(tmp_path):
    (tmp_path / "named.gltf").write_bytes(glb({"buffers": [{"byteLength": 4}]}, b"\x00\x01\x02\x03"))
    (tmp_path / "named.glb").write_bytes(gltf_bytes([{"byteLength": 2, "uri": data_uri(b"ok")}]))
    assert read_file(tmp_path / "named.gltf").buffers == [b"\x00\x01\x02\x03"]
    assert read_file(tmp_path / "named.glb").buffers == [b"ok"]


def test_glb_wrong_version():
    raises("GLB_INVALID_VERSION", "", parse_bytes, glb({"asset": {}}, version=1))


@pytest.mark.parametrize("delta", [4, -4])
def test_glb_length_mismatch(delta):
    raises("GLB_LENGTH_MISMATCH", "", parse_bytes, glb({"asset": {}}, length_delta=delta))


@pytest.mark.parametrize("data", [b"glTF", b"glTF\x02\x00\x00\x00", b"glTF\x02\x00\x00\x00\x0b\x00\x00"])
def test_glb_truncated_header(data):
    raises("GLB_UNEXPECTED_END_OF_HEADER", "", parse_bytes, data)


def test_glb_chunk_longer_than_file():
    body = b'{"asset":{}}'
    bad_chunk = struct.pack("<II", len(body) + 100, JSON_TYPE) + body
    data = struct.pack("<4sII", b"glTF", 2, 12 + len(bad_chunk)) + bad_chunk
    raises("GLB_CHUNK_TOO_BIG", "", parse_bytes, data)


def test_glb_truncated_chunk_header():
    good = chunk(JSON_TYPE, b'{"asset":{}}', b" ")
    data = struct.pack("<4sII", b"glTF", 2, 12 + len(good) + 4) + good + b"\x04\x00\x00\x00"
    raises("GLB_UNEXPECTED_END_OF_CHUNK_HEADER", "", parse_bytes, data)


def test_glb_first_chunk_must_be_json():
    chunks = [chunk(BIN_TYPE, b"abcd"), chunk(JSON_TYPE, b'{"asset":{}}', b" ")]
    raises("GLB_UNEXPECTED_FIRST_CHUNK", "", parse_bytes, glb(None, chunks=chunks))


def test_glb_header_without_any_chunk():
    raises("GLB_UNEXPECTED_FIRST_CHUNK", "", parse_bytes, struct.pack("<4sII", b"glTF", 2, 12))


def test_glb_two_bin_chunks():
    chunks = [chunk(JSON_TYPE, b'{"buffers":[{"byteLength":4}]}', b" "),
              chunk(BIN_TYPE, b"abcd"), chunk(BIN_TYPE, b"efgh")]
    raises("GLB_DUPLICATE_CHUNK", "", parse_bytes, glb(None, chunks=chunks))


def test_glb_bin_chunk_shorter_than_buffer():
    data = glb({"buffers": [{"byteLength": 16}]}, b"12345678")
    raises("BUFFER_BYTE_LENGTH_MISMATCH", "/buffers/0", parse_bytes, data)


def test_glb_json_chunk_with_invalid_json():
    raises("INVALID_JSON", "", parse_bytes, glb(b"{not json"))
    raises("INVALID_JSON_ROOT_OBJECT", "", parse_bytes, glb(b"[1, 2]"))


# ---------------------------------------------------------------- real Khronos models

BINARY = ["AnimatedMorphCube", "BoxAnimated", "CesiumMan", "InterpolationTest", "RiggedFigure",
          "RiggedSimple"]


@pytest.mark.parametrize("model", BINARY)
def test_glb_buffer_is_the_bin_chunk(shared_assets, model):
    path = shared_assets / KHRONOS / model / "glTF-Binary" / f"{model}.glb"
    raw = path.read_bytes()
    # Walk the chunks by hand (spec §4.4): 12-byte header, then length + type + body.
    magic, version, length = struct.unpack_from("<4sII", raw, 0)
    assert (magic, version, length) == (b"glTF", 2, len(raw))
    json_length, json_type = struct.unpack_from("<II", raw, 12)
    assert json_type == JSON_TYPE
    bin_length, bin_type = struct.unpack_from("<II", raw, 20 + json_length)
    assert bin_type == BIN_TYPE
    bin_body = raw[28 + json_length:28 + json_length + bin_length]
    document = json.loads(raw[20:20 + json_length])

    gltf = read_file(path)
    assert gltf.json == document
    assert gltf.buffers[0] == bin_body[:document["buffers"][0]["byteLength"]]


def test_box_animated_glb_gltf_and_embedded_hold_the_same_bytes(shared_assets):
    folder = shared_assets / KHRONOS / "BoxAnimated"
    variants = [read_file(folder / "glTF" / "BoxAnimated.gltf"),
                read_file(folder / "glTF-Binary" / "BoxAnimated.glb"),
                read_file(folder / "glTF-Embedded" / "BoxAnimated.gltf")]
    assert (folder / "glTF" / "BoxAnimated0.bin").read_bytes() == variants[0].buffers[0]
    for other in variants[1:]:
        assert other.buffers == variants[0].buffers
        assert other.json["bufferViews"] == variants[0].json["bufferViews"]
        assert other.json["animations"] == variants[0].json["animations"]


# ---------------------------------------------------------------- no Blender in core


def test_core_imports_without_bpy():
    root = Path(__file__).resolve().parents[2]
    script = textwrap.dedent(f"""
        import importlib, importlib.util, sys
        spec = importlib.util.spec_from_file_location(
            "gltf_sqlerp", {str(root / "__init__.py")!r}, submodule_search_locations=[{str(root)!r}])
        module = importlib.util.module_from_spec(spec)
        sys.modules["gltf_sqlerp"] = module
        spec.loader.exec_module(module)
        importlib.import_module("gltf_sqlerp.core")
        importlib.import_module("gltf_sqlerp.core.gltf.file")
        importlib.import_module("gltf_sqlerp.core.gltf.accessors")
        assert "gltf_sqlerp.core.gltf.accessors" in sys.modules
        leaked = sorted(name for name in ("bpy", "mathutils", "bmesh") if name in sys.modules)
        assert not leaked, leaked
        print("core-ok")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "core-ok"
