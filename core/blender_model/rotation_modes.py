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
import numpy.typing as npt

from ..sampling import rotation_matrices
from .fcurves import work_arrays

QUATERNION, AXIS_ANGLE = "QUATERNION", "AXIS_ANGLE"
EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
# The F-curve data path and the number of components of each mode.
DATA_PATHS: dict[str, tuple[str, int]] = {QUATERNION: ("rotation_quaternion", 4),
                                          AXIS_ANGLE: ("rotation_axis_angle", 4)}
DATA_PATHS.update({order: ("rotation_euler", 3) for order in EULER_ORDERS})
_AXIS = {"X": 0, "Y": 1, "Z": 2}
# pi/2 as fdlibm's pio2_1 (its first 33 bits) + pio2_1t, and the half angles (radians) up to which
# n pi/2 splits off exactly that way (n below 2^20); cos and sin of n pi/2 by n mod 4.
_HALF_PI_HIGH, _HALF_PI_LOW = 1.57079632673412561417e+00, 6.07710050650619224932e-11
_REDUCIBLE = 1e5
# fdlibm's k_sin.c S1..S6: sin r = r + r^3 (S1 + r^2 (S2 + ... + r^2 S6)) for |r| <= pi/4.
_SIN_TERMS = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
              2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
_QUARTER_COS, _QUARTER_SIN = np.array([1.0, 0.0, -1.0, 0.0]), np.array([0.0, 1.0, 0.0, -1.0])


def to_quaternions(mode: str, components: npt.ArrayLike) -> np.ndarray:
    """(T, 4) unit quaternions (x, y, z, w) for (T, k) F-curve values of rotation ``mode``."""
    components = np.asarray(components, dtype=np.float64)
    if mode == QUATERNION:
        return from_blender_quaternion(components)
    if mode == AXIS_ANGLE:
        return from_axis_angle(components)
    if mode in EULER_ORDERS:
        return from_euler(components, mode)
    raise ValueError(f"unknown rotation mode {mode!r}")


# The conversions below build their result a component at a time from 1-D component arrays, in
# work arrays kept between calls: numpy is slow over a trailing axis of 4, and fresh large
# temporaries cost more in page faults than the arithmetic done in them. Input transposed from
# component-major (k, T), as blender_curves.blender_values gives it, has each component contiguous.


def from_blender_quaternion(wxyz: npt.ArrayLike) -> np.ndarray:
    """Convert Blender's quaternion F-curve values to the unit quaternions Blender plays.

    Parameters
    ----------
    wxyz : (..., 4) float array
        Blender's (w, x, y, z), of any length.

    Returns
    -------
    (..., 4) float64 array
        Unit (x, y, z, w), normalized as Blender's ``normalize_qt``; a zero quaternion plays as the
        identity.

    Examples
    --------
    >>> from_blender_quaternion([[0.0, 0.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0]]).tolist()  # half a turn about Z; zero
    [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    """
    wxyz, out, shape = _flat(wxyz, 4)
    norm, *spare = work_arrays("rotation_modes", 3, len(wxyz))
    _length([wxyz[:, 1], wxyz[:, 2], wxyz[:, 3], wxyz[:, 0]], norm, spare[0])  # summed x, y, z, w
    zero = _nonpositive_to_one(norm, spare[1])
    for axis, component in ((3, 0), (0, 1), (1, 2), (2, 3)):
        np.divide(wxyz[:, component], norm, out=out[:, axis])
    out[zero] = (0.0, 0.0, 0.0, 1.0)
    return out.reshape(shape)


def from_euler(angles: npt.ArrayLike, order: str = "XYZ") -> np.ndarray:
    """Euler angles (T, 3) in radians, indexed by axis (X, Y, Z), turned in ``order`` (the first
    letter's axis first: 'XYZ' is Rz Ry Rx), to (T, 4)."""
    angles, out, shape = _flat(angles, 3)
    i, j, k = (_AXIS[letter] for letter in order)
    si, ci, sj, cj, sk, ck, cc, cs, sc, ss, a, b, c = work_arrays("rotation_modes", 13, len(angles))
    for axis, sine, cosine in ((i, si, ci), (j, sj, cj), (k, sk, ck)):
        _half_sin_cos(angles[:, axis], sine, cosine, (a, b, c))
    # blenlib's eulO_to_quat: the product R_k R_j R_i written out. Odd orders (XZY, YXZ, ZYX) are
    # the even formula with the middle angle negated, and then the middle component.
    odd = order not in ("XYZ", "YZX", "ZXY")
    if odd:
        np.negative(sj, out=sj)
    np.multiply(ci, ck, out=cc)
    np.multiply(ci, sk, out=cs)
    np.multiply(si, ck, out=sc)
    np.multiply(si, sk, out=ss)
    _products(cj, sc, -1.0, sj, cs, out[:, i], a, b)
    _products(cj, ss, 1.0, sj, cc, out[:, j], a, b)
    if odd:
        np.negative(out[:, j], out=out[:, j])
    _products(cj, cs, -1.0, sj, sc, out[:, k], a, b)
    _products(cj, cc, 1.0, sj, ss, out[:, 3], a, b)
    return out.reshape(shape)


