"""core.gltf.file: where a .gltf's buffers come from: data: URIs, and external files kept inside
the asset's folder.

Expected values come from the glTF 2.0 spec (buffers §3.6.1: byteLength, data: URIs with the
application/octet-stream or application/gltf-buffer media type, relative URIs percent-encoded as RFC
3986 says; error codes named as Khronos glTF-Validator names them), from bytes built here with
``struct`` and files written here (URIs that would escape the folder point at a file that exists
beside it), and from the Khronos sample models whose embedded variant holds the same bytes as their
.bin files. The GLB container: test_gltf_file_glb.py.
"""

import json
import os
import struct

import pytest

from helpers.gltf_bytes import data_uri, gltf_bytes, raises

from gltf_sqlerp.core.gltf.file import GltfFile, parse_bytes, read_file

KHRONOS = "khronos"


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


@pytest.mark.parametrize("model", EMBEDDED)
def test_embedded_data_uris_match_the_external_bin_files(shared_assets, model):
    folder = shared_assets / KHRONOS / model
    external = json.loads((folder / "glTF" / f"{model}.gltf").read_text())
    embedded = read_file(folder / "glTF-Embedded" / f"{model}.gltf")
    expected = [(folder / "glTF" / b["uri"]).read_bytes()[:b["byteLength"]] for b in external["buffers"]]
    assert all(b["uri"].startswith("data:") for b in embedded.json["buffers"])
    assert embedded.buffers == expected
