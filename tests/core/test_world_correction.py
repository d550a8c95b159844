"""core.fitting.world_correction: a child's target corrected for its written parent, so that the child's
world rotation is the exact one. Checked against rotations composed by hand (core.sampling.quaternions
products of known turns) and against slerp between the correction's samples."""

from typing import cast

import numpy as np
import pytest

from gltf_sqlerp.core.sampling import chords
from gltf_sqlerp.core.sampling import quaternions as quat
from gltf_sqlerp.core.fitting.channel_motion import ChannelTarget
from gltf_sqlerp.core.fitting.world_correction import CorrectedTarget, WorldCorrection


def about(axis, degrees):
    half = np.radians(degrees) / 2.0
    axis = np.asarray(axis, dtype=np.float64)
    return np.append(axis / np.linalg.norm(axis) * np.sin(half), np.cos(half))


def turning(axis, degrees_per_second, seconds):
    return np.stack([about(axis, degrees_per_second * t) for t in seconds])


def test_the_corrected_child_plays_the_exact_world_rotation_under_a_written_parent():
    seconds = np.linspace(0.0, 1.0, 9)
    exact_parent = turning([0, 1, 0], 90.0, seconds)
    # The parent as written: off by a turn of up to 0.01 degrees about x, in its own frame.
    written_parent = quat.multiply(exact_parent, turning([1, 0, 0], 0.01, seconds))
    child = turning([0, 0, 1], 45.0, seconds)
    correction = WorldCorrection.between(seconds, written_parent, exact_parent)
    assert chords.max_angle_deg(correction.at(seconds), np.tile([0.0, 0.0, 0.0, 1.0], (9, 1))) == \
        pytest.approx(0.01, abs=1e-6)
    corrected = quat.multiply(correction.at(seconds), child)
    world = quat.multiply(written_parent, corrected)
    assert chords.max_angle_deg(world, quat.multiply(exact_parent, child)) < 1e-6
    # The child uncorrected carries the parent's error.
    assert chords.max_angle_deg(quat.multiply(written_parent, child),
                              quat.multiply(exact_parent, child)) == pytest.approx(0.01, abs=1e-6)


def test_between_samples_the_correction_follows_its_slerp_and_holds_at_the_ends():
    seconds = np.array([0.0, 0.125, 0.25])
    turns = np.stack([about([1, 0, 0], 0.0), about([1, 0, 0], 0.008), about([0, 1, 0], 0.006)])
    correction = WorldCorrection.between(seconds, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), turns)
    between = np.array([0.0625, 0.2])
    expected = np.stack([quat.slerp(turns[0], turns[1], 0.5), quat.slerp(turns[1], turns[2], 0.6)])
    # float32 x, y, z of turns of 0.01 degrees: about 1e-8 of a degree off, far below a tolerance.
    assert chords.max_angle_deg(correction.at(between), expected) < 1e-6
    assert chords.max_angle_deg(correction.at(np.array([-1.0, 9.0])), turns[[0, -1]]) < 1e-6


def test_a_correction_with_a_negative_w_is_stored_as_the_same_rotation():
    seconds = np.array([0.0])
    turn = -about([0, 0, 1], 0.005)  # w < 0: the same rotation as its negation
    correction = WorldCorrection.between(seconds, np.array([[0.0, 0.0, 0.0, 1.0]]), turn[None])
    assert chords.max_angle_deg(correction.at(seconds), turn[None]) < 1e-6


class _Turning:
    """A channel target (seconds -> rotations) turning about z, 30 frames a second."""
    slide, rate, motion = 0.0, 30.0, None

    def frames(self, seconds):
        return np.asarray(seconds) * self.rate

    def at_frames(self, frames):
        return turning([0, 0, 1], 2.0, np.asarray(frames, dtype=np.float64))


def test_a_corrected_target_multiplies_its_correction_on_the_left():
    seconds = np.array([0.0, 0.5, 1.0])
    turns = np.stack([about([1, 0, 0], 0.004)] * 3)
    # cast: a stand-in with the members CorrectedTarget reads from a ChannelTarget.
    stand_in = cast(ChannelTarget, _Turning())
    target = CorrectedTarget(stand_in, WorldCorrection.between(seconds, np.tile([0.0, 0, 0, 1], (3, 1)), turns))
    expected = quat.multiply(turns, turning([0, 0, 1], 2.0, seconds * 30.0))
    assert chords.max_angle_deg(target(seconds), expected) < 1e-6
    assert chords.max_angle_deg(target.at_frames(seconds * 30.0), expected) < 1e-6