def from_axis_angle(angle_axis: npt.ArrayLike) -> np.ndarray:
    """Blender's (angle, x, y, z) to (T, 4): the axis normalized, identity where it is zero."""
    angle_axis, out, shape = _flat(angle_axis, 4)
    length, sine, *spare = work_arrays("rotation_modes", 5, len(angle_axis))
    _length(angle_axis[:, 1:].T, length, spare[0])
    zero = _nonpositive_to_one(length, spare[1])
    _half_sin_cos(angle_axis[:, 0], sine, out[:, 3], spare)
    for axis in range(3):  # (axis / length) sin(angle / 2)
        np.divide(angle_axis[:, 1 + axis], length, out=out[:, axis])
        out[:, axis] *= sine
    out[zero] = (0.0, 0.0, 0.0, 1.0)
    return out.reshape(shape)


def _flat(values, width):
    """(values as (n, width) float64, a new (n, 4) result, the result's shape)."""
    values = np.asarray(values, dtype=np.float64)
    return values.reshape(-1, width), np.empty((values.size // width, 4)), values.shape[:-1] + (4,)


def _length(components, out, spare):
    """Into ``out``: the Euclidean length of k components, each a 1-D array, summed in order."""
    np.multiply(components[0], components[0], out=out)
    for component in components[1:]:
        out += np.multiply(component, component, out=spare)
    np.sqrt(out, out=out)


def _nonpositive_to_one(length, spare):
    """Sets lengths that are not positive (zero) to 1 so that dividing by them passes the values
    through, as Blender does; returns the indices of the zero ones (identity rotations)."""
    zero = np.flatnonzero(np.equal(length, 0.0, out=spare.view(bool)[:len(length)]))
    np.copyto(length, 1.0, where=np.logical_not(length > 0.0, out=spare.view(bool)[:len(length)]))
    return zero


def _products(a, b, sign, c, d, out, spare, spare2):
    """Into ``out``: a b + sign c d."""
    np.multiply(a, b, out=spare)
    np.multiply(c, d, out=spare2)
    (np.add if sign > 0.0 else np.subtract)(spare, spare2, out=out)


def _half_sin_cos(angle, sine, cosine, spare):
    """sin and cos of ``angle`` / 2 into ``sine``, ``cosine``, within an ulp or two of np.sin and
    np.cos at less than half their cost (each costs some twenty multiplications): the half angle
    h = n pi/2 + r, |r| <= pi/4, has sin r from fdlibm's polynomial and cos r = sqrt(1 - sin^2 r),
    as exact there (1 - sin^2 r >= 1/2 has a relative error of a few 1e-16, which sqrt halves);
    the n quarter turns then rotate (sin r, cos r). ``spare``: three arrays like ``angle``."""
    half, quarter, rest = spare
    np.multiply(angle, 0.5, out=half)
    low, high = (half.min(), half.max()) if half.size else (0.0, 0.0)
    if not (-_REDUCIBLE <= low and high <= _REDUCIBLE):
        np.sin(half, out=sine)  # huge or not finite: as numpy gives them
        np.cos(half, out=cosine)
        return
    turns = not (-0.25 * np.pi <= low and high <= 0.25 * np.pi)  # else n = 0 throughout
    if turns:  # r = h - n pi/2 with pi/2 in two parts (fdlibm's), n times the first exact
        np.multiply(half, 2.0 / np.pi, out=quarter)
        np.rint(quarter, out=quarter)
        np.multiply(quarter, -_HALF_PI_HIGH, out=rest)
        rest += half
        rest -= np.multiply(quarter, _HALF_PI_LOW, out=half)
    _sin_quarter(rest if turns else half, sine, cosine)
    np.multiply(sine, sine, out=cosine)
    np.subtract(1.0, cosine, out=cosine)
    np.sqrt(cosine, out=cosine)
    if turns:
        _quarter_turns(quarter, sine, cosine, half, rest)


def _quarter_turns(n, sine, cosine, spare, spare2):
    """(sin, cos)(r + n pi/2) from (sin, cos) r in place, for whole float n: (a sin r + b cos r,
    a cos r - b sin r), (a, b) = (cos, sin)(n pi/2), exact multiples of 0 and +-1."""
    quadrant = spare2.view(np.int64)
    np.copyto(quadrant, n, casting="unsafe")
    np.bitwise_and(quadrant, 3, out=quadrant)
    a = np.take(_QUARTER_COS, quadrant, out=spare, mode="clip")
    b = np.take(_QUARTER_SIN, quadrant, out=n, mode="clip")
    b_sin = np.multiply(b, sine, out=spare2)
    sine *= a
    sine += np.multiply(b, cosine, out=b)
    cosine *= a
    cosine -= b_sin


def _sin_quarter(r, out, z):
    """sin r into ``out`` for |r| <= pi/4: fdlibm's __kernel_sin (error below an ulp), r + r^3
    (S1 + r^2 (S2 + ...)); ``z``: an array like r to work in."""
    np.multiply(r, r, out=z)
    np.multiply(z, _SIN_TERMS[-1], out=out)
    for term in _SIN_TERMS[-2::-1]:
        out += term
        out *= z
    out *= r
    out += r


def from_quaternions(mode: str, q: npt.ArrayLike, reference: npt.ArrayLike | None = None) -> np.ndarray:
    """Convert unit quaternions to the F-curve values of a Blender rotation mode.

    The inverse of to_quaternions, for posing a bone or object of that mode from a quaternion.

    Parameters
    ----------
    mode : str
        QUATERNION, AXIS_ANGLE or an Euler order ('XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX').
    q : (T, 4) float array
        Unit quaternions (x, y, z, w).
    reference : (T, k) float array or None
        Current values: Euler angles are then shifted by whole turns to lie nearest them, as
        Blender's compatible Euler conversion does, so that poses do not jump by 2 pi.

    Returns
    -------
    (T, k) float64 array
        k = 4: (w, x, y, z) or (angle, x, y, z); k = 3: Euler angles in radians, indexed by axis.

    Raises
    ------
    ValueError
        An unknown ``mode``.

    Examples
    --------
    >>> q = [[0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)]]  # 90 degrees about Z
    >>> (np.degrees(from_quaternions("XYZ", q)).round(6) + 0.0).tolist()  # + 0.0: a -0.0 prints as 0.0
    [[0.0, 0.0, 90.0]]
    >>> (np.degrees(from_quaternions("XYZ", q, reference=[[0.0, 0.0, 6.0]])).round(6) + 0.0).tolist()  # 344 degrees
    [[0.0, 0.0, 450.0]]
    """
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


def to_euler(q: np.ndarray, order: str = "XYZ") -> np.ndarray:
    """(T, 3) angles indexed by axis, turned in ``order``, for (T, 4) quaternions: the Tait-Bryan
    extraction from the matrix R = R_C R_B R_A ('ABC' = order), with the sign of the order's
    parity; near gimbal lock (middle angle +-90 degrees) the third angle is set to 0."""
    i, j, k = (_AXIS[letter] for letter in order)
    parity = 1.0 if (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
    m = rotation_matrices.to_matrix(q)
    cos_b = np.hypot(m[..., i, i], m[..., j, i])
    locked = cos_b < 1e-9
    first = np.where(locked, np.arctan2(-parity * m[..., j, k], m[..., j, j]),
                     np.arctan2(parity * m[..., k, j], m[..., k, k]))
    middle = np.arctan2(-parity * m[..., k, i], cos_b)
    last = np.where(locked, 0.0, np.arctan2(parity * m[..., j, i], m[..., i, i]))
    angles = np.empty(np.shape(q)[:-1] + (3,))
    angles[..., i], angles[..., j], angles[..., k] = first, middle, last
    return angles


def to_axis_angle(q: npt.ArrayLike) -> np.ndarray:
    """(T, 4) Blender (angle, x, y, z) for (T, 4) quaternions; no turn gives angle 0 about Y, as a
    new Blender object has."""
    q = np.asarray(q, dtype=np.float64)
    vector = q[..., :3] * np.where(q[..., 3:] < 0.0, -1.0, 1.0)
    length = np.linalg.norm(vector, axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(length, np.abs(q[..., 3:]))
    axis = np.where(length > 0.0, vector / np.where(length > 0.0, length, 1.0), (0.0, 1.0, 0.0))
    return np.concatenate([angle, axis], axis=-1)
