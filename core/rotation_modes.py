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
