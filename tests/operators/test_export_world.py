"""World-space tolerances of the export, in the real Blender: a chain of 24 animator-keyed bones
(tests/jobs/export_job.py deep()) exported with the default settings.

Each bone's world rotation carries the errors of every channel above it; the tolerances (0.01
degrees for the extension, 0.1 for the fallback) must hold for the world rotation of every bone,
leaf included, at 8 samples per frame. Reference: Blender's own world matrices
(armature.matrix_world @ pose_bone.matrix). The file is played by the core's spec evaluator and
composed down the node tree (core.sampling.scene). glTF and Blender differ by the Y-up change on the left
(known) and one constant per bone on the right (the exporter's rest correction), measured from
the bundled exporter's file at frame 0, where its per-frame keys are Blender's own samples.
"""


import numpy as np
import pytest

from helpers import gltf_validator, run_job
from helpers import JOBS
from helpers.world_rotations import AXES, FPS, TOLERANCE, angles_deg, file_worlds
from gltf_sqlerp.core import load

pytestmark = pytest.mark.blender

JOB = JOBS / "export_job.py"
FALLBACK_TOLERANCE = 0.1   # degrees: the fallback's default, world space
@pytest.fixture(scope="module")
def deep_job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("deep")
    job = run_job(JOB, folder, "DEEP", timeout=900)
    job["folder"] = folder
    return job


def world_errors(job, fallback=False, name="deep.glb"):
    """{bone: largest angle} between Blender's world rotations and the file's."""
    times = np.asarray(job["frames"]) / FPS
    names = list(job["worlds"])
    blender = {name: AXES.T @ np.asarray(job["worlds"][name]) for name in names}
    bundled = file_worlds(job["folder"] / "bundled.glb", names, times)
    ours = file_worlds(job["folder"] / name, names, times, fallback)
    errors = {}
    for name in names:
        constant = blender[name][0].T @ bundled[name][0]  # frame 0: one of the bundled keys
        errors[name] = float(angles_deg(blender[name] @ constant, ours[name]).max())
    return errors


def test_the_deep_chain_holds_the_tolerance_at_every_bone_in_world_space(deep_job):
    assert deep_job["result"] == ["FINISHED"]
    channels = deep_job["channels"]
    assert len(channels) == 24 and all(not c["skipped"] for c in channels)
    errors = world_errors(deep_job)
    assert max(errors.values()) <= TOLERANCE, errors
    assert deep_job["world_error_deg"] <= TOLERANCE
    # What the export reported is what the file plays (its own measure, from its emulation).
    assert deep_job["world_error_deg"] == pytest.approx(max(errors.values()), abs=2e-3)
    assert f"world max {deep_job['world_error_deg']:.4f} deg" in deep_job["summary"]


def test_each_channel_keeps_the_whole_tolerance_and_16_bit_values_down_the_chain(deep_job):
    """Fitted to their targets corrected for what the bones above play, the channels need no
    share of the tolerance: every CUBICSLERP sampler of the chain, leaf included, is written in
    normalized 16-bit values (their rounding, up to 0.0035 degrees, would not fit a 1/24 share),
    and the chain holds the tolerance in world space."""
    errors = world_errors(deep_job, name="deep-ext.glb")
    assert max(errors.values()) <= TOLERANCE, errors
    assert deep_job["extension_world_error_deg"] == pytest.approx(max(errors.values()), abs=2e-3)
    document = load(str(deep_job["folder"] / "deep-ext.glb")).json
    outputs = []
    for animation in document["animations"]:
        for channel in animation["channels"]:
            extension = channel.get("extensions", {}).get("EXT_animation_sqlerp")
            if extension is not None:
                sampler = animation["samplers"][extension["sampler"]]
                outputs.append(document["accessors"][sampler["output"]])
    assert len(outputs) == 24
    assert all(o["componentType"] == 5122 and o.get("normalized") for o in outputs), outputs


def test_per_channel_tolerances_alone_would_not_bound_the_leaf(deep_job):
    """The same chain with World Space off: every channel within the tolerance, the world
    rotations down the chain further off (what the default export corrects)."""
    flat = world_errors(deep_job, name="flat.glb")
    assert max(flat.values()) > TOLERANCE, flat
    assert "per channel" in deep_job["flat_summary"] and "world max" not in deep_job["flat_summary"]


def test_the_fallback_holds_its_tolerance_at_every_bone_in_world_space(deep_job):
    errors = world_errors(deep_job, fallback=True)
    assert max(errors.values()) <= FALLBACK_TOLERANCE, errors
    assert deep_job["fallback_world_error_deg"] <= FALLBACK_TOLERANCE


def test_the_measure_is_sound_the_bundled_keys_are_blenders_samples(deep_job):
    """The calibration's check: the bundled exporter's file at whole frames (its keys) plays
    Blender's world rotations, so the figures above measure the fit and nothing else."""
    frames = np.asarray(deep_job["frames"])
    whole = np.flatnonzero(frames == np.round(frames))
    names = list(deep_job["worlds"])
    bundled = file_worlds(deep_job["folder"] / "bundled.glb", names, frames[whole] / FPS)
    for name in names:
        blender = AXES.T @ np.asarray(deep_job["worlds"][name])[whole]
        constant = blender[0].T @ bundled[name][0]
        assert angles_deg(blender @ constant, bundled[name]).max() < 1e-3, name


def test_the_deep_chain_file_passes_the_khronos_validator(deep_job):
    assert gltf_validator.errors(gltf_validator.validate(deep_job["folder"] / "deep.glb")) == []
