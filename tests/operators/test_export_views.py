"""Animation data in few buffer views and shared key-time inputs, in the real Blender.

tests/jobs/view_merge_job.py exports each scene with ``export_scene.gltf_sqlerp`` to .glb and .gltf
three times: "plain" (bundled_gltf.export_views switched off: one view per accessor, as the
bundled exporter writes them), "shared" (equal key-time inputs shared) and "merged" (views joined
too: what the add-on writes). The plain files are the reference: the merged ones must pass the
Khronos validator as they do, play in three.js and read back in the core exactly as they do, hold
the same bytes in their buffers (nothing moved), and be smaller by the JSON the dropped views and
accessors took.
"""

import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from helpers.child_job import tool
from helpers.gltf_validator import ERROR, WARNING, errors, issues, validate_all
from helpers import JOBS, run_job

from gltf_sqlerp import core

pytestmark = pytest.mark.blender

three_player = tool("tools/three_player.py")
JOB = JOBS / "view_merge_job.py"
SCENES = ("a1", "tree", "skinned", "twins")
FORMATS = ("glb", "gltf")


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("views")
    return run_job(JOB, folder, *SCENES, timeout=1200)


def paths(job, variant):
    return [Path(job[scene][variant][f]) for scene in SCENES for f in FORMATS]


def size(path):
    """Bytes on disk: a .gltf with its .bin (the same images beside both variants)."""
    return path.stat().st_size + (path.with_suffix(".bin").stat().st_size if path.suffix == ".gltf" else 0)


def binary(path):
    """The buffer's bytes: a .glb's BIN chunk, a .gltf's .bin."""
    if path.suffix == ".gltf":
        return path.with_suffix(".bin").read_bytes()
    data = path.read_bytes()
    json_length = struct.unpack_from("<I", data, 12)[0]
    return data[20 + json_length + 8:]


def animation_views(gltf):
    return {gltf["accessors"][i]["bufferView"] for a in gltf.get("animations", []) for s in a["samplers"]
            for i in (s["input"], s["output"])}


def test_merged_files_pass_the_validator_as_the_plain_ones(job):
    merged, plain = paths(job, "merged"), paths(job, "plain")
    reports = validate_all(merged + plain)
    for path, ours, reference in zip(merged, reports, reports[len(merged):]):
        gltf = core.load(str(path)).json
        assert errors(ours) == [], path.name
        # The only warnings: the CUBICSLERP interpolation the validator does not know (the
        # extension's fallback form), exactly as in the file with one view per accessor.
        cubicslerp = {f"/animations/{a}/samplers/{s}/interpolation"
                      for a, animation in enumerate(gltf["animations"])
                      for s, sampler in enumerate(animation["samplers"]) if sampler["interpolation"] == "CUBICSLERP"}
        assert {pointer for _, pointer in issues(ours, WARNING)} <= cubicslerp, path.name
        assert Counter(code for code, _ in issues(ours, WARNING)) \
            == Counter(code for code, _ in issues(reference, WARNING)), path.name
        codes = {m["code"] for m in ours["issues"]["messages"]}
        assert codes <= {m["code"] for m in reference["issues"]["messages"]}, path.name
        assert ERROR not in {m["severity"] for m in reference["issues"]["messages"]}


def test_animation_data_lies_in_one_view_per_run_and_the_files_get_smaller(job):
    saved = {}
    for scene in SCENES:
        for file_format in FORMATS:
            merged, shared, plain = (Path(job[scene][v][file_format]) for v in ("merged", "shared", "plain"))
            ours, reference = core.load(str(merged)).json, core.load(str(plain)).json
            assert len(animation_views(ours)) == 1, (scene, file_format)  # every sampler's data in one run
            dropped = len(reference["bufferViews"]) - len(ours["bufferViews"])
            assert dropped == len(animation_views(reference)) - 1
            # No byte moved: the buffer is the one written before the views were joined.
            assert binary(merged) == binary(shared)
            # A dropped view is about 45 bytes of JSON; its accessor gains a byteOffset (about 18).
            assert size(shared) - size(merged) >= 20 * dropped, (scene, file_format)
            saved[scene, file_format] = (size(plain), size(merged))
    print("bytes (one view per accessor -> merged):", saved)
    # Equal key times of two animations share one accessor: the twins' second input is gone.
    assert size(Path(job["twins"]["shared"]["glb"])) < size(Path(job["twins"]["plain"]["glb"]))
    assert len(binary(Path(job["twins"]["shared"]["glb"]))) < len(binary(Path(job["twins"]["plain"]["glb"])))


