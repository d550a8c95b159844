"""Unit quaternions as numpy arrays in glTF order (x, y, z, w).

Every function takes arrays of shape (..., 4) (rotation vectors (..., 3), parameters (...)) and
broadcasts, so a channel's keys or a million samples go through one call. float64 throughout.

The spec (docs/EXT_animation_sqlerp/README.md): slerp is the glTF 2.0 Appendix C slerp (shortest path by
the sign of the dot product); ``log`` is the half-angle vector of the shorter of q and -q, so
``log(-q) == log(q)`` and every formula built on it ignores quaternion signs.
"""

import numpy as np
import numpy.typing as npt


# Below this angle between the two quaternions (radians in 4D, half the rotation angle) slerp takes
# Appendix C's "lerp, then normalize" branch. Slerp here is a cos(t angle) + e sin(t angle) with e
# the unit part of b orthogonal to a and the angle from atan2 (exact to rounding at every angle,
# unlike acos(dot), which loses half the digits near 1), so it stays accurate down to the smallest
# angles; the branch only has to catch 0/0 at angle 0. Normalized lerp differs from slerp by at
# most angle**3/60 (2e-20 rad at 1e-6), far below float64 resolution, so the switch is invisible.
# The tutorial's dot > 0.9995 (angle 0.032) would add errors up to 5e-7 rad, which an exact
# evaluator must not.
NLERP_BELOW = 1e-6
# slerp_ends' result: (starts, e, angle, tiny) at both ends of each arc.
ArcEnds = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]


def _f64(q):
    return np.asarray(q, dtype=np.float64)


def _broadcast_f64(a, b) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    # Typed: numpy's stubs give broadcast_arrays' results any dtype, and arithmetic on those then
    # takes the stubs' first (boolean) overload.
    a, b = np.broadcast_arrays(_f64(a), _f64(b))
    return a, b


def _dot(a, b, axis):
    return np.einsum("...i,...i->..." if axis == -1 else "i...,i...->...", a, b)


def _per_quat(x, axis):
    """Per-quaternion scalars shaped to broadcast against quaternions stored along `axis`."""
    return x[..., None] if axis == -1 else x[None]


