"""Round trips in the real Blender: a Blender-keyed rig (tools/keyed_rig.py: bones and empties,
Bezier keys every 4 to 12 frames, every rotation mode, turns up to 100 degrees between keys, an
action starting at frame -6) exported with ``export_scene.gltf_sqlerp``, then imported back; the
sample's CUBICSLERP file re-exported; key times at 29.97 fps; a material the importer gives a node
group.

Blender's own evaluation is the reference on both sides: world rotations read with frame_set at
every frame and half frame, before the export and after the import. Bones and empties come back
with other rest orientations (the importer's bone axes), a constant turn per node, measured at the
first frame; what must match is the motion. The exports run in a child process (tests/jobs/export_job.py):
the bpy module of Blender 4.2 crashes at exit once its glTF exporter has run.

The export's fitting paths (worker processes, Blender's samples, dense keys):
test_export_fitting.py; the export beside the bundled exporter and when it fails:
test_export_bundled.py.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from helpers import gltf_validator, run_job
from helpers import JOBS as JOB_FOLDER  # this module has a JOBS of its own
from gltf_sqlerp.core import load
from gltf_sqlerp.core.sampling import quaternions as quat

pytestmark = pytest.mark.blender

JOB = JOB_FOLDER / "export_job.py"
TOLERANCE = 0.01           # degrees: the export's default (CUBICSLERP against Blender's curves)
FALLBACK_TOLERANCE = 0.1   # degrees: the LINEAR fallback against the CUBICSLERP curve
IMPORT_TOLERANCE = 0.01    # degrees: our importer against the file, in world space
CHAIN = 4                  # bones in the keyed rig's chain: the bundled importer's lerp adds up


def export_rig(folder, fallback, file_format="glb", fps=24, fps_base=1.0):
    result = run_job(JOB, folder, fallback, file_format, fps, fps_base)
    result["path"] = Path(folder) / f"rig.{file_format}"
    return result


def motion_error(original, played):
    """Per name, the largest angle (degrees) between the two world rotations over all frames, after
    removing the constant turn between the original and the imported node (taken at frame 0)."""
    errors = {}
    for name, reference in original.items():
        a = np.roll(np.asarray(reference, dtype=np.float64), -1, axis=1)   # (w,x,y,z) -> (x,y,z,w)
        b = np.roll(np.asarray(played[name], dtype=np.float64), -1, axis=1)
        offset = quat.multiply(quat.conjugate(a[:1]), b[:1])
        errors[name] = float(quat.angle_between(quat.multiply(a, offset), b).max())
    return errors


# (fallback, file format, fps, fps_base): every fallback mode; the 29.97 preset (fps 30, base
# 1.001), where the bundled exporter's seconds (frame / (fps * fps_base)) are 0.2 % off.
JOBS = {"AUTO": ("AUTO", "glb", 24, 1.0), "LINEAR": ("LINEAR", "glb", 24, 1.0),
        "SAMPLED": ("SAMPLED", "glb", 24, 1.0),
        "CUBICSPLINE": ("CUBICSPLINE", "gltf", 24, 1.0), "NONE": ("NONE", "glb", 24, 1.0),
        "LINEAR-29.97": ("LINEAR", "gltf", 30, 1.001)}


@pytest.fixture(scope="module", params=sorted(JOBS))
def job(request, tmp_path_factory):
    result = export_rig(tmp_path_factory.mktemp(request.param), *JOBS[request.param])
    result["mode"], result["name"] = JOBS[request.param][0], request.param
    return result


@pytest.fixture(scope="module")
def linear_job(tmp_path_factory):
    return export_rig(tmp_path_factory.mktemp("linear"), "LINEAR")


def test_every_rotation_channel_gets_a_cubicslerp_sampler(job):
    assert job["result"] == ["FINISHED"]
    channels = job["channels"]
    # 4 bones + 3 empties, one rotation channel each, none left as sampled.
    assert len(channels) == 7
    assert [c["skipped"] for c in channels] == [""] * 7
    for channel in channels:
        assert channel["max_error_deg"] <= TOLERANCE
        if job["mode"] == "LINEAR":
            assert channel["fallback_error_deg"] <= FALLBACK_TOLERANCE


def test_the_file_passes_the_khronos_validator_and_reads_back_without_warnings(job):
    report = gltf_validator.validate(job["path"])
    assert gltf_validator.errors(report) == []
    document = load(str(job["path"]))
    assert document.warnings == []
    rotations = [c for a in document.animations for c in a.channels if c.path == "rotation"]
    sqlerp = [c for c in rotations if c.uses_extension]
    assert len(rotations) == 7
    if job["mode"] == "AUTO":  # the smaller form per channel: the extension, or a core sampler alone
        assert all(c.sampler.interpolation in ("CUBICSPLINE", "LINEAR", "STEP") for c in rotations
                   if not c.uses_extension)
    else:
        assert len(sqlerp) == 7
    for channel in sqlerp:  # spec "Sign rules for writers", on the data as written
        a, v, b = (channel.sampler.values.reshape(-1, 3, 4)[:, i] for i in range(3))
        dot = lambda p, q: np.einsum("ij,ij->i", p, q)  # noqa: E731
        assert (dot(v[:-1], v[1:]) >= 0).all() and (dot(v[:-1], b[:-1]) >= 0).all()
        assert (dot(v[1:], a[1:]) >= 0).all() and (dot(b[:-1], a[1:]) >= 0).all()
        # (16-bit rows read back: the reader normalizes values, not tangents)
        assert np.allclose(a[0], v[0], atol=1e-4) and np.allclose(b[-1], v[-1], atol=1e-4)
    required = json.loads(_json_chunk(job["path"])).get("extensionsRequired", [])
    assert required == (["EXT_animation_sqlerp"] if job["mode"] == "NONE" else [])
    if job["mode"] == "NONE":  # the schema-valid required form: one STEP key holding v_1
        for channel in sqlerp:
            assert channel.fallback is not None
            assert channel.fallback.interpolation == "STEP" and len(channel.fallback.times) == 1
            # v_1 as fitted; the CUBICSLERP sampler stores it in 16 bits (the default precision).
            assert np.allclose(channel.fallback.values[0], channel.sampler.values[1], atol=2e-5)


def _json_chunk(path):
    data = Path(path).read_bytes()
    if data[:4] != b"glTF":
        return data.decode("utf-8")
    length = int.from_bytes(data[12:16], "little")
    return data[20:20 + length].decode("utf-8")


def test_our_import_plays_blenders_original_motion_in_every_mode(job):
    errors = motion_error(job["original"], job["ours"])
    assert max(errors.values()) <= IMPORT_TOLERANCE + TOLERANCE, errors


def test_the_linear_file_passes_the_validator_with_only_the_predicted_warnings(linear_job):
    report = gltf_validator.validate(linear_job["path"])
    assert gltf_validator.errors(report) == []
    # What spec "Channel forms" predict for the fallback form, and nothing else of ours.
    animation_warnings = {(m["code"], m["pointer"].rsplit("/", 1)[-1]) for m in report["issues"]["messages"]
                          if m["severity"] == 1 and m["pointer"].startswith("/animations")}
    assert animation_warnings <= {("VALUE_NOT_IN_LIST", "interpolation")}
    document = load(str(linear_job["path"]))
    assert document.warnings == []
    sqlerp = [c for a in document.animations for c in a.channels if c.uses_extension]
    assert len(sqlerp) == 7


def test_our_import_plays_blenders_original_motion(linear_job):
    errors = motion_error(linear_job["original"], linear_job["ours"])
    assert set(errors) == {"bone0", "bone1", "bone2", "bone3", "Empty0", "Empty1", "Fractional"}
    # World rotation: the export holds its tolerance for every bone's (tests/operators/test_export_world.py).
    assert max(errors.values()) <= IMPORT_TOLERANCE + TOLERANCE, errors


def test_bundled_import_plays_the_fallback_within_its_tolerance(linear_job):
    errors = motion_error(linear_job["original"], linear_job["bundled"])
    # The bundled importer plays the LINEAR fallback as component-wise lerp: at most 0.03 deg off
    # slerp for 30-degree segments (blender-notes) per bone, on top of the fallback's own
    # tolerance, which holds in world space.
    assert max(errors.values()) <= FALLBACK_TOLERANCE + CHAIN * 0.03, errors


def _cubicslerp_samplers(path):
    """{node name: (times, (3n, 4) values)} of the file's CUBICSLERP samplers, read with the core."""
    document = load(str(path))
    names = [node.get("name", "") for node in json.loads(Path(path).read_text())["nodes"]]
    return {names[c.node]: (c.sampler.times, c.sampler.values)
            for a in document.animations for c in a.channels if c.uses_extension}


