"""Blender's rotation modes as quaternions (core.rotation_modes) against Blender's own mathutils."""

import numpy as np
import pytest

from gltf_sqlerp.core import rotation_modes

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
           [list(mathutils.Euler(a, order).to_quaternion()) for a in angles])


def test_axis_angle_matches_mathutils(addon):
    import mathutils
    values = np.random.default_rng(4).uniform(-5.0, 5.0, (200, 4))
    _close(rotation_modes.to_quaternions("AXIS_ANGLE", values),
           [list(mathutils.Quaternion(v[1:], v[0])) for v in values])


def test_blender_quaternion_channels_are_normalized_like_the_pose(addon):
    import mathutils
    values = np.random.default_rng(5).normal(size=(100, 4)) * 3.0
    _close(rotation_modes.to_quaternions("QUATERNION", values),
           [list(mathutils.Quaternion(v).normalized()) for v in values])


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
