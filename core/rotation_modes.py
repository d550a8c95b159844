"""Blender's rotation modes as quaternions: what a pose bone or an object plays, given the values
of its rotation F-curves, in glTF component order (x, y, z, w).

Blender keeps a rotation in one of three forms (``rotation_mode``): a quaternion (w, x, y, z), an
Euler triple with one of six axis orders, or an axis and an angle (angle, x, y, z). Whatever the
form, the pose matrix is built from the rotation it stands for, so the exporter fits CUBICSLERP
curves to these quaternions. The formulas follow blenlib's math_rotation.c: ``eulO_to_quat`` (the
first axis of the order turns first), ``axis_angle_to_quat`` (normalized axis, identity for a zero
axis) and ``normalize_qt`` (Blender normalizes quaternion channels when it builds the matrix).
"""

import numpy as np

from . import quaternions as quat

QUATERNION, AXIS_ANGLE = "QUATERNION", "AXIS_ANGLE"
EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
# The F-curve data path and the number of components of each mode.
DATA_PATHS = {QUATERNION: ("rotation_quaternion", 4), AXIS_ANGLE: ("rotation_axis_angle", 4)}
DATA_PATHS.update({order: ("rotation_euler", 3) for order in EULER_ORDERS})
_AXIS = {"X": 0, "Y": 1, "Z": 2}


def to_quaternions(mode, components):
    """(T, 4) unit quaternions (x, y, z, w) for (T, k) F-curve values of rotation ``mode``."""
    components = np.asarray(components, dtype=np.float64)
    if mode == QUATERNION:
        return from_blender_quaternion(components)
    if mode == AXIS_ANGLE:
        return from_axis_angle(components)
    if mode in EULER_ORDERS:
        return from_euler(components, mode)
    raise ValueError(f"unknown rotation mode {mode!r}")


def from_blender_quaternion(wxyz):
    """Blender's (w, x, y, z) to unit (x, y, z, w); a zero quaternion plays as the identity."""
    xyzw = np.roll(np.asarray(wxyz, dtype=np.float64), -1, axis=-1)
    norm = np.linalg.norm(xyzw, axis=-1, keepdims=True)
    zero = norm[..., 0] == 0.0
    xyzw = xyzw / np.where(norm > 0.0, norm, 1.0)
    xyzw[zero] = (0.0, 0.0, 0.0, 1.0)
    return xyzw


def _about_axis(axis, angles):
    """Rotations by ``angles`` (T,) about coordinate axis 0, 1 or 2, as (T, 4)."""
    half = 0.5 * np.asarray(angles, dtype=np.float64)
    q = np.zeros(half.shape + (4,))
    q[..., axis] = np.sin(half)
    q[..., 3] = np.cos(half)
    return q


def from_euler(angles, order="XYZ"):
    """Euler angles (T, 3) in radians, indexed by axis (X, Y, Z), turned in ``order`` (the first
    letter's axis first: 'XYZ' is Rz Ry Rx), to (T, 4)."""
    angles = np.asarray(angles, dtype=np.float64)
    first, second, third = (_AXIS[letter] for letter in order)
    q = _about_axis(first, angles[..., first])
    q = quat.multiply(_about_axis(second, angles[..., second]), q)
    return quat.multiply(_about_axis(third, angles[..., third]), q)


def from_axis_angle(angle_axis):
    """Blender's (angle, x, y, z) to (T, 4): the axis normalized, identity where it is zero."""
    angle_axis = np.asarray(angle_axis, dtype=np.float64)
    axis = angle_axis[..., 1:]
    length = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = axis / np.where(length > 0.0, length, 1.0)
    half = 0.5 * angle_axis[..., :1]
    q = np.concatenate([unit * np.sin(half), np.cos(half)], axis=-1)
    q[length[..., 0] == 0.0] = (0.0, 0.0, 0.0, 1.0)
    return q


def from_quaternions(mode, q, reference=None):
    """F-curve values (T, k) of rotation ``mode`` for (T, 4) unit quaternions (x, y, z, w): the
    inverse of to_quaternions, for posing a bone or object of that mode from a quaternion.
    ``reference`` (T, k): current values; Euler angles are then shifted by whole turns to lie
    nearest them, as Blender's compatible Euler conversion does, so that poses do not jump by 2 pi."""
    q = np.asarray(q, dtype=np.float64)
    if mode == QUATERNION:
        return np.roll(q, 1, axis=-1)
    if mode == AXIS_ANGLE:
        return to_axis_angle(q)
    if mode in EULER_ORDERS:
        angles = to_euler(q, mode)
        if reference is not None:
            angles += 2.0 * np.pi * np.round((np.asarray(reference, dtype=np.float64) - angles) / (2.0 * np.pi))
        return angles
    raise ValueError(f"unknown rotation mode {mode!r}")


def to_euler(q, order="XYZ"):
    """(T, 3) angles indexed by axis, turned in ``order``, for (T, 4) quaternions: the Tait-Bryan
    extraction from the matrix R = R_C R_B R_A ('ABC' = order), with the sign of the order's
    parity; near gimbal lock (middle angle +-90 degrees) the third angle is set to 0."""
    i, j, k = (_AXIS[letter] for letter in order)
    parity = 1.0 if (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
    m = quat.to_matrix(q)
    cos_b = np.hypot(m[..., i, i], m[..., j, i])
    locked = cos_b < 1e-9
    first = np.where(locked, np.arctan2(-parity * m[..., j, k], m[..., j, j]),
                     np.arctan2(parity * m[..., k, j], m[..., k, k]))
    middle = np.arctan2(-parity * m[..., k, i], cos_b)
    last = np.where(locked, 0.0, np.arctan2(parity * m[..., j, i], m[..., i, i]))
    angles = np.empty(np.shape(q)[:-1] + (3,))
    angles[..., i], angles[..., j], angles[..., k] = first, middle, last
    return angles


def to_axis_angle(q):
    """(T, 4) Blender (angle, x, y, z) for (T, 4) quaternions; no turn gives angle 0 about Y, as a
    new Blender object has."""
    q = np.asarray(q, dtype=np.float64)
    vector = q[..., :3] * np.where(q[..., 3:] < 0.0, -1.0, 1.0)
    length = np.linalg.norm(vector, axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(length, np.abs(q[..., 3:]))
    axis = np.where(length > 0.0, vector / np.where(length > 0.0, length, 1.0), (0.0, 1.0, 0.0))
    return np.concatenate([angle, axis], axis=-1)
