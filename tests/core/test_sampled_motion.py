"""core.fitting.sampled_motion and quaternions.from_matrix: a motion Blender evaluated, sampled.

References worked here: rotations about one axis, whose quaternions are (axis sin(a/2), cos(a/2)),
and the slerp between two of them, which turns by the fraction of their angle about that axis.
"""

import math

import numpy as np
import pytest

from gltf_sqlerp.core.fitting import SampledMotion, check_grid, sample_frames
from gltf_sqlerp.core.sampling import rotation_matrices
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
        found = rotation_matrices.from_matrix(z_matrix(degrees, scale))
        if abs(expected[3]) < 1e-12:  # a half turn: either sign is the rotation
            found = found * np.sign(found @ expected)
        assert np.allclose(found, expected, atol=1e-12), (degrees, scale, found)


def test_half_turns_about_each_axis_and_random_rotations_round_trip():
    for axis in np.eye(3):
        q = np.append(axis, 0.0)
        found = rotation_matrices.from_matrix(rotation_matrices.to_matrix(q))
        assert np.allclose(np.abs(found), np.abs(q), atol=1e-12)
    rng = np.random.default_rng(7)
    q = quat.normalize(rng.normal(size=(500, 4)))
    found = rotation_matrices.from_matrix(rotation_matrices.to_matrix(q))
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


@pytest.mark.blender
def test_sheared_and_mirrored_matrices_give_blenders_own_quaternion(addon):
    """A matrix with shear (a bone under a non-uniformly scaled parent) is no rotation: the
    quaternion depends on how it is taken. Blender's own (mathutils Matrix.to_quaternion, what
    the bundled exporter's decompose() gives) is the reference, on random sheared, scaled and
    mirrored matrices."""
    from mathutils import Matrix
    rng = np.random.default_rng(11)
    rotations = rotation_matrices.to_matrix(quat.normalize(rng.normal(size=(400, 4))))
    shear = np.eye(3) + rng.normal(0.0, 0.3, size=(400, 3, 3)) * (1 - np.eye(3))
    scale = rng.uniform(0.2, 3.0, size=(400, 1, 3)) * np.where(rng.random((400, 1, 3)) < 0.2, -1.0, 1.0)
    matrices = rotations @ shear * scale
    expected = np.array([[*Matrix(m.tolist()).to_quaternion()] for m in matrices])[:, [1, 2, 3, 0]]
    found = rotation_matrices.from_matrix(matrices)
    assert quat.angle_between(found, expected).max() < 1e-4  # mathutils works in float32


def trs(angle_deg, scale=(1.0, 1.0, 1.0), move=(0.0, 0.0, 0.0)):
    """A 4 x 4 translation · rotation about Z · scale, as a glTF node's local transform."""
    m = np.eye(4)
    m[:3, :3] = z_matrix(angle_deg) @ np.diag(scale)
    m[:3, 3] = move
    return m


def test_a_chain_of_translations_rotations_and_scales_is_held():
    """Worlds that are products of TRS locals, non-uniform scales included: glTF holds them,
    nothing is unheld (the decomposition gives back each local)."""
    from gltf_sqlerp.core.fitting import unheld_deg
    root = trs(30.0, (2.0, 1.0, 0.5), (1.0, 0.0, 0.0))
    child = root @ trs(-50.0, (1.0, 3.0, 1.0), (0.0, 2.0, 0.0))
    leaf = child @ trs(10.0, (1.0, 1.0, 1.0), (0.0, 1.0, 0.0))
    worlds = np.array([[root], [child], [leaf]])
    assert np.allclose(unheld_deg([-1, 0, 1], worlds), 0.0, atol=1e-9)


def test_a_child_that_does_not_take_its_parents_scale_is_sheared_and_so_are_its_children():
    """A parent scaled (2, 1, 1); its child turned 45 degrees about Z in the world without that
    scale (Inherit Scale: None): in the parent's space the child's pose is sheared, and no
    translation/rotation/scale composes it. Its world rotation is then off, and its child's by as
    much (it follows rigidly); the figure does not depend on the axes the worlds are written in."""
    from gltf_sqlerp.core.fitting import unheld_deg
    parent = trs(0.0, (2.0, 1.0, 1.0))
    child = trs(45.0)
    grandchild = child @ trs(0.0, move=(0.0, 1.0, 0.0))
    worlds = np.array([[parent], [child], [grandchild]])
    found = unheld_deg([-1, 0, 1], worlds)
    assert found[0] == pytest.approx(0.0, abs=1e-9) and found[1] > 1.0
    assert found[2] == pytest.approx(found[1], abs=1e-9)
    turn = np.eye(4)
    turn[:3, :3] = rotation_matrices.to_matrix(quat.normalize([0.3, -0.2, 0.5, 0.8]))
    assert np.allclose(unheld_deg([-1, 0, 1], turn @ worlds), found, atol=1e-9)
