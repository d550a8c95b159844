"""core.fitting.sampled_motion and quaternions.from_matrix: a motion Blender evaluated, sampled.

References worked here: rotations about one axis, whose quaternions are (axis sin(a/2), cos(a/2)),
and the slerp between two of them, which turns by the fraction of their angle about that axis.
"""

import math

import numpy as np
import pytest

from gltf_sqlerp.core.fitting import SampledMotion, check_grid, sample_frames
from gltf_sqlerp.core.sampling import quaternions as quat


def about_z(degrees):
    half = np.radians(np.asarray(degrees, dtype=np.float64)) / 2.0
    return np.stack([np.zeros_like(half), np.zeros_like(half), np.sin(half), np.cos(half)], axis=-1)


def z_matrix(degrees, scale=(1.0, 1.0, 1.0)):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) * np.asarray(scale)[None, :]


@pytest.mark.parametrize("degrees", [0.0, 30.0, 90.0, 179.0, 180.0, -120.0])
def test_a_turn_about_z_is_its_quaternion_scaled_or_not(degrees):
    expected = about_z(degrees)
    expected = expected * (-1.0 if expected[3] < 0 else 1.0)  # w >= 0
    for scale in ((1.0, 1.0, 1.0), (0.01, 0.01, 0.01), (2.0, 0.5, 3.0)):
        found = quat.from_matrix(z_matrix(degrees, scale))
        if abs(expected[3]) < 1e-12:  # a half turn: either sign is the rotation
            found = found * np.sign(found @ expected)
        assert np.allclose(found, expected, atol=1e-12), (degrees, scale, found)


def test_half_turns_about_each_axis_and_random_rotations_round_trip():
    for axis in np.eye(3):
        q = np.append(axis, 0.0)
        found = quat.from_matrix(quat.to_matrix(q))
        assert np.allclose(np.abs(found), np.abs(q), atol=1e-12)
    rng = np.random.default_rng(7)
    q = quat.normalize(rng.normal(size=(500, 4)))
    found = quat.from_matrix(quat.to_matrix(q))
    assert quat.angle_between(found, q).max() < 1e-6


def test_samples_play_as_themselves_and_slerp_between():
    frames = sample_frames(1.0, 3.0)  # 8 per frame
    assert np.allclose(np.diff(frames), 1.0 / 8.0) and frames[0] == 1.0 and frames[-1] == 3.0
    degrees = 10.0 * (frames - 1.0) ** 2  # a turn about Z, faster and faster
    motion = SampledMotion(frames, about_z(degrees))
    assert np.allclose(motion.at(frames), about_z(degrees), atol=1e-15)
    middle = (frames[4] + frames[5]) / 2.0  # halfway between two samples: halfway in angle
    assert np.allclose(motion.at([middle]), about_z([(degrees[4] + degrees[5]) / 2.0]), atol=1e-12)
    assert np.allclose(motion.at([0.0, 9.0]), about_z([degrees[0], degrees[-1]]))  # held at the ends
    assert motion.key_frames.tolist() == [1.0, 2.0, 3.0] and not motion.stepped()


def test_the_fit_checks_a_sampled_motion_at_its_samples():
    """A task's check frames for a sampled motion are the sample frames themselves, so the fit is
    checked against Blender's own values, never against the slerp between them."""
    start, end = 0.5, 6.25
    motion = SampledMotion(sample_frames(start, end), about_z(np.linspace(0.0, 90.0, len(sample_frames(start, end)))))
    assert np.array_equal(check_grid(start, end, motion.key_frames), motion.frames)


def test_a_motion_needs_increasing_frames():
    with pytest.raises(ValueError):
        SampledMotion(np.array([1.0, 1.0]), about_z([0.0, 1.0]))
