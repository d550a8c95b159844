"""Export of motion Blender plays through constraints, drivers and the NLA (issue 35), in the real
Blender: an IK arm with an animated target and a pole, a hand turned by a driver, and a prop keyed
under a Child Of constraint to a spinning, moving empty; and a bone and an empty each playing two
NLA strips, ADD at influence 0.5 over REPLACE, exported in animation mode Scene
(tests/driven_job.py).

Reference: Blender's own world rotations of every bone and object at 8 samples per frame, recorded
before the export. The file is played by the core and composed down its node tree; glTF and
Blender differ by the Y-up change and one constant per node, measured from the bundled exporter's
file at the first frame (tests/test_export_world.py: file_worlds, angles_deg).
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gltf_validator
from gltf_sqlerp.core import load
from gltf_sqlerp.core.fitting import nearest_rotation
from gltf_sqlerp.core.sampling import quaternions as quat
from test_export_world import AXES, FPS, TOLERANCE

pytestmark = pytest.mark.blender

JOB = Path(__file__).with_name("driven_job.py")
DRIVEN = ("upper", "lower", "hand", "prop")  # moved by IK, a driver, Child Of


@pytest.fixture(scope="module")
def driven(tmp_path_factory):
    folder = tmp_path_factory.mktemp("driven")
    done = subprocess.run([sys.executable, str(JOB), str(folder)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    job = json.loads(done.stdout.strip().splitlines()[-1])
    job["folder"] = folder
    return job


@pytest.fixture(scope="module")
def blended(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nla")
    done = subprocess.run([sys.executable, str(JOB), str(folder), "NLA"], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    job = json.loads(done.stdout.strip().splitlines()[-1])
    job["folder"] = folder
    return job


def file_worlds(path, names, times):
    """{name: (S, 3, 3)} world rotations of the named nodes, every animation of the file played
    at ``times`` (each drives other nodes: one per object's action)."""
    document = load(str(path))
    scene = document.scene
    trs = [np.repeat(values[None], len(times), axis=0) for values in scene.rest_trs()[:3]]
    paths = {"translation": 0, "rotation": 1, "scale": 2}
    for animation in document.animations:
        for channel in animation.channels:
            trs[paths[channel.path]][:, channel.node] = channel.sampler.evaluate(times)
    world = scene.global_matrices(*trs)
    index = {node.get("name"): n for n, node in enumerate(document.json["nodes"])}
    return {name: world[:, index[name], :3, :3] for name in names}


def world_errors(job, name, calibration="bundled.glb"):
    """{node: largest angle in degrees} between Blender's world rotations and the file's, both the
    nearest rotations of their matrices; the constants from file ``calibration`` at the first frame."""
    frames = np.asarray(job["frames"])
    times = frames / FPS  # the bundled exporter keys frame f at f / fps
    names = list(job["worlds"])
    first = file_worlds(job["folder"] / calibration, names, times[:1])
    played = file_worlds(job["folder"] / name, names, times)
    errors = {}
    for n in names:
        blender = quat.from_matrix(nearest_rotation(AXES.T @ np.asarray(job["worlds"][n])))
        constant = quat.multiply(quat.conjugate(blender[0]), quat.from_matrix(nearest_rotation(first[n][0])))
        file = quat.from_matrix(nearest_rotation(played[n]))
        errors[n] = float(quat.angle_between(quat.multiply(blender, constant), file).max())
    return errors


def test_driven_channels_are_fitted_to_what_blender_plays(driven):
    assert driven["result"] == ["FINISHED"]
    channels = {c["target"]: c for c in driven["channels"]}
    assert all(not channels[name]["skipped"] for name in DRIVEN), channels
    assert all(channels[name]["sampled"] for name in DRIVEN)  # from Blender's samples, not the keys
    assert "driven" in channels["hand"]["sampled"] and "something else" in channels["prop"]["sampled"]
    assert not channels["spinner"]["sampled"]  # its keys are its motion


def test_every_bone_and_object_holds_the_tolerance_in_world_space(driven):
    errors = world_errors(driven, "driven.glb")
    assert max(errors.values()) <= TOLERANCE, errors
    bundled = world_errors(driven, "bundled.glb")
    assert max(bundled[name] for name in DRIVEN) > 10 * TOLERANCE  # what the bundled file plays between frames


def test_the_report_gives_the_measured_figure_of_the_whole_file(driven):
    errors = world_errors(driven, "driven.glb")
    assert driven["world_error_deg"] == pytest.approx(max(errors.values()), abs=2e-3)
    assert f"world max {driven['world_error_deg']:.4f} deg" in driven["summary"]
    assert "left as sampled" not in driven["summary"]


def test_the_export_leaves_the_scene_as_it_found_it(driven):
    assert driven["unchanged"]


def test_the_file_passes_the_khronos_validator(driven):
    assert gltf_validator.errors(gltf_validator.validate(driven["folder"] / "driven.glb")) == []


def test_nla_strips_blended_in_scene_mode_are_fitted_to_what_blender_plays(blended):
    assert blended["results"] == {"nla.glb": ["FINISHED"], "nla-bundled.glb": ["FINISHED"]}
    channels = {c["target"]: c for c in blended["channels"]}
    assert sorted(channels) == ["nodder", "turner"]
    assert all(c["sampled"] and not c["skipped"] for c in channels.values())
    errors = world_errors(blended, "nla.glb", "nla-bundled.glb")
    assert max(errors.values()) <= TOLERANCE, errors
    assert blended["world_error_deg"] == pytest.approx(max(errors.values()), abs=2e-3)
    bundled = world_errors(blended, "nla-bundled.glb", "nla-bundled.glb")
    assert max(bundled[name] for name in ("nodder", "turner")) > 10 * TOLERANCE
    assert blended["unchanged"]
