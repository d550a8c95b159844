"""Translation, scale and morph-weight channels reduced on export, in the real Blender.

tests/jobs/compaction_job.py keys location, scale and a shape key's value on every frame (LINEAR keys:
between frames Blender plays the polyline the bundled exporter samples) on an object and on two
bones, exports with the add-on and with the bundled exporter alone, and records what Blender
plays at every frame and half frame with the model's size, measured from the evaluated vertices
and bones. The files are read back with the add-on's core and checked against Blender's values
and against the bundled exporter's samplers; the Khronos validator checks ours.

The stated tolerance (core.fitting.property_export): with the default fraction f = 1e-4 of the model's
size, translation errors along a chain of nodes add up to at most f x size in world space, scale
errors are at most f relative (moving a point under the node by at most f x size), weights are
at most f off. So a world position is within 2 f x size, plus float32 rounding.
"""

from typing import Any

import numpy as np
import pytest

from helpers import gltf_validator, run_job
from helpers import JOBS
from gltf_sqlerp.core import load

pytestmark = pytest.mark.blender

JOB = JOBS / "compaction_job.py"
FRACTION = 1e-4          # ExportOptions.property_tolerance's default, which the job exports with
FPS = 24.0
FLOAT32 = 1e-6           # relative: float32 rounding of the file's values and of Blender's
PATHS = ("translation", "scale", "weights")


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("compaction")
    result = run_job(JOB, folder)
    result["ours"], result["bundled"] = load(str(folder / "ours.glb")), load(str(folder / "bundled.glb"))
    return result


def channels(document):
    """{(node name, path): (animation index, Channel)} of the file's node channels."""
    names = [node.get("name", "") for node in document.json["nodes"]]
    return {(names[c.node], c.path): (a.index, c) for a in document.animations for c in a.channels}


def node_index(document, name):
    return [node.get("name", "") for node in document.json["nodes"]].index(name)


def gltf_axes(points):
    """Blender world (x, y, z) -> glTF (x, z, -y)."""
    points = np.asarray(points, dtype=np.float64)
    return np.stack([points[:, 0], points[:, 2], -points[:, 1]], axis=1)


def world_positions(document, animation, node, seconds):
    return np.array([document.node_matrices(animation, t)[node][:3, 3] for t in seconds])


def test_the_export_finishes_and_measures_the_model_as_blender_shows_it(job):
    assert job["result"] == ["FINISHED"] and job["bundled_result"] == ["FINISHED"]
    assert job["error"] == ""
    # The add-on's box (evaluated bounding boxes, bones) and the job's (evaluated vertices):
    # the same points for a cube and two bones.
    assert job["outcome_size"] == pytest.approx(job["size"], rel=1e-6)
    assert "translation/scale/weights channels" in job["summary"]


def test_key_counts_drop_against_the_bundled_exporter(job):
    ours, bundled = channels(job["ours"]), channels(job["bundled"])
    assert {k for k in bundled if k[1] in PATHS} == {k for k in ours if k[1] in PATHS}
    for path in PATHS:
        mine = sum(len(c.sampler.times) for k, (_, c) in ours.items() if k[1] == path)
        theirs = sum(len(c.sampler.times) for k, (_, c) in bundled.items() if k[1] == path)
        assert mine < theirs, path
    # Polylines with few corners: the bones' keys fall to their corners and a still scale to one key.
    assert len(ours[("child", "translation")][1].sampler.times) == 4
    assert len(ours[("root", "scale")][1].sampler.times) == 1


def test_every_reduced_channel_plays_the_bundled_samplers_within_its_tolerance(job):
    """At 8 check times per frame (off the whole frames), against the bundled exporter's own
    sampler: translations within f x size (no scaled parent here), scales within f relative,
    weights within f."""
    size = job["size"]
    ours, bundled = channels(job["ours"]), channels(job["bundled"])
    for key, (_, theirs) in bundled.items():
        if key[1] not in PATHS:
            continue
        times = theirs.sampler.times
        at = np.linspace(times[0], times[-1], 8 * (len(times) - 1) + 1) + 0.3 / (8 * FPS)
        at = at[at <= times[-1]]
        expected, played = theirs.evaluate(at), ours[key][1].evaluate(at)
        if key[1] == "translation":
            error = np.linalg.norm(played - expected, axis=1).max()
            assert error <= FRACTION * size * (1 + FLOAT32), key
        elif key[1] == "scale":
            assert (np.abs(played - expected) <= FRACTION * np.abs(expected) * (1 + FLOAT32) + 1e-7).all(), key
        else:
            assert np.abs(played - expected).max() <= FRACTION + 1e-7, key


