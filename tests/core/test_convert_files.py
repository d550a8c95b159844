"""core.conversion.converter's files (core.conversion.files, core.gltf.compaction): the forms a source keeps
(embedded, GLB, external buffers and images beside the output), everything but the rewritten
samplers kept (read back with read_accessor), the source's own buffer never overwritten, and
nothing left behind by a failed write. Sources: the dense test file of tests/helpers/convert_sources.py
and Khronos' CesiumMan.
"""

import numpy as np
import pytest
from helpers.convert_sources import CESIUM, gltf_json, write_source

from gltf_sqlerp import core
from gltf_sqlerp.core.gltf.accessors import read_accessor
from gltf_sqlerp.core.conversion.converter import convert
from gltf_sqlerp.core.gltf.file import read_file


def test_an_embedded_gltf_stays_embedded_and_a_glb_stays_one_file(tmp_path):
    write_source(tmp_path / "embedded.gltf", embed=True)
    convert(tmp_path / "embedded.gltf", tmp_path / "out" / "embedded.gltf")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["embedded.gltf"]
    buffers = gltf_json(tmp_path / "out" / "embedded.gltf")["buffers"]
    assert len(buffers) == 1 and buffers[0]["uri"].startswith("data:")
    write_source(tmp_path / "dense.glb")
    report = convert(tmp_path / "dense.glb", tmp_path / "out" / "sparse.glb")
    assert report.files == [tmp_path / "out" / "sparse.glb"]
    buffers = gltf_json(tmp_path / "out" / "sparse.glb")["buffers"]
    assert len(buffers) == 1 and "uri" not in buffers[0]  # the BIN chunk
    assert report.destination_bytes == (tmp_path / "out" / "sparse.glb").stat().st_size


def test_a_different_file_in_the_way_of_a_copied_resource_stops_the_conversion(tmp_path):
    (tmp_path / "CesiumMan_img0.jpg").write_bytes(b"another asset's image")
    with pytest.raises(FileExistsError, match="CesiumMan_img0.jpg"):
        convert(CESIUM / "glTF" / "CesiumMan.gltf", tmp_path / "CesiumMan.gltf", tolerance_deg=0.05)
    assert [p.name for p in tmp_path.iterdir()] == ["CesiumMan_img0.jpg"]
    assert (tmp_path / "CesiumMan_img0.jpg").read_bytes() == b"another asset's image"


def test_the_source_buffer_is_never_overwritten_converting_beside_it(tmp_path):
    for file in (CESIUM / "glTF").iterdir():
        (tmp_path / file.name).write_bytes(file.read_bytes())
    data = (tmp_path / "CesiumMan_data.bin").read_bytes()
    report = convert(tmp_path / "CesiumMan.gltf", tmp_path / "CesiumMan.gltf", tolerance_deg=0.05)  # in place
    assert report.written and (tmp_path / "CesiumMan_data.bin").read_bytes() == data
    assert [b["uri"] for b in gltf_json(tmp_path / "CesiumMan.gltf")["buffers"]] == ["CesiumMan_sqlerp.bin"]
    assert core.load(tmp_path / "CesiumMan.gltf").warnings == []


def test_a_failed_write_removes_the_files_it_had_created(tmp_path, monkeypatch):
    from gltf_sqlerp.core.conversion import files as module
    written = []

    def fail_on_the_gltf(path, data):
        if path.suffix == ".gltf":
            raise OSError("disk full")
        written.append(path.name)
        module_write(path, data)

    module_write = module.write_atomic
    monkeypatch.setattr(module, "write_atomic", fail_on_the_gltf)
    destination = tmp_path / "out" / "CesiumMan.gltf"
    with pytest.raises(OSError, match="disk full"):
        convert(CESIUM / "glTF" / "CesiumMan.gltf", destination, tolerance_deg=0.05)
    assert sorted(written) == ["CesiumMan_img0.jpg", "CesiumMan_sqlerp.bin"]
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("form", ["glTF/CesiumMan.gltf", "glTF-Binary/CesiumMan.glb"])
def test_a_real_file_keeps_everything_but_the_rewritten_samplers(tmp_path, form):
    # Changed on purpose: the file used to keep every original accessor, view and byte in place
    # (only appended to); now the replaced samplers' data leaves and the rest is renumbered.
    source, destination = CESIUM / form, tmp_path / "elsewhere" / form.split("/")[1]
    destination.parent.mkdir()
    report = convert(source, destination, tolerance_deg=0.05)
    assert len(report.channels) == 19 and len(report.converted) >= 15
    assert all(c.max_error_deg is not None and c.max_error_deg <= 0.05 for c in report.converted)
    assert report.destination_bytes < report.source_bytes
    assert report.dropped_accessors == len(report.converted)  # their old outputs
    before, after = gltf_json(source), gltf_json(destination)
    changed = {"animations", "accessors", "bufferViews", "buffers", "extensionsUsed", "meshes",
               "skins", "images"}
    assert {k: v for k, v in after.items() if k not in changed} == \
        {k: v for k, v in before.items() if k not in changed}
    old_file, new_file = read_file(source), read_file(destination)
    for old, new in zip(before.get("images", []), after.get("images", [])):  # a GLB's image bytes
        assert {k: v for k, v in old.items() if k != "bufferView"} == \
            {k: v for k, v in new.items() if k != "bufferView"}
        if "bufferView" in old:
            assert _view_bytes(old_file, old["bufferView"]) == _view_bytes(new_file, new["bufferView"])
    for old_skin, new_skin in zip(before["skins"], after["skins"]):
        assert np.array_equal(read_accessor(old_file, old_skin["inverseBindMatrices"]),
                              read_accessor(new_file, new_skin["inverseBindMatrices"]))
        assert old_skin["joints"] == new_skin["joints"]
    for old_mesh, new_mesh in zip(before["meshes"], after["meshes"]):
        for old, new in zip(old_mesh["primitives"], new_mesh["primitives"]):
            assert old["attributes"].keys() == new["attributes"].keys()
            for key in old["attributes"]:
                assert np.array_equal(read_accessor(old_file, old["attributes"][key]),
                                      read_accessor(new_file, new["attributes"][key]))
            assert np.array_equal(read_accessor(old_file, old["indices"]),
                                  read_accessor(new_file, new["indices"]))
    # Channels keep their targets; translation and scale samplers keep their keys.
    old_animation, new_animation = before["animations"][0], after["animations"][0]
    for old, new in zip(old_animation["channels"], new_animation["channels"]):
        assert old["target"] == new["target"]
        if old["target"]["path"] != "rotation":
            for key in ("input", "output"):
                assert np.array_equal(
                    read_accessor(old_file, old_animation["samplers"][old["sampler"]][key]),
                    read_accessor(new_file, new_animation["samplers"][new["sampler"]][key]))
    for image in before.get("images", []):  # a .gltf's own files come along to the new folder
        if "uri" in image:
            copied = (destination.parent / image["uri"]).read_bytes()
            assert copied == (source.parent / image["uri"]).read_bytes()


def _view_bytes(gltf_file, index):
    view = gltf_file.json["bufferViews"][index]
    start = view.get("byteOffset", 0)
    return bytes(gltf_file.buffers[view["buffer"]][start:start + view["byteLength"]])
