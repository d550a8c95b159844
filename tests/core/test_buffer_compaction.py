"""core.gltf.compaction: unreferenced accessors and buffer views leave a file, every reference is
renumbered and every kept accessor reads the same values; a file with an extension whose buffer
references the module cannot rewrite is never compacted (core.conversion.converter writes nothing, or with
allow_larger keeps every view).

Independent references: documents built here by hand (byte layouts written out with struct), read
back with core.gltf.accessors.read_accessor and, for whole files, the Khronos glTF-Validator.
"""

import base64
import json
import struct

import numpy as np
from helpers.gltf_validator import errors, validate_all
from helpers.convert_sources import gltf_json, write_source

from gltf_sqlerp import core
from gltf_sqlerp.core.gltf.accessors import read_accessor
from gltf_sqlerp.core.gltf.compaction import compact, unknown_extensions
from gltf_sqlerp.core.conversion.converter import convert
from gltf_sqlerp.core.gltf.errors import ERROR
from gltf_sqlerp.core.gltf.file import GltfFile
from gltf_sqlerp.core.gltf.validation import validate


def _document():
    """Two buffers: buffer 0 holds 3 float positions (view 0), 3 byte indices at offset 37
    (view 1, an odd place), unused floats (view 2) and an image (view 3, sharing bytes with
    view 2's end); buffer 1 holds only an unused accessor's view (view 4). A sparse accessor
    reads its indices and values from views 1 and 0."""
    positions = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)  # 36 bytes at 0
    buffer0 = positions + b"\xee" + bytes([0, 1, 2]) + b"\xee" * 4 + struct.pack("<4f", 9, 9, 9, 9)
    gltf = {
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": len(buffer0)}, {"byteLength": 8}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 37, "byteLength": 3},
            {"buffer": 0, "byteOffset": 44, "byteLength": 16},
            {"buffer": 0, "byteOffset": 52, "byteLength": 8},
            {"buffer": 1, "byteLength": 8}],
        "accessors": [
            {"bufferView": 2, "componentType": 5126, "count": 4, "type": "SCALAR"},   # unused
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5121, "count": 3, "type": "SCALAR"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "SCALAR"},   # unused
            {"componentType": 5126, "count": 3, "type": "VEC3", "sparse": {
                "count": 1, "indices": {"bufferView": 1, "componentType": 5121, "byteOffset": 2},
                "values": {"bufferView": 0, "byteOffset": 12}}}],
        "images": [{"bufferView": 3, "mimeType": "image/png"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 1, "NORMAL": 4}, "indices": 2}]}],
    }
    return gltf, [buffer0, b"\x01" * 8]


def test_unreferenced_accessors_and_views_leave_and_the_rest_reads_the_same():
    gltf, buffers = _document()
    before = GltfFile(json=json.loads(json.dumps(gltf)), buffers=list(buffers))
    new_buffers, result = compact(gltf, buffers)
    assert result.accessors.tolist() == [-1, 0, 1, -1, 2] and result.dropped_accessors == 2
    assert result.views.tolist() == [0, 1, -1, 2, -1]  # view 2: only the unused accessor's
    assert result.buffers.tolist() == [0, -1]          # buffer 1: nothing left in it
    primitive = gltf["meshes"][0]["primitives"][0]
    assert primitive == {"attributes": {"POSITION": 0, "NORMAL": 2}, "indices": 1}
    assert gltf["images"] == [{"bufferView": 2, "mimeType": "image/png"}]
    sparse = gltf["accessors"][2]["sparse"]
    assert (sparse["indices"]["bufferView"], sparse["values"]["bufferView"]) == (1, 0)
    # Layout: 36 bytes at 0, the 3 index bytes at 37 (37 % 4 kept), the image's 8 at 40.
    assert [v.get("byteOffset", 0) for v in gltf["bufferViews"]] == [0, 37, 40]
    assert len(new_buffers) == 1 and gltf["buffers"] == [{"byteLength": 48}]
    assert new_buffers[0][40:48] == buffers[0][52:60] and "byteOffset" not in gltf["bufferViews"][0]
    after = GltfFile(json=gltf, buffers=list(new_buffers))  # a list of bytes | None
    for old, new in ((1, 0), (2, 1), (4, 2)):
        a, b = read_accessor(before, old), read_accessor(after, new)
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert [f for f in validate(after) if f.severity == ERROR] == []


