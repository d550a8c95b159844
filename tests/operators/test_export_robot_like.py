"""World-space tolerance of the export on a "robot-like" rig, in the real Blender: a user's real
clip (three.js's RobotExpressive, imported with Blender's bundled importer, exported at the
default settings) played 0.014 degrees off at a finger's end bone, tolerance 0.01.

The rig (tests/helpers/robot_like.py) is CesiumMan with its armature node turned and scaled, rigid meshes
on joints, and deep finger chains ending in end joints; one finger per hand holds still with no
keys, which Blender plays as constant F-curves and the export writes as one-key STEP samplers.
Their 16-bit rounding added up down the still chain on top of the hand's own world error (0.0085
degrees at the hand, 0.0125 at the finger's end before the fix), and STEP channels were never
fitted again. The measure is independent of the export's own: Blender's frame_set evaluation at 8
samples per frame against the file played by the core, every bone and object, through the
benchmark's machinery (bench/real_clips.py, run in tests/jobs/robot_like_job.py).
"""


import pytest
from helpers import JOBS, run_job

pytestmark = pytest.mark.blender

JOB = JOBS / "robot_like_job.py"
TOLERANCE = 0.01           # degrees: the export's default, world space
AGREEMENT = 0.002          # degrees: the export's own world maximum against the independent measure


@pytest.fixture(scope="module")
def robot(tmp_path_factory):
    folder = tmp_path_factory.mktemp("robot")
    return run_job(JOB, folder, timeout=900)


def test_the_rig_is_robot_like(robot):
    """What the reproduction is about: a turned, scaled armature object, rigid parts on bones,
    end bones compared, still fingers written as STEP keys, 8 samples per frame, every node known."""
    assert robot["result"] == ["FINISHED"] and robot["missing"] == [] and robot["problems"] == []
    (armature,) = robot["armature"]
    assert armature[0] == pytest.approx(2 ** -0.5, abs=1e-6) and armature[4:] == pytest.approx([0.01] * 3)
    assert {"HandMesh0", "HandMesh1", "HeadMesh", "Part00_5", "Part12_5"} <= set(robot["rigid"])
    compared = set(robot["compared"])
    assert {"Finger00_end", "Finger12_end", "Part00_5", "HeadMesh", "Skeleton_arm_joint_L__2_"} <= compared
    stepped = {c["target"] for c in robot["channels"] if c["form"] == "STEP"}
    assert {f"Finger{side}0_{d}" for side in (0, 1) for d in (1, 2, 3, 4, "end")} <= stepped
    assert robot["per_frame"] == [8]
    # The calibration's check: the bundled file at whole frames (its keys) is Blender's motion.
    assert robot["sanity_deg"] < 1e-3


def test_every_bone_and_object_holds_the_tolerance_in_world_space(robot):
    worst = max(robot["per_node"].values())
    assert worst == pytest.approx(robot["max_deg"])
    assert robot["max_deg"] <= TOLERANCE, (robot["worst"], sorted(robot["per_node"].items(), key=lambda i: -i[1])[:8])


def test_the_export_reports_what_the_file_plays(robot):
    assert robot["world_error_deg"] <= TOLERANCE
    assert robot["world_error_deg"] == pytest.approx(robot["max_deg"], abs=AGREEMENT)


def test_still_fingers_stay_one_step_key_each(robot):
    """Held within the tolerance by float values, not by curves that follow the hand's error."""
    still = [c for c in robot["channels"] if c["target"].startswith(("Finger00_", "Finger10_"))]
    assert len(still) == 10 and all(c["form"] == "STEP" and c["keys"] == 1 for c in still), still
