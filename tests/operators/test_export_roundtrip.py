"""Round trips in the real Blender: a Blender-keyed rig (tools/keyed_rig.py: bones and empties,
Bezier keys every 4 to 12 frames, every rotation mode, turns up to 100 degrees between keys, an
action starting at frame -6) exported with ``export_scene.gltf_sqlerp``, then imported back.

Blender's own evaluation is the reference on both sides: world rotations read with frame_set at
every frame and half frame, before the export and after the import. Bones and empties come back
with other rest orientations (the importer's bone axes), a constant turn per node, measured at the
first frame; what must match is the motion. The exports run in a child process (tests/jobs/export_job.py):
the bpy module of Blender 4.2 crashes at exit once its glTF exporter has run.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import gltf_validator
from helpers import JOBS as JOB_FOLDER  # this module has a JOBS of its own
from gltf_sqlerp.core import load
from gltf_sqlerp.core.sampling import quaternions as quat

pytestmark = pytest.mark.blender

JOB = JOB_FOLDER / "export_job.py"
TOLERANCE = 0.01           # degrees: the export's default (CUBICSLERP against Blender's curves)
FALLBACK_TOLERANCE = 0.1   # degrees: the LINEAR fallback against the CUBICSLERP curve
IMPORT_TOLERANCE = 0.01    # degrees: our importer against the file, in world space
CHAIN = 4                  # bones in the keyed rig's chain: the bundled importer's lerp adds up


def run_job(folder, fallback, file_format="glb", fps=24, fps_base=1.0):
    done = subprocess.run([sys.executable, str(JOB), str(folder), fallback, file_format, str(fps),
                           str(fps_base)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
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
    result = run_job(tmp_path_factory.mktemp(request.param), *JOBS[request.param])
    result["mode"], result["name"] = JOBS[request.param][0], request.param
    return result


@pytest.fixture(scope="module")
def linear_job(tmp_path_factory):
    return run_job(tmp_path_factory.mktemp("linear"), "LINEAR")


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
    done = subprocess.run([sys.executable, str(JOB), str(tmp_path), "REEXPORT"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    job = json.loads(done.stdout.strip().splitlines()[-1])
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
    done = subprocess.run([sys.executable, str(JOB), str(tmp_path), "POINTER"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes = json.loads(done.stdout.strip().splitlines()[-1])
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


def test_worker_processes_write_the_same_file_as_threads(tmp_path):
    """The same export fitted in threads, in worker processes, and with workers that cannot start
    (fitted in Blender's process after all): the same bytes, and worker pools started only where
    asked for (the third one fails to start, so none is counted), at the export's start. There,
    the channels predicted from the scene (those with nothing animated above them) were fitted
    while the bundled exporter gathered and took those keys; the others, the empty parented to a
    bone among them, were fitted on the way down the tree: the bytes still equal the threads'."""
    done = subprocess.run([sys.executable, str(JOB), str(tmp_path), "PROCESSES"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    assert {name: run["result"] for name, run in runs.items()} == dict.fromkeys(runs, ["FINISHED"])
    assert [runs[name]["pools"] for name in ("threads", "processes", "fallback")] == [0, 1, 0]
    # 4 bones and 3 empties, every one fitted; the head start only where its processes started.
    every = ["Empty0", "Empty0.001", "Empty1", "bone0", "bone1", "bone2", "bone3"]
    assert [run["fitted"] for run in runs.values()] == [every] * 3
    # Predicted: the channels with nothing animated above them (Empty0, Empty1, bone0); the others
    # are fitted on the way down the tree, to their corrections, so a head start would be lost.
    assert [runs[name]["predicted"] for name in ("threads", "processes", "fallback")] == [0, 3, 0]
    # The bones' errors add up along their chain: those under bone0 were fitted once, on the way
    # down, to what the bones above them play (export_world); the others at the export's start.
    assert runs["threads"]["refitted"] == runs["processes"]["refitted"] == ["bone1", "bone2", "bone3"]
    assert runs["processes"]["head_start"] == ["Empty0", "Empty1", "bone0"]
    assert runs["threads"]["head_start"] == runs["fallback"]["head_start"] == []
    assert [run["left"] for run in runs.values()] == [0, 0, 0]
    # One warning, from the pool that could not start; none from the workers that ran.
    assert done.stderr.count("fitting in Blender's process instead") == 1
    assert "could not start a fit process" in done.stderr
    threads = (tmp_path / "threads.glb").read_bytes()
    assert (tmp_path / "processes.glb").read_bytes() == threads
    assert (tmp_path / "fallback.glb").read_bytes() == threads
    assert len([c for a in load(str(tmp_path / "threads.glb")).animations for c in a.channels
                if c.path == "rotation"]) == 7


def test_a_rotation_blender_plays_otherwise_is_fitted_to_blenders_samples(tmp_path):
    """Constraints Blender plays on top of the keys (one at every frame, one at a single frame
    only): those channels are fitted to Blender's own evaluation (export_blender_samples), the
    outcome says why, and the other channels are fitted to their keys as usual; the same when only
    2 samples measure the map (every sample is checked against it) and when the channels were
    fitted at the export's start, before the samples existed (the head start's keys of a
    constrained channel are not taken). World errors of such motion: tests/operators/test_export_driven.py."""
    done = subprocess.run([sys.executable, str(JOB), str(tmp_path), "CONSTRAINED"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(runs) == ["2", "64", "head"]
    for run, job in runs.items():
        assert job["result"] == ["FINISHED"]
        assert [c["target"] for c in job["channels"] if c["skipped"]] == [], run
        sampled = {c["target"]: c["sampled"] for c in job["channels"]}
        assert sorted(name for name, reason in sampled.items() if reason) == ["Empty1", "bone1", "bone2"], run
        assert all("plays something else" in sampled[name] for name in ("Empty1", "bone1", "bone2"))
    # Empty1 agrees at the 2 picked samples, but not at every sample: its head start's keys are
    # not taken. The bones under bone0 are fitted on the way down the tree (export_world).
    head_start = sorted(c["target"] for c in runs["head"]["channels"] if c["head_start"])
    refitted = {c["target"] for c in runs["head"]["channels"] if c["refitted"]}
    assert head_start == ["Empty0", "bone0"]
    assert refitted == {"bone1", "bone2", "bone3"}
    assert (tmp_path / "constrainedhead.glb").read_bytes() == (tmp_path / "constrained2.glb").read_bytes()
    assert (tmp_path / "constrained64.glb").read_bytes() == (tmp_path / "constrained2.glb").read_bytes()
    document = load(str(tmp_path / "constrained64.glb"))
    names = [node.get("name") for node in document.json["nodes"]]
    rotations = {names[c.node]: c for a in document.animations for c in a.channels
                 if c.path == "rotation"}
    assert sorted(rotations) == sorted(sampled)
    for name in ("Empty1", "bone1", "bone2"):  # not the bundled sampler's key per frame (24 fps)
        sampler = rotations[name].sampler
        assert not (sampler.interpolation == "LINEAR" and np.allclose(np.diff(sampler.times), 1.0 / 24.0, atol=1e-5))


def test_a_failed_export_leaves_the_existing_file_untouched(tmp_path):
    done = subprocess.run([sys.executable, str(JOB), str(tmp_path), "FAIL"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    job = json.loads(done.stdout.strip().splitlines()[-1])
    assert "injected fit failure" in job["outcome"] and "nothing was written" in job["outcome"]
    assert job["unchanged"] and job["folder"] == ["existing.glb"]  # no staging folder left either


def test_the_bundled_export_dialog_follows_the_panel_settings(tmp_path):
    """File > Export > glTF 2.0 while the add-on is enabled: the panel's settings (here the
    CUBICSPLINE fallback) apply; switched off, the bundled exporter's file is left as it makes it."""
    done = subprocess.run([sys.executable, str(JOB), str(tmp_path), "DIALOG"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    job = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(job["on"]) == 6 and all(not c["skipped"] for c in job["on"])
    assert job["off"] is None
    on, off = load(str(tmp_path / "on.glb")), load(str(tmp_path / "off.glb"))
    sqlerp = [c for a in on.animations for c in a.channels if c.uses_extension]
    assert len(sqlerp) == 6 and {c.fallback and c.fallback.interpolation for c in sqlerp} == {"CUBICSPLINE"}
    assert not [c for a in off.animations for c in a.channels if c.uses_extension]
    report = gltf_validator.validate(tmp_path / "on.glb")
    assert gltf_validator.errors(report) == []


def test_version_drift_is_a_clear_message_and_never_breaks_the_bundled_export(tmp_path):
    """When the bundled exporter's internals we build on are missing (simulated: our module that
    builds them cannot be imported), our operator fails with a message naming the Blender version
    and writes nothing, and File > Export > glTF 2.0 still writes its file."""
    done = subprocess.run([sys.executable, str(JOB), str(tmp_path), "DRIFT"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    job = json.loads(done.stdout.strip().splitlines()[-1])
    assert "Blender " in job["ours"] and "CUBICSLERP" in job["ours"] and "nothing was written" in job["ours"]
    assert job["bundled"] == ["FINISHED"] and job["folder"] == ["bundled.glb"]
    assert job["hook_error"].startswith("Blender ")
    assert not [c for a in load(str(tmp_path / "bundled.glb")).animations for c in a.channels
                if c.uses_extension]


X_TURN = np.array([-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])  # -90 degrees about x (x, y, z, w): Z-up to Y-up


def test_dense_channels_take_the_smaller_form_and_play_blenders_motion(tmp_path):
    """Keys on every frame (tests/jobs/export_job.py dense()): the rough LINEAR channel is written as
    LINEAR keys alone (no extension), the same keys played as Bezier and the slow swing as smooth
    curves (CUBICSLERP, or a CUBICSPLINE sampler alone) with fewer keys than frames; Blender's own
    world rotations at 8 samples per frame against the file as the core plays it, mapped back
    from Y-up by hand (an object's glTF rotation is X q X^-1)."""
    done = subprocess.run([sys.executable, str(JOB), str(tmp_path), "DENSE"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    job = json.loads(done.stdout.strip().splitlines()[-1])
    assert job["result"] == ["FINISHED"]
    channels = {c["target"]: c for c in job["channels"]}
    assert all(c["dense"] for c in channels.values())
    assert channels["Rough"]["form"] == "LINEAR"  # with keys inside frames: Euler lines are no slerps
    # Smooth curves: CUBICSLERP, or the CUBICSPLINE sampler alone where it writes fewer bytes
    smooth = ("CUBICSLERP", "CUBICSPLINE")
    assert channels["Baked"]["form"] in smooth and channels["Baked"]["keys"] <= 49
    assert channels["Smooth"]["form"] in smooth and channels["Smooth"]["keys"] < 49 / 4
    path = tmp_path / "dense.glb"
    assert gltf_validator.errors(gltf_validator.validate(path)) == []
    document = load(str(path))
    names = [node.get("name") for node in document.json["nodes"]]
    times = np.asarray(job["frames"]) / 24.0
    for name, channel_keys in channels.items():
        channel = next(c for a in document.animations for c in a.channels
                       if c.path == "rotation" and names[c.node] == name)
        assert channel.uses_extension == (channel_keys["form"] == "CUBICSLERP")
        if not channel.uses_extension:
            assert channel.sampler.interpolation == channel_keys["form"]
            assert len(channel.sampler.times) == channel_keys["keys"]
        played = quat.multiply(quat.multiply(quat.conjugate(X_TURN), channel.evaluate(times)), X_TURN)
        blender = np.roll(np.asarray(job["original"][name], dtype=np.float64), -1, axis=1)
        assert quat.angle_between(played, blender).max() <= TOLERANCE, name


def test_a_material_with_an_occlusion_texture_keeps_the_cubicslerp_samplers(tmp_path):
    """Blender 5.2+ rebuilt every animation's samplers from the channels' core samplers when it
    dropped an idle KHR_materials_iridescence (which the importer's "glTF Material Output" group,
    made for an occlusion texture, always gives): the CUBICSLERP samplers were lost and nothing was
    written. Every Blender in the matrix must write a file that reads back with them."""
    done = subprocess.run([sys.executable, str(JOB.with_name("occlusion_export_job.py")), str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    job = json.loads(done.stdout.strip().splitlines()[-1])
    assert job["result"] == ["FINISHED"]
    assert any("glTF" in name for name in job["node_groups"])  # the importer's material group
    document = load(tmp_path / "out.gltf")
    sqlerp = [c for a in document.animations for c in a.channels if c.uses_extension]
    assert len(sqlerp) == 3  # the arm's three bones
    assert gltf_validator.validate_all([tmp_path / "out.gltf"])[0]["issues"]["numErrors"] == 0


def test_meshopt_compression_turns_the_extension_off_with_a_clear_message():
    """Blender 5.2+'s bundled dialog offers meshopt compression; its samplers then hold float bytes
    under 16-bit accessors and the file requires an extension our reader cannot read. The hook
    must say so instead of failing on the accessors (called as the bundled exporter calls it)."""
    from gltf_sqlerp.bundled_gltf import export_hooks, handlers
    from gltf_sqlerp.operators.exporting import session as export_session
    from gltf_sqlerp.operators.exporting.outcome import ExportOptions
    # As operators.register() does; the handlers of an add-on enabled by other tests stay.
    with handlers.REGISTRY.using(exporting=export_session):
        with export_session.Override(ExportOptions(0.01, "LINEAR", 0.1, "SHORT")):
            hook = export_hooks.glTF2ExportUserExtension()
            hook.gather_gltf_hook(0, [], [], {"gltf_meshopt_compression": True})
    outcome = export_session.last_outcome
    assert outcome is not None and "meshopt" in outcome.error