def test_blender_positions_scales_and_weights_play_within_the_stated_tolerance(job):
    """At every frame and half frame, the file read back by the core against Blender's values."""
    size, document = job["size"], job["ours"]
    frames = np.asarray(job["frames"])
    seconds = frames / FPS  # the actions start at frame 1 > 0: the exporter writes frame / rate
    found = channels(document)
    bound = 2 * FRACTION * size + FLOAT32 * size
    for name in ("Cube", "root", "child"):
        animation = found[(name, "translation")][0]
        played = world_positions(document, animation, node_index(document, name), seconds)
        error = np.linalg.norm(played - gltf_axes(job["blender"][name]), axis=1)
        assert error.max() <= bound, (name, error.max(), bound)
    scale = found[("Cube", "scale")][1].evaluate(seconds)
    blender_scale = gltf_axes(job["blender"]["Cube scale"]) * [1, 1, -1]  # scales keep their sign
    assert (np.abs(scale - blender_scale) <= FRACTION * np.abs(blender_scale) * (1 + FLOAT32) + 1e-7).all()
    weights = found[("Cube", "weights")][1].evaluate(seconds)[:, 0]
    assert np.abs(weights - np.asarray(job["blender"]["Bulge"])).max() <= FRACTION + 1e-6


def test_the_file_passes_the_khronos_validator(job):
    report = gltf_validator.validate(job["ours"].path)
    assert gltf_validator.errors(report) == []
    assert job["ours"].warnings == []


def test_samplers_with_the_same_key_times_share_one_input(job):
    gltf = job["ours"].json
    for animation in gltf["animations"]:
        inputs = {}
        for sampler in animation["samplers"]:
            accessor = gltf["accessors"][sampler["input"]]
            times = job["ours"].accessor(sampler["input"])
            inputs.setdefault(times.tobytes(), set()).add(sampler["input"])
            assert accessor["count"] == len(times)
        assert all(len(indices) == 1 for indices in inputs.values()), animation.get("name")


def test_a_failure_is_the_outcomes_error_never_an_exception_in_the_hook(empty_scene):
    """What the hook hands over when the exporter's objects are not what it reads (here, no
    tree and an animation without channels): the rotation rewrite's outcome carries the error."""
    from gltf_sqlerp.operators.exporting import compaction as export_compaction
    from gltf_sqlerp.operators.exporting.outcome import ExportOptions, Outcome
    outcome = Outcome()
    # Any: dicts in place of the ExportedScene the hook hands over, on purpose.
    no_tree: Any = {"vtree": None}
    export_compaction.compact([object()], no_tree, ExportOptions(), outcome)
    assert outcome.error.startswith("reducing translation, scale and weights keys: ")
    switched_off = Outcome()
    empty: Any = {}
    export_compaction.compact([object()], empty, ExportOptions(property_tolerance=0.0), switched_off)
    assert switched_off.error == "" and switched_off.properties == []


def test_inputs_read_before_the_rotations_rewrite_are_what_it_writes(empty_scene):
    """Timing.fixed: what an input holds once the 29.97 preset's rescaling (Timing.fix) has
    rewritten it, known before it does (so the channels are reduced while the rotations' pass
    runs): the same float32 values read back, on Blender's whole frames (frame · fps_base / fps),
    and the bundled times themselves where the rates agree."""
    from gltf_sqlerp.bundled_gltf import export_accessors as gltf
    from gltf_sqlerp.operators.exporting.timing import Timing
    frames = np.arange(300.0)
    accessor = gltf.accessor(frames / (30.0 * 1.001), bounds=True)  # the exporter's frame / (fps · fps_base)
    bundled = gltf.read(accessor)
    timing = Timing(30.0, 1.001)
    known = timing.fixed(bundled)
    timing.fix(accessor, bundled)
    assert np.array_equal(gltf.read(accessor), known)
    assert np.abs(known * 30.0 / 1.001 - frames).max() < 1e-4
    assert Timing(24.0, 1.0).fixed(bundled) is bundled


@pytest.mark.parametrize("fitting_in", ["threads", "processes"])
def test_reduced_keys_land_on_whole_frames_at_the_2997_preset(tmp_path, fitting_in):
    """At the 29.97 preset (fps 30, base 1.001) the bundled exporter writes seconds = frame / (fps
    · fps_base) and the export rescales every input once, to frame · fps_base / fps. A moving
    empty's translation keys, reduced from the exporter's per-frame samples, land on whole
    frames at that rate, whether they are reduced while the rotations' pass waits for worker
    processes (compaction_job.at_2997) or after the rotations, with threads."""
    job = run_job(JOB, tmp_path, "2997", fitting_in, timeout=300)
    assert job["result"] == ["FINISHED"], job
    translations = [c for a in load(str(tmp_path / "moving.gltf")).animations for c in a.channels
                    if c.path == "translation"]
    times = max((c.sampler.times for c in translations), key=len)
    frames = np.asarray(times, dtype=np.float64) * 30.0 / 1.001
    assert 2 < len(frames) <= 16, job["summary"]  # the polyline's corners, of the exporter's 90 keys
    assert np.abs(frames - np.round(frames)).max() < 1e-3, frames