def test_overlapping_views_share_their_bytes_after_compaction():
    data = bytes(range(64))
    gltf = {"asset": {"version": "2.0"}, "buffers": [{"byteLength": 64}],
            "bufferViews": [{"buffer": 0, "byteOffset": 8, "byteLength": 24},
                            {"buffer": 0, "byteOffset": 40, "byteLength": 8},
                            {"buffer": 0, "byteOffset": 16, "byteLength": 24}],
            "images": [{"bufferView": 0, "mimeType": "image/png"},
                       {"bufferView": 2, "mimeType": "image/png"}]}
    new_buffers, result = compact(gltf, [data])
    assert result.views.tolist() == [0, -1, 1]
    assert new_buffers == [data[8:40]]  # one block: the two views overlap
    assert [v["byteOffset"] for v in gltf["bufferViews"]] == [0, 8]


def test_a_buffer_with_every_view_in_place_comes_back_unchanged():
    gltf, buffers = _document()
    gltf["accessors"] = gltf["accessors"][1:3]
    gltf["bufferViews"] = gltf["bufferViews"][:2]
    gltf["bufferViews"][1]["byteOffset"] = 36
    gltf["buffers"] = [{"byteLength": 39}]
    gltf["meshes"][0]["primitives"][0] = {"attributes": {"POSITION": 0}, "indices": 1}
    del gltf["images"]
    new_buffers, _ = compact(gltf, [buffers[0][:39]])
    assert new_buffers == [buffers[0][:39]]


def test_unknown_extensions_are_found_declared_or_not():
    gltf, _ = _document()
    assert unknown_extensions(gltf) == []
    gltf["extensionsUsed"] = ["KHR_materials_unlit", "KHR_texture_transform", "KHR_draco_mesh_compression"]
    assert unknown_extensions(gltf) == []
    gltf["nodes"] = [{"extensions": {"VENDOR_blob": {"bufferView": 3}}}]  # not declared: found too
    assert unknown_extensions(gltf) == ["VENDOR_blob"]
    gltf["extensionsUsed"].append("EXT_meshopt_compression")
    assert unknown_extensions(gltf) == ["EXT_meshopt_compression", "VENDOR_blob"]


def _hostile(tmp_path):
    """The dense test file with a node extension this package does not know, naming a buffer
    view of its own (bytes that must stay where the extension says)."""
    write_source(tmp_path / "plain.gltf")
    gltf = gltf_json(tmp_path / "plain.gltf")
    data = (tmp_path / "plain.bin").read_bytes()
    blob = b"VENDOR-DATA-1234"
    gltf["bufferViews"].append({"buffer": 0, "byteOffset": len(data), "byteLength": len(blob)})
    gltf["buffers"] = [{"byteLength": len(data) + len(blob), "uri": "data:application/octet-stream;base64,"
                        + base64.b64encode(data + blob).decode("ascii")}]
    gltf["nodes"][1]["extensions"] = {"VENDOR_blob": {"bufferView": len(gltf["bufferViews"]) - 1}}
    gltf["extensionsUsed"] = ["VENDOR_blob"]
    (tmp_path / "hostile.gltf").write_text(json.dumps(gltf))
    return tmp_path / "hostile.gltf", blob


def test_a_file_with_an_unknown_buffer_reference_is_not_written(tmp_path):
    source, _ = _hostile(tmp_path)
    report = convert(source, tmp_path / "out" / "hostile.gltf")
    assert not report.written and not (tmp_path / "out").exists()
    assert report.reason.startswith("nothing written: it uses VENDOR_blob, whose references")


def test_allow_larger_keeps_every_view_of_a_file_with_an_unknown_extension(tmp_path):
    source, blob = _hostile(tmp_path)
    destination = tmp_path / "out" / "hostile.gltf"
    report = convert(source, destination, allow_larger=True)
    assert report.written and report.dropped_accessors == 0 and report.converted
    before, after = gltf_json(source), gltf_json(destination)
    assert after["bufferViews"][:len(before["bufferViews"])] == before["bufferViews"]
    assert len(after["accessors"]) > len(before["accessors"])  # only added to
    view = after["bufferViews"][after["nodes"][1]["extensions"]["VENDOR_blob"]["bufferView"]]
    data = core.load(destination).file.buffers[view["buffer"]]
    assert data[view["byteOffset"]:view["byteOffset"] + view["byteLength"]] == blob
    assert errors(validate_all([destination])[0]) == []
