"""References for the keyframe tests (tests/core/test_keyframes.py, test_keyframes_batch.py),
written in plain Python independently of the core: Blender's F-curve evaluation, and the glTF
rotation curves (Appendix C slerp, CUBICSPLINE, the draft's CUBICSLERP) one quaternion at a time."""

import math

import numpy as np


# --- an independent Blender F-curve evaluator (scalar Python) -------------------------------------

def _limit(key, handle, span):
    """fcurve.cc BKE_fcurve_correct_bezpart: a handle longer in time than the segment is scaled
    towards its key until it reaches the other key's time."""
    f = min(1.0, span / abs(key[0] - handle[0])) if key[0] != handle[0] else 1.0
    return (key[0] - f * (key[0] - handle[0]), key[1] - f * (key[1] - handle[1]))


def _cubic(p0, p1, p2, p3, s):
    a, b, c = p0 + (p1 - p0) * s, p1 + (p2 - p1) * s, p2 + (p3 - p2) * s
    d, e = a + (b - a) * s, b + (c - b) * s
    return d + (e - d) * s


def fcurve_values(keys, t):
    """Every component at time t, as Blender's F-curves play it (constant extrapolation)."""
    times = [float(x) for x in keys.times]
    rows = [[float(x) for x in row] for row in np.atleast_2d(keys.values)]
    if t <= times[0]:
        return rows[0]
    if t >= times[-1]:
        return rows[-1]
    i = max(j for j in range(len(times) - 1) if times[j] <= t)
    t0, t1 = times[i], times[i + 1]
    mode = str(keys.interpolation[i])
    if t == t0 or mode == "CONSTANT":
        return rows[i]
    if mode == "LINEAR":
        return [a + (b - a) * (t - t0) / (t1 - t0) for a, b in zip(rows[i], rows[i + 1])]
    assert mode == "BEZIER"
    out = []
    for c in range(len(rows[i])):
        p0, p3 = (t0, rows[i][c]), (t1, rows[i + 1][c])
        p1 = _limit(p0, (float(keys.right_times[i]), float(keys.right_values[i][c])), t1 - t0)
        p2 = _limit(p3, (float(keys.left_times[i + 1]), float(keys.left_values[i + 1][c])), t1 - t0)
        low, high = 0.0, 1.0
        for _ in range(60):
            mid = 0.5 * (low + high)
            if _cubic(p0[0], p1[0], p2[0], p3[0], mid) < t:
                low = mid
            else:
                high = mid
        out.append(_cubic(p0[1], p1[1], p2[1], p3[1], 0.5 * (low + high)))
    return out


# --- independent scalar quaternion formulas -------------------------------------------------------

def unit(q):
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]


def angle_deg(q1, q2):
    """4 asin(|q1 - q2'| / 2): angle between the rotations of unit quaternions, exact when small."""
    q1, q2 = unit(q1), unit(q2)
    q2 = [-x for x in q2] if sum(a * b for a, b in zip(q1, q2)) < 0.0 else q2
    chord = math.sqrt(sum((a - b) ** 2 for a, b in zip(q1, q2)))
    return math.degrees(4.0 * math.asin(min(chord / 2.0, 1.0)))


def slerp(a, b, t):
    """glTF 2.0 Appendix C."""
    d = sum(x * y for x, y in zip(a, b))
    if d < 0.0:
        b, d = [-x for x in b], -d
    if d > 1.0 - 1e-12:
        return unit([x + (y - x) * t for x, y in zip(a, b)])
    angle = math.acos(d)
    wa, wb = math.sin((1.0 - t) * angle) / math.sin(angle), math.sin(t * angle) / math.sin(angle)
    return [wa * x + wb * y for x, y in zip(a, b)]


def sqlerp(v0, b0, a1, v1, t):
    """The formula of spec "CUBICSLERP Interpolation"."""
    return unit(slerp(slerp(v0, v1, t), slerp(b0, a1, t), 2.0 * t * (1.0 - t)))


def hermite(v0, b0, a1, v1, duration, u):
    """Appendix C, tangents scaled by the segment duration."""
    h00, h10 = 2 * u ** 3 - 3 * u ** 2 + 1, u ** 3 - 2 * u ** 2 + u
    h01, h11 = -2 * u ** 3 + 3 * u ** 2, u ** 3 - u ** 2
    return [h00 * p + duration * h10 * m + h01 * q + duration * h11 * n
            for p, m, q, n in zip(v0, b0, v1, a1)]


def spec_rotation(interpolation, times, rows, t):
    """The glTF curve at t for LINEAR (slerp), CUBICSPLINE (normalized) or CUBICSLERP rows."""
    times = list(times)
    t = min(max(t, times[0]), times[-1])
    i = min(max(j for j in range(len(times)) if times[j] <= t), len(times) - 2)
    u = (t - times[i]) / (times[i + 1] - times[i])
    if interpolation == "LINEAR":
        return slerp(rows[i], rows[i + 1], u)
    a, v, b = rows[0::3], rows[1::3], rows[2::3]
    if interpolation == "CUBICSPLINE":
        return unit(hermite(v[i], b[i], a[i + 1], v[i + 1], times[i + 1] - times[i], u))
    return sqlerp(v[i], b[i], a[i + 1], v[i + 1], u)


def about(axis, degrees):
    n, h = math.sqrt(sum(x * x for x in axis)), math.radians(degrees) / 2.0
    return [axis[0] / n * math.sin(h), axis[1] / n * math.sin(h), axis[2] / n * math.sin(h),
            math.cos(h)]


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz]


def worst_angle(keys, spec, per_segment=64):
    """Largest angle between Blender's curves and spec(t), per_segment + 1 samples a segment."""
    times = [float(x) for x in keys.times]
    return max(angle_deg(fcurve_values(keys, t), spec(t)) for t0, t1 in zip(times[:-1], times[1:])
               for t in (t0 + (t1 - t0) * j / per_segment for j in range(per_segment + 1)))


def sign_continuous(keys):
    return all(float(np.dot(a, b)) >= 0.0 for a, b in zip(keys.values[:-1], keys.values[1:]))
