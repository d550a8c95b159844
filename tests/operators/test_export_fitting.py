"""How the export fits, in the real Blender (tests/jobs/export_job.py, a child process: the bpy
module of Blender 4.2 crashes at exit once its glTF exporter has run): in threads, in worker
processes and in Blender's process when the workers cannot start (the same bytes each time); to
Blender's own samples where constraints play something other than the keys; and keys on every
frame written in the smaller form, played as Blender plays them. Round trips:
test_export_roundtrip.py.
"""


import numpy as np
import pytest

from helpers import JOBS, gltf_validator, report, run_child, run_job
from gltf_sqlerp.core import load
from gltf_sqlerp.core.sampling import quaternions as quat

pytestmark = pytest.mark.blender

JOB = JOBS / "export_job.py"
TOLERANCE = 0.01  # degrees: the export's default (CUBICSLERP against Blender's curves)


def test_worker_processes_write_the_same_file_as_threads(tmp_path):
    """The same export fitted in threads, in worker processes, and with workers that cannot start
    (fitted in Blender's process after all): the same bytes, and worker pools started only where
    asked for (the third one fails to start, so none is counted), at the export's start. There,
    the channels predicted from the scene (those with nothing animated above them) were fitted
    while the bundled exporter gathered and took those keys; the others, the empty parented to a
    bone among them, were fitted on the way down the tree: the bytes still equal the threads'."""
    done = run_child(JOB, tmp_path, "PROCESSES")
    runs = report(done)
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
    runs = run_job(JOB, tmp_path, "CONSTRAINED")
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


X_TURN = np.array([-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])  # -90 degrees about x (x, y, z, w): Z-up to Y-up


def test_dense_channels_take_the_smaller_form_and_play_blenders_motion(tmp_path):
    """Keys on every frame (tests/jobs/export_job.py dense()): the rough LINEAR channel is written as
    LINEAR keys alone (no extension), the same keys played as Bezier and the slow swing as smooth
    curves (CUBICSLERP, or a CUBICSPLINE sampler alone) with fewer keys than frames; Blender's own
    world rotations at 8 samples per frame against the file as the core plays it, mapped back
    from Y-up by hand (an object's glTF rotation is X q X^-1)."""
    job = run_job(JOB, tmp_path, "DENSE")
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
