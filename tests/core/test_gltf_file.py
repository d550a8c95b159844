"""core.gltf.file: reading .gltf/.glb, data: URIs, URIs kept inside the asset's folder.

Expected values come from the glTF 2.0 spec (GLB layout §4: 12-byte header magic/version/length,
chunks of length + type, JSON chunk first, BIN chunk optional and only for buffer 0; error codes named
as Khronos glTF-Validator names them), from bytes built here with ``struct``, and from the Khronos
sample models in the shared assets (the same model as .gltf, .glb and embedded data: URIs).
"""

import base64
import json
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gltf_sqlerp.core.gltf.errors import GltfError
from gltf_sqlerp.core.gltf.file import GltfFile, parse_bytes, read_file

KHRONOS = "khronos"
JSON_TYPE = 0x4E4F534A  # "JSON" read as a little-endian uint32 (spec §4.4.3)
BIN_TYPE = 0x004E4942   # "BIN\0"


def data_uri(payload, mime="application/octet-stream"):
    return f"data:{mime};base64," + base64.b64encode(payload).decode("ascii")


def gltf_bytes(buffers):
    return json.dumps({"asset": {"version": "2.0"}, "buffers": buffers}).encode("utf-8")


def chunk(kind, body, pad=b"\0"):
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
    with pytest.raises(GltfError) as info:
        call(*args, **kwargs)
    assert (info.value.code, info.value.pointer) == (code, pointer), str(info.value)
    return info.value


# ---------------------------------------------------------------- .gltf and data: URIs


def test_data_uri_buffer_is_decoded():
    payload = struct.pack("<3f", 1.0, -2.5, 0.125)
    gltf = parse_bytes(gltf_bytes([{"byteLength": 12, "uri": data_uri(payload)}]))
    assert isinstance(gltf, GltfFile)
    assert gltf.buffers == [payload]
    assert gltf.json["asset"] == {"version": "2.0"}


def test_data_uri_with_gltf_buffer_media_type():
    # application/gltf-buffer is the other media type the spec registers for buffers.
    payload = bytes(range(8))
    gltf = parse_bytes(gltf_bytes([{"byteLength": 8, "uri": data_uri(payload, "application/gltf-buffer")}]))
    assert gltf.buffers == [payload]


@pytest.mark.parametrize("uri", [
    "data:application/octet-stream;base64,@@@@",      # characters outside the base64 alphabet
    "data:application/octet-stream;base64,AAAAA",     # wrong length / padding
])
def test_data_uri_with_invalid_base64_is_refused(uri):
    raises("INVALID_URI", "/buffers/0/uri", parse_bytes, gltf_bytes([{"byteLength": 3, "uri": uri}]))


@pytest.mark.parametrize("uri", ["data:,hello", "data:text/plain,hello", "data:application/octet-stream"])
def test_data_uri_that_is_not_base64_is_refused(uri):
    raises("INVALID_URI", "/buffers/0/uri", parse_bytes, gltf_bytes([{"byteLength": 5, "uri": uri}]))


def test_data_uri_shorter_than_byte_length_is_refused():
    document = gltf_bytes([{"byteLength": 9, "uri": data_uri(b"12345678")}])
    raises("BUFFER_BYTE_LENGTH_MISMATCH", "/buffers/0", parse_bytes, document)


def test_buffer_without_uri_in_plain_gltf_has_no_data():
    gltf = parse_bytes(gltf_bytes([{"byteLength": 4}]))
    assert gltf.buffers == [None]


@pytest.mark.parametrize("buffer, code, pointer", [
    ({"uri": data_uri(b"abcd")}, "UNDEFINED_PROPERTY", "/buffers/0"),
    ({"byteLength": 0, "uri": data_uri(b"abcd")}, "VALUE_NOT_IN_RANGE", "/buffers/0/byteLength"),
    ({"byteLength": "4", "uri": data_uri(b"abcd")}, "TYPE_MISMATCH", "/buffers/0/byteLength"),
    ({"byteLength": 4, "uri": 7}, "TYPE_MISMATCH", "/buffers/0/uri"),
    ("not an object", "TYPE_MISMATCH", "/buffers/0"),
])
def test_malformed_buffer_objects(buffer, code, pointer):
    raises(code, pointer, parse_bytes, gltf_bytes([buffer]))


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


# ---------------------------------------------------------------- external files


def test_external_buffer_is_read_from_the_files_folder(tmp_path):
    payload = bytes(range(32))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "data.bin").write_bytes(payload)
    (tmp_path / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 32, "uri": "sub/data.bin"}]))
    gltf = read_file(tmp_path / "a.gltf")
    assert gltf.buffers == [payload]
    assert gltf.path == tmp_path / "a.gltf"
    assert gltf.base_dir == tmp_path


def test_external_buffer_uri_is_percent_decoded(tmp_path):
    # URIs are percent-encoded (RFC 3986): "my%20data.bin" names the file "my data.bin".
    (tmp_path / "my data.bin").write_bytes(b"spaced!!")
    (tmp_path / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 8, "uri": "my%20data.bin"}]))
    assert read_file(tmp_path / "a.gltf").buffers == [b"spaced!!"]