def test_the_core_reads_the_same_samplers(job):
    for scene in SCENES:
        for file_format in FORMATS:
            merged = core.load(job[scene]["merged"][file_format])
            plain = core.load(job[scene]["plain"][file_format])
            assert len(merged.animations) == len(plain.animations) > 0
            for ours, reference in zip(merged.animations, plain.animations):
                assert len(ours.channels) == len(reference.channels) > 0
                for a, b in zip(ours.channels, reference.channels):
                    assert (a.node, a.path) == (b.node, b.path)
                    for x, y in ((a.sampler, b.sampler), (a.fallback, b.fallback)):
                        assert (x is None) == (y is None)
                        if x is not None and y is not None:
                            assert x.interpolation == y.interpolation
                            assert np.array_equal(x.times, y.times) and np.array_equal(x.values, y.values)


def test_three_plays_the_merged_files_as_the_plain_ones(job):
    merged, plain = paths(job, "merged"), paths(job, "plain")
    documents = [core.load(str(p)) for p in plain]
    times = [{a: three_player.check_times(d, a) for a in range(len(d.animations))} for d in documents]
    played = three_player.play(merged + plain, times + times)
    for path, ours, reference in zip(merged, played, played[len(merged):]):
        assert ours.missing == [] and ours.clips == reference.clips, path.name
        for animation, quaternions in reference.quaternions.items():
            assert np.array_equal(ours.quaternions[animation], quaternions), (path.name, animation)
    for path, result in zip(merged, three_player.compare(merged)):
        assert result.samples > 0 and result.worst <= 1e-6, (path.name, result.worst)


def test_mesh_skin_and_image_data_keep_their_views(job):
    for file_format in FORMATS:
        ours = core.load(job["skinned"]["merged"][file_format])
        plain = core.load(job["skinned"]["plain"][file_format])
        gltf, reference = ours.json, plain.json
        assert gltf["skins"] and gltf["meshes"][0]["primitives"][0].get("targets")
        others = [i for i, accessor in enumerate(gltf["accessors"])
                  if accessor.get("bufferView") not in animation_views(gltf)]
        # positions, normals, uv, joints, weights, indices, the morph target (sparse), matrices
        assert len(others) >= 8 and any("sparse" in gltf["accessors"][i] for i in others)
        for i in others:
            accessor, old = gltf["accessors"][i], reference["accessors"][i]
            for part, before in _views_of(accessor, reference, old):
                assert _view(gltf, part) == before
            assert np.array_equal(ours.accessor(i), plain.accessor(i))
        if file_format == "glb":
            [image], [old] = gltf["images"], reference["images"]
            assert gltf["bufferViews"][image["bufferView"]] == reference["bufferViews"][old["bufferView"]]
    # The add-on's importer reads them back (merged views; the twins' shared inputs).
    assert job["skinned"]["imported"] == ["FINISHED"] and job["twins"]["imported"] == ["FINISHED"]


def _view(gltf, holder):
    return gltf["bufferViews"][holder["bufferView"]]


def _views_of(accessor, reference, old):
    """(holder of a bufferView in ``accessor``, the view its counterpart in ``old`` names)."""
    pairs = [(accessor, old)] if "bufferView" in accessor else []
    if "sparse" in accessor:
        pairs += [(accessor["sparse"][k], old["sparse"][k]) for k in ("indices", "values")]
    return [(part, _view(reference, before)) for part, before in pairs]


def test_a_merge_that_fails_half_way_leaves_the_views_as_they_were(job):
    # The job's plan cut short raises while renumbering: the hook restores every view and accessor.
    for file_format in FORMATS:
        broken, shared = Path(job["a1"]["broken"][file_format]), Path(job["a1"]["shared"][file_format])
        assert broken.read_bytes() == shared.read_bytes()
        assert binary(broken) == binary(shared)