def test_reexporting_an_imported_cubicslerp_file_keeps_its_keys_and_tangents(tmp_path):
    job = run_job(JOB, tmp_path, "REEXPORT")
    assert job["result"] == ["FINISHED"]
    assert [c["kept"] for c in job["channels"]] == [True, True, True]
    original = _cubicslerp_samplers(Path(__file__).parents[2] / "samples" / "sqlerp_arm.gltf")
    again = _cubicslerp_samplers(tmp_path / "again.gltf")
    assert set(again) == set(original) == {"Shoulder", "Elbow", "Wrist"}
    for name, (times, values) in original.items():
        new_times, new_values = again[name]
        assert np.array_equal(new_times, times)
        # Same rotations to float32; a_1 and b_n are written as v_1 and v_n (spec "CUBICSLERP Interpolation").
        same = np.minimum(np.abs(new_values - values), np.abs(new_values + values)).max(axis=1)
        assert same[1:-1].max() < 1e-7
        assert np.allclose(new_values[0], new_values[1]) and np.allclose(new_values[-1], new_values[-2])


def test_time_keeps_a_fractional_last_key(job):
    """Seconds = (frame - start) / (fps / fps_base) for the fitted keys (CUBICSLERP, or AUTO's
    CUBICSPLINE alone): the Fractional empty's keys at frames 1, 7.5 and 14.25 (fps and fps_base
    of the job), the last one beyond the frames the bundled exporter samples."""
    names = [node.get("name", "") for node in json.loads(_json_chunk(job["path"]))["nodes"]]
    document = load(str(job["path"]))
    channel = next(c for a in document.animations for c in a.channels
                   if c.path == "rotation" and names[c.node] == "Fractional")
    assert channel.uses_extension or job["mode"] == "AUTO"
    fps, fps_base = JOBS[job["name"]][2:]
    expected = np.array([1.0, 7.5, 14.25]) * fps_base / fps
    assert np.allclose(channel.sampler.times[[0, -1]], expected[[0, -1]], rtol=0, atol=1e-6)
    assert np.isclose(channel.sampler.times, expected[1], atol=1e-6).any()