def test_external_buffer_longer_than_byte_length_is_cut(tmp_path):
    # The validator only objects when an external buffer is *shorter* than byteLength.
    (tmp_path / "a.bin").write_bytes(b"0123456789")
    (tmp_path / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 4, "uri": "a.bin"}]))
    assert read_file(tmp_path / "a.gltf").buffers == [b"0123"]


def test_external_buffer_shorter_than_byte_length(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"0123")
    (tmp_path / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 8, "uri": "a.bin"}]))
    raises("BUFFER_BYTE_LENGTH_MISMATCH", "/buffers/0", read_file, tmp_path / "a.gltf")


def test_missing_external_buffer(tmp_path):
    (tmp_path / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 8, "uri": "nowhere.bin"}]))
    raises("IO_ERROR", "/buffers/0/uri", read_file, tmp_path / "a.gltf")


def test_missing_gltf_file(tmp_path):
    raises("IO_ERROR", "", read_file, tmp_path / "nope.gltf")


def test_external_uri_without_a_folder_is_refused():
    # parse_bytes without base_dir has nowhere safe to resolve a relative URI.
    raises("INVALID_URI", "/buffers/0/uri", parse_bytes, gltf_bytes([{"byteLength": 4, "uri": "a.bin"}]))


@pytest.mark.parametrize("uri", [
    "../secret.bin",
    "sub/../../secret.bin",
    "%2e%2e/secret.bin",
    "%2E%2E%2Fsecret.bin",
    "..\\secret.bin",
    "/etc/passwd",
    "%2Fetc%2Fpasswd",
    "file:///etc/passwd",
    "C:\\secret.bin",
    "C:/secret.bin",
    "\\\\server\\share\\secret.bin",
    "//server/share/secret.bin",
    "https://example.com/secret.bin",
])
def test_uri_leaving_the_folder_is_refused(tmp_path, uri):
    # secret.bin sits right beside the asset folder, so a reader that followed the URI would succeed.
    (tmp_path / "secret.bin").write_bytes(b"SECRET!!" * 4)
    asset = tmp_path / "asset"
    (asset / "sub").mkdir(parents=True)
    (asset / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 4, "uri": uri}]))
    raises("URI_OUTSIDE_FOLDER", "/buffers/0/uri", read_file, asset / "a.gltf")


def test_absolute_path_to_an_existing_file_is_refused(tmp_path):
    (tmp_path / "secret.bin").write_bytes(b"SECRET!!")
    asset = tmp_path / "asset"
    asset.mkdir()
    uri = str((tmp_path / "secret.bin").resolve())
    (asset / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 4, "uri": uri}]))
    raises("URI_OUTSIDE_FOLDER", "/buffers/0/uri", read_file, asset / "a.gltf")


def test_symlink_inside_the_folder_pointing_outside_is_refused(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.bin").write_bytes(b"SECRET!!")
    asset = tmp_path / "asset"
    asset.mkdir()
    os.symlink(tmp_path / "outside" / "secret.bin", asset / "link.bin")
    os.symlink(tmp_path / "outside", asset / "linkdir")
    assert (asset / "link.bin").read_bytes() == b"SECRET!!"  # the link itself works
    for uri in ("link.bin", "linkdir/secret.bin"):
        (asset / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 4, "uri": uri}]))
        raises("URI_OUTSIDE_FOLDER", "/buffers/0/uri", read_file, asset / "a.gltf")


def test_symlink_staying_inside_the_folder_is_followed(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "real.bin").write_bytes(b"inside!!")
    os.symlink(tmp_path / "data" / "real.bin", tmp_path / "alias.bin")
    (tmp_path / "a.gltf").write_bytes(gltf_bytes([{"byteLength": 8, "uri": "alias.bin"}]))
    assert read_file(tmp_path / "a.gltf").buffers == [b"inside!!"]


# ---------------------------------------------------------------- real Khronos models

EMBEDDED = ["AnimatedTriangle", "BoxAnimated", "SimpleMorph", "SimpleSkin"]
BINARY = ["AnimatedMorphCube", "BoxAnimated", "CesiumMan", "InterpolationTest", "RiggedFigure",
          "RiggedSimple"]


@pytest.mark.parametrize("model", EMBEDDED)
def test_embedded_data_uris_match_the_external_bin_files(shared_assets, model):
    folder = shared_assets / KHRONOS / model
    external = json.loads((folder / "glTF" / f"{model}.gltf").read_text())
    embedded = read_file(folder / "glTF-Embedded" / f"{model}.gltf")
    expected = [(folder / "glTF" / b["uri"]).read_bytes()[:b["byteLength"]] for b in external["buffers"]]
    assert all(b["uri"].startswith("data:") for b in embedded.json["buffers"])
    assert embedded.buffers == expected


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
