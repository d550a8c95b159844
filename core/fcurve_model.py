"""Blender's F-curve playback, emulated in numpy (blenkernel fcurve.cc), so that the keyframe
fitter can measure what Blender will really play before anything is written.
"""

import numpy as np

from . import quaternions as quat

CONSTANT, LINEAR, BEZIER = "CONSTANT", "LINEAR", "BEZIER"
MODES = (CONSTANT, LINEAR, BEZIER)
# f'(0) d from f(-2d), f(-d), f(d), f(2d)
# Handle times within this fraction of the segment of one third count as "one third" in play():
# x(s) is then linear and s follows without solving the cubic.
_THIRD = 1e-9
_BISECTIONS = 60
_BRACKET_STEPS, _NEWTON_STEPS = 8, 4
_RESOLUTION = 1e-13  # of the segment's span in frames: below what float64 bisection gives


def play(keys, times, rotation=False):
    """What Blender's F-curves play at ``times``: (len(times), k); normalized if ``rotation``.

    Emulates Blender's keyframe evaluation (blenkernel fcurve.cc) in float64: constant
    extrapolation, a key's own value at its time, CONSTANT holds, LINEAR lerps, BEZIER is the cubic
    Bezier (key, right handle, next left handle, next key) with x(s) = time solved for s, after
    Blender's BKE_fcurve_correct_bezpart (a handle longer in time than its segment is scaled down).
    """
    query = np.asarray(times, dtype=np.float64).reshape(-1)
    key_times = np.asarray(keys.times, dtype=np.float64).reshape(-1)
    values = np.asarray(keys.values, dtype=np.float64)
    values = values[:, None] if values.ndim == 1 else values
    if len(key_times) == 1:
        out = np.repeat(values[:1], len(query), axis=0)
        return quat.normalize(out) if rotation else out
    segments = _Segments(keys, key_times, values)
    q = np.clip(query, key_times[0], key_times[-1])
    k = np.searchsorted(key_times, q, side="right") - 1
    np.clip(k, 0, len(key_times) - 2, out=k)
    s = (q - np.take(key_times, k)) / np.take(segments.span, k)
    general = np.flatnonzero(segments.general[k])
    if general.size:
        s[general] = _bezier_parameter(segments.x[k[general]], q[general])
    # Horner, one coefficient gathered at a time (np.take: ten times faster than c[k] here)
    c = segments.coefficients
    s = s[:, None]
    out = np.take(c[3], k, axis=0)
    for i in (2, 1, 0):
        out *= s
        out += np.take(c[i], k, axis=0)
    # Blender returns a key's own value at its time (and beyond the ends).
    for at in (k, k + 1):
        on_key = q == key_times[at]
        out[on_key] = values[at[on_key]]
    return quat.normalize(out) if rotation else out


class _Segments:
    """Per segment, once: the value as a cubic in the segment parameter s, c0 + c1 s + c2 s^2 +
    c3 s^3 ((4, m - 1, k): CONSTANT c0 only, LINEAR a line, BEZIER the Bernstein form expanded),
    and for BEZIER segments whose handles are not at one third in time (``general``), the time
    control points x (m - 1, 4) that give s (elsewhere s is the time fraction)."""

    def __init__(self, keys, key_times, values):
        modes = np.asarray(keys.interpolation)
        unknown = ~np.isin(modes[:-1], MODES)
        if unknown.any():
            raise ValueError(f"unknown interpolation {modes[:-1][unknown][0]!r}")
        x0, x3, y0, y3 = key_times[:-1], key_times[1:], values[:-1], values[1:]
        self.span = x3 - x0
        x1, y1 = _limit_handle(x0, y0, np.asarray(keys.right_times, dtype=np.float64)[:-1],
                               np.asarray(keys.right_values, dtype=np.float64)[:-1], self.span)
        x2, y2 = _limit_handle(x3, y3, np.asarray(keys.left_times, dtype=np.float64)[1:],
                               np.asarray(keys.left_values, dtype=np.float64)[1:], self.span)
        linear, bezier = modes[:-1] == LINEAR, modes[:-1] == BEZIER
        c = np.zeros((4,) + y0.shape)
        c[0] = y0
        c[1, linear] = (y3 - y0)[linear]
        c[1, bezier] = 3.0 * (y1 - y0)[bezier]
        c[2, bezier] = 3.0 * (y0 - 2.0 * y1 + y2)[bezier]
        c[3, bezier] = (y3 - y0 + 3.0 * (y1 - y2))[bezier]
        self.coefficients = c
        third = self.span / 3.0
        self.general = bezier & ((np.abs(x1 - x0 - third) > _THIRD * self.span)
                                 | (np.abs(x3 - x2 - third) > _THIRD * self.span))
        self.x = np.stack([x0, x1, x2, x3], axis=1)


def _limit_handle(x_key, y_key, x_handle, y_handle, span):
    """BKE_fcurve_correct_bezpart: a handle reaching further than the segment in time is scaled
    towards its key (values too) so that it reaches exactly the other key's time."""
    length = np.abs(x_key - x_handle)
    factor = np.where(length > span, span / np.where(length > 0.0, length, 1.0), 1.0)
    return (x_key - factor * (x_key - x_handle),
            y_key - factor[:, None] * (y_key - y_handle))


def _bezier_parameter(x, q):
    """s in [0, 1] with x(s) = q for time control points x (T, 4). Blender keeps handles within
    their segment in time, which makes x(s) monotonic: bisection brackets s, Newton steps inside
    the bracket finish it (a tenth of the work of bisecting to float64 resolution), and samples
    where Newton stalls (x'(s) near 0) are bisected to the end."""
    a, b, c, d = x.T
    low, high = np.zeros(len(q)), np.ones(len(q))
    low, high = _bisect(a, b, c, d, q, low, high, _BRACKET_STEPS)
    # x(s) in power form for Newton: x = a + 3(b-a)s + 3(a-2b+c)s^2 + (d-a+3(b-c))s^3
    c1, c2, c3 = 3.0 * (b - a), 3.0 * (a - 2.0 * b + c), d - a + 3.0 * (b - c)
    s = 0.5 * (low + high)
    for _ in range(_NEWTON_STEPS):
        slope = c1 + s * (2.0 * c2 + 3.0 * c3 * s)
        step = (a + s * (c1 + s * (c2 + s * c3)) - q) / np.where(slope > 0.0, slope, np.inf)
        s = np.clip(s - step, low, high)
    residual = np.abs(a + s * (c1 + s * (c2 + s * c3)) - q)
    stalled = np.flatnonzero(residual > _RESOLUTION * np.maximum(np.abs(d - a), 1.0))
    if stalled.size:
        low[stalled], high[stalled] = _bisect(a[stalled], b[stalled], c[stalled], d[stalled], q[stalled],
                                              low[stalled], high[stalled], _BISECTIONS - _BRACKET_STEPS)
        s[stalled] = 0.5 * (low[stalled] + high[stalled])
    return s


def _bisect(a, b, c, d, q, low, high, steps):
    for _ in range(steps):  # per halving step, over all samples at once
        mid = 0.5 * (low + high)
        r = 1.0 - mid
        below = r * r * r * a + 3.0 * r * mid * (r * b + mid * c) + mid * mid * mid * d < q
        low = np.where(below, mid, low)
        high = np.where(below, high, mid)
    return low, high