def dot(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Four-dimensional dot product, shape (...)."""
    a, b = _broadcast_f64(a, b)
    return np.einsum("...i,...i->...", a, b)


def _norm(q):
    return np.sqrt(np.einsum("...i,...i->...", q, q))


def normalize(q: npt.ArrayLike, axis: int = -1) -> npt.NDArray[np.float64]:
    """Scale quaternions to unit length: q / |q|.

    A zero quaternion stays zero (no NaN): unused CUBICSLERP tangents may be zeros.

    Parameters
    ----------
    q : (..., 4) or (4, ...) float array
        Quaternions, their components along ``axis``.
    axis : int
        -1 for (..., 4), 0 for component-major (4, ...).

    Returns
    -------
    float64 array, the shape of ``q``
        The unit quaternions.

    Examples
    --------
    >>> normalize([[0.0, 0.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0]]).tolist()
    [[0.0, 0.0, 0.6, 0.8], [0.0, 0.0, 0.0, 0.0]]
    """
    q = _f64(q)
    length = np.sqrt(_dot(q, q, axis))
    return q / _per_quat(np.where(length > 0.0, length, 1.0), axis)


def conjugate(q: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(-x, -y, -z, w): the inverse of a unit quaternion."""
    return _f64(q) * np.array([-1.0, -1.0, -1.0, 1.0])


def multiply(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Hamilton product a*b (apply b, then a, to a vector)."""
    a, b = _f64(a), _f64(b)
    # One constant quaternion against many: the product is linear in the others, one matmul.
    if a.shape == (4,) and b.ndim == 2:
        return b @ _left_matrix(a).T
    if b.shape == (4,) and a.ndim == 2:
        return a @ _right_matrix(b).T
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ], axis=-1)


def sandwich(a: npt.ArrayLike, q: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """a * q * b for constant quaternions a, b and (n, 4) q: one matmul (q -> L(a) R(b) q)."""
    return _f64(q) @ (_left_matrix(_f64(a)) @ _right_matrix(_f64(b))).T


def _left_matrix(a):
    """M with multiply(a, q) = M @ q for (x, y, z, w) column vectors q."""
    x, y, z, w = a
    return np.array([[w, -z, y, x], [z, w, -x, y], [-y, x, w, z], [-x, -y, -z, w]])


def _right_matrix(b):
    """M with multiply(q, b) = M @ q."""
    x, y, z, w = b
    return np.array([[w, z, -y, x], [-z, w, x, y], [y, -x, w, z], [-x, -y, -z, w]])


def slerp_basis(a: npt.ArrayLike, b: npt.ArrayLike,
                axis: int = -1) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Per pair (a, b): (e, angle, tiny) with slerp(a, b, t) = a cos(t angle) + e sin(t angle).

    Appendix C: b' = b sign(a.b) (shortest path, sign(0) counted as +1), angle = arccos(|a.b|).
    e is the unit part of b' orthogonal to a, so the sum equals Appendix C's
    (sin((1-t) angle) a + sin(t angle) b') / sin(angle) exactly (expand b' = a cos + e sin).
    The angle is atan2(|b - a (a.b)|, |a.b|), exact to rounding even where acos is not. Where
    tiny (angle < NLERP_BELOW), e = b' - a, for the lerp-then-normalize branch.
    `axis` is where the 4 components are: -1 for (..., 4), 0 for component-major (4, ...).
    """
    a, b = _broadcast_f64(a, b)
    d = _dot(a, b, axis)
    ortho = b - a * _per_quat(d, axis)           # sign(d) * ortho is the part of b' orthogonal to a
    length = np.sqrt(_dot(ortho, ortho, axis))
    angle = np.arctan2(length, np.abs(d))
    tiny = angle < NLERP_BELOW
    scale = 1.0 / np.where(tiny, 1.0, length)
    scale = np.where(d < 0.0, -scale, scale)      # not copysign: a dot of -0.0 must count as +1
    e = ortho * _per_quat(scale, axis)
    if tiny.any():
        sign = _per_quat(np.where(d < 0.0, -1.0, 1.0), axis)
        e = np.where(_per_quat(tiny, axis), b * sign - a, e)
    return e, angle, tiny


def slerp_from_basis(a: npt.NDArray[np.float64], e: npt.NDArray[np.float64], angle: npt.NDArray[np.float64],
                     tiny: npt.NDArray[np.bool_] | np.bool_, u: npt.NDArray[np.float64] | float,
                     axis: int = -1) -> npt.NDArray[np.float64]:
    """a cos(u angle) + e sin(u angle), for u <= 1/2; where tiny, normalize(a + u e).

    With u <= 1/2 the phase is at most pi/4, where cos = sqrt((1 - sin)(1 + sin)) is exact to
    rounding (cos >= 0.7): one sin instead of sin and cos, the two slowest numpy calls here.
    Callers with u > 1/2 start from the other end: slerp(a, b', t) = slerp(b', a, 1 - t).
    """
    s = np.sin(np.multiply(u, angle))
    c = np.sqrt((1.0 - s) * (1.0 + s))
    if tiny.any():
        c = np.where(tiny, 1.0, c)
        s = np.where(tiny, u, s)
    q = a * _per_quat(c, axis)
    q += e * _per_quat(s, axis)
    if tiny.any():
        q = np.where(_per_quat(tiny, axis), normalize(q, axis), q)
    return q


def slerp_ends(a: npt.ArrayLike, b: npt.ArrayLike, axis: int = -1) -> ArcEnds:
    """Both ends of each arc, for slerp_from_basis: (starts, e, angle, tiny), each with a new
    axis before the pairs' axes: index 0 starts at a (parameter t), 1 at b' (parameter 1 - t)."""
    a, b = _broadcast_f64(a, b)
    e_a, angle, tiny = slerp_basis(a, b, axis)
    b_short = b * _per_quat(np.where(_dot(a, b, axis) < 0.0, -1.0, 1.0), axis)
    e_b, _, _ = slerp_basis(b_short, a, axis)
    return (np.stack([a, b_short]), np.stack([e_a, e_b]), np.stack([angle, angle]),
            np.stack([tiny, tiny]))


def slerp(a: npt.ArrayLike, b: npt.ArrayLike, t: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Interpolate unit quaternions by glTF 2.0 Appendix C slerp, on the shortest path.

    Computed from the nearer end (slerp(a, b', t) = slerp(b', a, 1 - t)), one arc basis per pair:
    the fits call it on a few dozen rotations at a time, where each numpy call counts.

    Parameters
    ----------
    a : (..., 4) float array
        Start rotations (x, y, z, w).
    b : (..., 4) float array
        End rotations; b' = -b where a.b < 0 (the shortest path).
    t : (...) float array or float
        Parameters in [0, 1]; broadcasts with ``a`` and ``b``.

    Returns
    -------
    (..., 4) float64 array
        The interpolated rotations.

    Examples
    --------
    >>> half = slerp([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0], 0.5)  # halfway to 180 deg about Z
    >>> half.round(4).tolist(), angle_between([0.0, 0.0, 0.0, 1.0], half).round(6).tolist()
    ([0.0, 0.0, 0.7071, 0.7071], 90.0)
    """
    a, b = _broadcast_f64(a, b)
    t = _f64(t)
    shape = np.broadcast_shapes(a.shape[:-1], t.shape)
    a, b, t = np.broadcast_to(a, shape + (4,)), np.broadcast_to(b, shape + (4,)), np.broadcast_to(t, shape)
    b = b * np.where(_dot(a, b, -1) < 0.0, -1.0, 1.0)[..., None]  # b': the shortest path
    far = (t > 0.5)[..., None]
    start, end = np.where(far, b, a), np.where(far, a, b)
    e, angle, tiny = slerp_basis(start, end)
    return slerp_from_basis(start, e, angle, tiny, np.minimum(t, 1.0 - t))


def sqlerp(v0: npt.ArrayLike, b0: npt.ArrayLike, a1: npt.ArrayLike, v1: npt.ArrayLike,
           t: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Evaluate a CUBICSLERP segment (spec "CUBICSLERP Interpolation") at ``t`` in [0, 1].

    q(t) = slerp(slerp(v0, v1, t), slerp(b0, a1, t), 2t(1-t)).

    Parameters
    ----------
    v0 : (..., 4) float array
        The segment's first key value.
    b0 : (..., 4) float array
        Its out-tangent.
    a1 : (..., 4) float array
        The next key's in-tangent.
    v1 : (..., 4) float array
        The next key's value.
    t : (...) float array or float
        Parameters in [0, 1]; broadcasts with the quaternions.

    Returns
    -------
    (..., 4) float64 array
        The rotations, not normalized beyond slerp's own rounding.

    Examples
    --------
    Turns about Z: v0 = 0, b0 = a1 = 45, v1 = 90 degrees; at t = 1/4 the keys' slerp is at 22.5
    degrees, the tangents' at 45, and the outer slerp goes 2t(1 - t) = 0.375 of the way: 30.9375.

    >>> import numpy as np
    >>> z = lambda degrees: [0.0, 0.0, np.sin(np.radians(degrees) / 2), np.cos(np.radians(degrees) / 2)]
    >>> angle_between(z(0), sqlerp(z(0), z(45), z(45), z(90), 0.25)).round(6).tolist()
    30.9375
    """
    t = _f64(t)
    return slerp(slerp(v0, v1, t), slerp(b0, a1, t), 2.0 * t * (1.0 - t))


def log(q: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Half-angle rotation vector (..., 3) of the shorter of q and -q; 0 for the identity.

    log(q) = sign(w) * v/|v| * atan2(|v|, |w|): with |w| the angle is at most pi/2, and sign(w)
    keeps exp(log(q)) equal to +-q (the same rotation). atan2(|v|, |w|)/|v| stays accurate as
    |v| -> 0, where it tends to 1/|w|.
    """
    q = _f64(q)
    v, w = q[..., :3], q[..., 3]
    length = _norm(v)
    half = np.arctan2(length, np.abs(w))
    scale = np.where(length > 0.0, half / np.where(length > 0.0, length, 1.0), 0.0)
    scale = np.where(w < 0.0, -scale, scale)
    return v * scale[..., None]


def exp(v: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Unit quaternion (..., 4) of a half-angle vector: (v/|v| sin|v|, cos|v|); exp(0) = 1."""
    v = _f64(v)
    angle = _norm(v)
    safe = np.where(angle > 0.0, angle, 1.0)
    scale = np.where(angle > 0.0, np.sin(safe) / safe, 1.0)
    return np.concatenate([v * scale[..., None], np.cos(angle)[..., None]], axis=-1)


def angle_between(q1: npt.ArrayLike, q2: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Measure the angle in degrees between rotations (spec "Error measure").

    Blind to sign and length: q and -2q are the same rotation.

    Parameters
    ----------
    q1 : (..., 4) float array
        Quaternions (x, y, z, w), any nonzero length.
    q2 : (..., 4) float array
        The same; broadcasts with ``q1``.

    Returns
    -------
    (...) float64 array
        The angle of the rotation from q1 to q2, in degrees in [0, 180].

    Examples
    --------
    >>> angle_between([0.0, 0.0, 0.0, 1.0], [[0.0, 0.0, 0.0, -2.0], [0.0, 1.0, 0.0, 1.0]]).round(6).tolist()
    [0.0, 90.0]
    """
    r = multiply(conjugate(q1), q2)
    return np.degrees(2.0 * np.arctan2(_norm(r[..., :3]), np.abs(r[..., 3])))


def make_continuous(q: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Flip signs along axis 0 so that consecutive quaternions have dot >= 0.

    Flipping q_i flips its dot with q_{i+1} too, so the sign of q_i is the running product of the
    signs of the original neighbour dots.

    Parameters
    ----------
    q : (n, 4) or (n, ..., 4) float array
        Quaternions along axis 0 (time).

    Returns
    -------
    float64 array, the shape of ``q``
        The same rotations, signs continuous (a new array).

    Examples
    --------
    >>> q = make_continuous([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, -1.0], [0.0, 0.0, 0.6, -0.8]])
    >>> (q + 0.0).tolist()  # + 0.0: no -0.0 in the printout
    [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, -0.6, 0.8]]
    """
    q = _f64(q)
    if q.shape[0] < 2:
        return q.copy()
    steps = np.where(np.einsum("...i,...i->...", q[:-1], q[1:]) < 0.0, -1.0, 1.0)
    signs = np.concatenate([np.ones((1,) + steps.shape[1:]), np.cumprod(steps, axis=0)])
    return q * signs[..., None]


def control_points(times: npt.ArrayLike, values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Time-aware CUBICSLERP control points s_i (spec "Tangents a writer starts from"), shape (n, 4).

    s_i = v_i exp(-(h_n log(v_i^-1 v_{i-1}) + h_p log(v_i^-1 v_{i+1})) / (2 (h_p + h_n))),
    h_p = t_i - t_{i-1}, h_n = t_{i+1} - t_i; s_1 = v_1 and s_n = v_n. Setting a_i = b_i = s_i
    gives a curve whose angular velocity is continuous (C1) at every key, for any key spacing;
    with equal spacing this is Shoemake's v_i exp(-(L_prev + L_next)/4).
    """
    times = _f64(times).reshape(-1)
    v = _f64(values)
    s = v.copy()
    if len(v) < 3:
        return s
    inverse = conjugate(v[1:-1])
    l_prev = log(multiply(inverse, v[:-2]))
    l_next = log(multiply(inverse, v[2:]))
    h = np.diff(times)
    h_p, h_n = h[:-1, None], h[1:, None]
    s[1:-1] = multiply(v[1:-1], exp(-(h_n * l_prev + h_p * l_next) / (2.0 * (h_p + h_n))))
    return s
