"""Blender's rotation modes as quaternions (core.blender_model.rotation_modes) against Blender's own mathutils."""

import numpy as np
import pytest

from gltf_sqlerp.core.blender_model import rotation_modes

pytestmark = pytest.mark.blender


def _close(ours, theirs_wxyz):
    theirs = np.roll(np.asarray(theirs_wxyz, dtype=np.float64), -1, axis=-1)
    # q and -q are one rotation; mathutils works in float32.
    gap = np.minimum(np.abs(ours - theirs).max(axis=1), np.abs(ours + theirs).max(axis=1))
    assert gap.max() < 5e-7


@pytest.mark.parametrize("order", rotation_modes.EULER_ORDERS)
def test_euler_orders_match_mathutils(addon, order):
    import mathutils
    angles = np.random.default_rng(3).uniform(-7.0, 7.0, (200, 3))
    _close(rotation_modes.to_quaternions(order, angles),
           [[*mathutils.Euler(a, order).to_quaternion()] for a in angles])


def test_axis_angle_matches_mathutils(addon):
    import mathutils
    values = np.random.default_rng(4).uniform(-5.0, 5.0, (200, 4))
    _close(rotation_modes.to_quaternions("AXIS_ANGLE", values),
           [[*mathutils.Quaternion(v[1:], v[0])] for v in values])


def test_blender_quaternion_channels_are_normalized_like_the_pose(addon):
    import mathutils
    values = np.random.default_rng(5).normal(size=(100, 4)) * 3.0
    _close(rotation_modes.to_quaternions("QUATERNION", values),
           [[*mathutils.Quaternion(v).normalized()] for v in values])


def test_degenerate_inputs_play_as_identity():
    # Blender's axis_angle_to_quat and normalize_qt give the identity for a zero axis / quaternion.
    assert np.allclose(rotation_modes.from_axis_angle([[1.0, 0.0, 0.0, 0.0]]), [[0, 0, 0, 1]])
    assert np.allclose(rotation_modes.from_blender_quaternion([[0.0, 0.0, 0.0, 0.0]]), [[0, 0, 0, 1]])
    with pytest.raises(ValueError, match="unknown rotation mode"):
        rotation_modes.to_quaternions("QUAT", [[1.0, 0, 0, 0]])


@pytest.mark.parametrize("mode", rotation_modes.EULER_ORDERS + ("AXIS_ANGLE", "QUATERNION"))
def test_from_quaternions_gives_back_the_same_rotation(mode):
    """to_quaternions (checked against mathutils above) of from_quaternions is the rotation itself,
    gimbal lock included (middle Euler angle of exactly 90 degrees)."""
    rng = np.random.default_rng(8)
    q = rng.normal(size=(300, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    if mode in rotation_modes.EULER_ORDERS:
        locked = np.zeros((3, 3))
        locked[:, "XYZ".index(mode[1])] = np.pi / 2
        locked[:, "XYZ".index(mode[0])] = (0.3, -1.0, 2.0)
        q = np.concatenate([q, rotation_modes.to_quaternions(mode, locked)])
    back = rotation_modes.to_quaternions(mode, rotation_modes.from_quaternions(mode, q))
    gap = np.minimum(np.abs(back - q).max(axis=1), np.abs(back + q).max(axis=1))
    assert gap.max() < 1e-7


def test_euler_angles_stay_near_the_current_values():
    """With the current values given, angles come back shifted by whole turns towards them (a
    bone keyed at 400 degrees is posed near 400 degrees, not at 40)."""
    reference = np.radians([[400.0, -370.0, 10.0]])
    q = rotation_modes.to_quaternions("XYZ", reference)
    angles = rotation_modes.from_quaternions("XYZ", q, reference=reference)
    assert np.allclose(angles, reference)


def _product(*wxyz):
    """Hamilton product of (w, x, y, z) arrays (T, 4), left to right."""
    result = wxyz[0]
    for q in wxyz[1:]:
        (aw, ax, ay, az), (bw, bx, by, bz) = result.T, q.T
        result = np.stack([aw * bw - ax * bx - ay * by - az * bz,
                           aw * bx + ax * bw + ay * bz - az * by,
                           aw * by - ax * bz + ay * bw + az * bx,
                           aw * bz + ax * by - ay * bx + az * bw], axis=1)
    return result


def _about(axis, angles):
    q = np.zeros((len(angles), 4))
    q[:, 0], q[:, 1 + axis] = np.cos(angles / 2.0), np.sin(angles / 2.0)
    return q


ANGLE_SETS = {
    "small": lambda rng, n: rng.uniform(-1.5, 1.5, n),         # half angles within pi/4
    "turns": lambda rng, n: rng.uniform(-40.0, 40.0, n),       # whole and quarter turns off
    "quarters": lambda rng, n: np.pi / 2 * rng.integers(-12, 12, n) + rng.choice([0, 1e-12], n),
    "huge": lambda rng, n: rng.uniform(-1e6, 1e6, n),          # beyond the range reduction
}


ANGLE_CASES = [(mode, angles) for mode in rotation_modes.EULER_ORDERS + ("AXIS_ANGLE",)
               for angles in ANGLE_SETS]


@pytest.mark.parametrize("mode, angles", ANGLE_CASES + [("QUATERNION", None)])
def test_float64_conversions_are_the_plain_formulas(mode, angles):
    """to_quaternions in float64 against the plain formulas (the three axis rotations multiplied
    in order, axis sin + cos of the half angle, q / |q|) to 1e-15: its sines and cosines come from
    a range reduction and a polynomial, which must stay as exact as numpy's, for every range of
    angles and every array layout (component-major, as deviation.blender_values gives them)."""
    rng = np.random.default_rng(list(ANGLE_SETS).index(angles) if angles else 9)
    n = 3000
    if mode == "QUATERNION":
        values = rng.normal(size=(n, 4)) * rng.choice([1e-3, 1.0, 1e3], (n, 1))
        values[:5] = 0.0  # zero: the identity
        expected = values / np.maximum(np.linalg.norm(values, axis=1, keepdims=True), 1e-300)
        expected[:5] = (1.0, 0.0, 0.0, 0.0)
    elif mode == "AXIS_ANGLE":
        values = np.column_stack([ANGLE_SETS[angles](rng, n), rng.normal(size=(n, 3))])
        values[:5, 1:] = 0.0  # zero axis: the identity
        length = np.linalg.norm(values[:, 1:], axis=1, keepdims=True)
        axis = values[:, 1:] / np.maximum(length, 1e-300)
        expected = np.column_stack([np.cos(values[:, 0] / 2), axis * np.sin(values[:, :1] / 2)])
        expected[:5] = (1.0, 0.0, 0.0, 0.0)
    else:
        values = ANGLE_SETS[angles](rng, 3 * n).reshape(n, 3)
        axes = ["XYZ".index(letter) for letter in reversed(mode)]  # the last turn leftmost
        expected = _product(*(_about(axis, values[:, axis]) for axis in axes))
    expected = np.roll(expected, -1, axis=1)
    for layout in (values, np.asfortranarray(values)):
        assert np.abs(rotation_modes.to_quaternions(mode, layout) - expected).max() < 1e-15
    assert np.abs(rotation_modes.to_quaternions(mode, values[7]) - expected[7]).max() < 1e-15
    grid = rotation_modes.to_quaternions(mode, values[:30].reshape(2, 15, -1))
    assert grid.shape == (2, 15, 4) and np.abs(grid.reshape(30, 4) - expected[:30]).max() < 1e-15
