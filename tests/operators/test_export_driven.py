"""Export of motion Blender plays through constraints, drivers and the NLA (issue 35), in the real
Blender: an IK arm with an animated target and a pole, a hand turned by a driver, and a prop keyed
under a Child Of constraint to a spinning, moving empty; and a bone and an empty each playing two
NLA strips, ADD at influence 0.5 over REPLACE, exported in animation mode Scene
(tests/jobs/driven_job.py).

Reference: Blender's own world matrices of every bone and object at 8 samples per frame, recorded
before the export, against the file played by the core (tools/world_measure.py: nearest rotations,
one constant per node measured from the bundled exporter's file at the first frame).
"""


import pytest

from helpers import gltf_validator, run_job
from helpers import JOBS
from helpers.world_rotations import TOLERANCE, measured_world_errors

pytestmark = pytest.mark.blender

JOB = JOBS / "driven_job.py"
DRIVEN = ("upper", "lower", "hand", "prop")  # moved by IK, a driver, Child Of


@pytest.fixture(scope="module")
def driven(tmp_path_factory):
    folder = tmp_path_factory.mktemp("driven")
    job = run_job(JOB, folder, timeout=900)
    job["folder"] = folder
    return job


@pytest.fixture(scope="module")
def blended(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nla")
    job = run_job(JOB, folder, "NLA", timeout=900)
    job["folder"] = folder
    return job


def test_driven_channels_are_fitted_to_what_blender_plays(driven):
    assert driven["result"] == ["FINISHED"]
    channels = {c["target"]: c for c in driven["channels"]}
    assert all(not channels[name]["skipped"] for name in DRIVEN), channels
    assert all(channels[name]["sampled"] for name in DRIVEN)  # from Blender's samples, not the keys
    assert "driven" in channels["hand"]["sampled"] and "something else" in channels["prop"]["sampled"]
    assert not channels["spinner"]["sampled"]  # its keys are its motion


def test_every_bone_and_object_holds_the_tolerance_in_world_space(driven):
    errors = measured_world_errors(driven, "driven.glb")
    assert max(errors.values()) <= TOLERANCE, errors
    bundled = measured_world_errors(driven, "bundled.glb")
    assert max(bundled[name] for name in DRIVEN) > 10 * TOLERANCE  # what the bundled file plays between frames


def test_the_report_gives_the_measured_figure_of_the_whole_file(driven):
    errors = measured_world_errors(driven, "driven.glb")
    assert driven["world_error_deg"] == pytest.approx(max(errors.values()), abs=2e-3)
    assert f"world max {driven['world_error_deg']:.4f} deg" in driven["summary"]
    assert "left as sampled" not in driven["summary"]


def test_the_export_leaves_the_scene_as_it_found_it(driven):
    assert driven["unchanged"]


def test_the_file_passes_the_khronos_validator(driven):
    assert gltf_validator.errors(gltf_validator.validate(driven["folder"] / "driven.glb")) == []


def test_nla_strips_blended_in_scene_mode_are_fitted_to_what_blender_plays(blended):
    assert blended["results"]["nla.glb"] == blended["results"]["nla-bundled.glb"] == ["FINISHED"]
    channels = {c["target"]: c for c in blended["channels"]}
    assert sorted(channels) == ["nodder", "turner"]
    assert all(c["sampled"] and not c["skipped"] for c in channels.values())
    errors = measured_world_errors(blended, "nla.glb", "nla-bundled.glb")
    assert max(errors.values()) <= TOLERANCE, errors
    assert blended["world_error_deg"] == pytest.approx(max(errors.values()), abs=2e-3)
    bundled = measured_world_errors(blended, "nla-bundled.glb", "nla-bundled.glb")
    assert max(bundled[name] for name in ("nodder", "turner")) > 10 * TOLERANCE
    assert blended["unchanged"]


def test_nla_tracks_mode_plays_an_add_track_over_the_replace_track_below_it(blended):
    """Mode NLA tracks: the bundled exporter plays a track with ADD strips together with the
    REPLACE track below it, as one animation named after that one ("Turn"); the export samples
    that same group of tracks, so the animation plays the scene's blend within the tolerance."""
    assert blended["results"]["tracks.glb"] == ["FINISHED"]
    channels = blended["track_channels"]
    assert sorted(c["target"] for c in channels) == ["nodder", "turner"]
    assert all(c["animation"] == "Turn" and c["sampled"] and not c["skipped"] for c in channels)
    errors = measured_world_errors(blended, "tracks.glb", "tracks-bundled.glb")
    assert max(errors.values()) <= TOLERANCE, errors
    assert blended["track_world_error_deg"] == pytest.approx(max(errors.values()), abs=2e-3)