def test_animation_pointer_channels_get_the_right_time_too(tmp_path):
    """With fps_base != 1 every sampler input is rescaled to seconds = frame / (fps / fps_base),
    KHR_animation_pointer ones included (the bundled exporter times them as its node channels,
    frame / (fps * fps_base), in both modes that write them): every sampler's first and last key
    (the keys at frames 1 and 20, or 12 for the camera) land on whole frames at 29.97 fps."""
    outcomes = run_job(JOB, tmp_path, "POINTER")
    for mode in ("SCENE", "NLA_TRACKS"):
        assert [c["skipped"] for c in outcomes[mode]] == [""]  # the cube's rotation, fitted
        gltf = json.loads((tmp_path / f"{mode}.gltf").read_text())
        blob = (tmp_path / gltf["buffers"][0]["uri"]).read_bytes()
        pointers, inputs = set(), set()
        for animation in gltf["animations"]:
            for channel in animation["channels"]:
                target = channel["target"]
                pointer = target.get("extensions", {}).get("KHR_animation_pointer", {}).get("pointer")
                pointers.add(pointer.split("/")[1] if pointer else target["path"])
                inputs.add(animation["samplers"][channel["sampler"]]["input"])
        assert pointers >= {"materials", "extensions", "cameras", "rotation"}, pointers
        for index in inputs:
            accessor = gltf["accessors"][index]
            view = gltf["bufferViews"][accessor["bufferView"]]
            start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
            seconds = np.frombuffer(blob, "<f4", accessor["count"], start).astype(float)
            frames = seconds[[0, -1]] * 30.0 / 1.001  # bundled timing: 0.998 and 19.96
            assert np.abs(frames - np.round(frames)).max() < 1e-4 and frames[0] == pytest.approx(1.0), (mode, frames)


def test_a_material_with_an_occlusion_texture_keeps_the_cubicslerp_samplers(tmp_path):
    """Blender 5.2+ rebuilt every animation's samplers from the channels' core samplers when it
    dropped an idle KHR_materials_iridescence (which the importer's "glTF Material Output" group,
    made for an occlusion texture, always gives): the CUBICSLERP samplers were lost and nothing was
    written. Every Blender in the matrix must write a file that reads back with them."""
    job = run_job(JOB.with_name("occlusion_export_job.py"), tmp_path)
    assert job["result"] == ["FINISHED"]
    assert any("glTF" in name for name in job["node_groups"])  # the importer's material group
    document = load(tmp_path / "out.gltf")
    sqlerp = [c for a in document.animations for c in a.channels if c.uses_extension]
    assert len(sqlerp) == 3  # the arm's three bones
    assert gltf_validator.validate_all([tmp_path / "out.gltf"])[0]["issues"]["numErrors"] == 0
