"""Blender's F-curve playback, emulated in numpy (blenkernel fcurve.cc), so that the keyframe
fitter can measure what Blender will really play before anything is written.
"""

import threading
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..sampling import quaternions as quat
from ..sampling import segment_index

if TYPE_CHECKING:  # keyframes imports this module
    from .keyframes import Keyframes

CONSTANT, LINEAR, BEZIER = "CONSTANT", "LINEAR", "BEZIER"
MODES = (CONSTANT, LINEAR, BEZIER)
# f'(0) d from f(-2d), f(-d), f(d), f(2d)
# Handle times within this fraction of the segment of one third count as "one third" in play():
# x(s) is then linear and s follows without solving the cubic.
_THIRD = 1e-9
_BISECTIONS = 60
_BRACKET_STEPS, _NEWTON_STEPS = 8, 4
_FIRST_STEPS = 2  # Newton steps from the linear guess over all samples, before any check
_RESOLUTION = 1e-13  # time residual in segment spans: below what float64 bisection gives
_CONVERGED = 1e-15  # a time residual Newton steps from the linear guess have converged to
_KEPT = 1 << 21  # float64 elements of work arrays kept per thread and user between calls (16 MiB)
_WORK = threading.local()


def play(keys: "Keyframes", times: npt.ArrayLike, rotation: bool = False) -> np.ndarray:
    """What Blender's F-curves play at ``times``: (len(times), k); normalized if ``rotation``.

    Emulates Blender's keyframe evaluation (blenkernel fcurve.cc) in float64: constant
    extrapolation, a key's own value at its time, CONSTANT holds, LINEAR lerps, BEZIER is the cubic
    Bezier (key, right handle, next left handle, next key) with x(s) = time solved for s, after
    Blender's BKE_fcurve_correct_bezpart (a handle longer in time than its segment is scaled down).
    """
    out = np.ascontiguousarray(Prepared(keys).play(times).T)
    return quat.normalize(out) if rotation else out


class Prepared:
    """Keyframes set up once (per segment: the value and time cubics) for many play() calls, as
    the exporter's fit makes them."""

    def __init__(self, keys: "Keyframes"):
        self.key_times = np.asarray(keys.times, dtype=np.float64).reshape(-1)
        values = np.asarray(keys.values, dtype=np.float64)
        self.values = values[:, None] if values.ndim == 1 else values
        self.segments = _Segments(keys, self.key_times, self.values) if len(self.key_times) > 1 else None

    def play(self, times: npt.ArrayLike, out: np.ndarray | None = None) -> np.ndarray:
        """play() of these keys component-major, unnormalized: (k, len(times)), one contiguous
        track per component (what the rotation modes read fastest); ``out``: an array to fill."""
        query = np.asarray(times, dtype=np.float64).reshape(-1)
        key_times, values, segments = self.key_times, self.values, self.segments
        out = np.empty((values.shape[1], len(query))) if out is None else out
        if segments is None:
            out[...] = values[0][:, None]
            return out
        since, s, k, spare, u, *solve = work_arrays("play", 10, len(query))
        np.clip(query, key_times[0], key_times[-1], out=since)
        k = _segment_of(key_times, since, k.view(np.int64))
        since -= np.take(key_times, k, out=spare, mode="clip")  # time since the segment's key
        if segments.general.any():
            np.divide(since, np.take(segments.span, k, out=spare, mode="clip"), out=u)
            t1, t2, t3 = (np.take(c, k, out=w, mode="clip") for c, w in zip(segments.time, solve))
            _time_parameter(t1, t2, t3, u, s, solve[3:])
        else:  # s is the time fraction
            np.divide(since, np.take(segments.span, k, out=spare, mode="clip"), out=s)
        _horner(segments.coefficients, k, s, out, spare)
        # Blender returns a key's own value at its time (and beyond the ends); of keys at one
        # time, the last: k is the last key at or before the sample, except at the end.
        flags = spare.view(np.bool_)[:len(query)]
        on_key = np.flatnonzero(np.equal(since, 0.0, out=flags))
        out[:, on_key] = values[k[on_key]].T
        out[:, np.flatnonzero(np.greater_equal(query, key_times[-1], out=flags))] = values[-1][:, None]
        return out


def work_arrays(user: str, count: int, n: int) -> list[np.ndarray]:
    """``count`` float64 arrays of length ``n`` to compute in, kept per thread and ``user`` between
    calls (up to _KEPT elements): a fresh large array costs a page fault per 4 KiB on first touch,
    which here costs more than the arithmetic done in it. Their contents are left over from the
    last call, and they are ``user``'s until its next call: never return them."""
    if count * n > _KEPT:
        return list(np.empty((count, n)))
    block = getattr(_WORK, user, None)
    if block is None or block.shape[0] < count or block.shape[1] < n:
        block = np.empty((count, n))
        setattr(_WORK, user, block)
    return [row[:n] for row in block[:count]]


def _segment_of(key_times, q, k):
    """Into int64 ``k``, per clipped sample time, its segment: the last key at or before it (the
    last segment at the end); returns k."""
    ordered = (key_times[1:] >= key_times[:-1]).all()  # as Blender keeps them
    sorted_samples = ordered and len(q) > 1 and bool((q[1:] >= q[:-1]).all())
    return segment_index(key_times, q, sorted_samples, out=k)


def _horner(coefficients, k, s, out, gathered):
    """out[j] = c0 + s (c1 + s (c2 + s c3)) of each sample's segment k, component j; one
    coefficient gathered at a time (np.take clip: no bounds check, no buffering)."""
    for row, (c0, c1, c2, c3) in zip(out, np.moveaxis(coefficients, 1, 0)):
        np.take(c3, k, out=row, mode="clip")
        for c in (c2, c1, c0):
            row *= s
            row += np.take(c, k, out=gathered, mode="clip")


class _Segments:
    """Per segment, once: the value as a cubic in the segment parameter s, c0 + c1 s + c2 s^2 +
    c3 s^3 (``coefficients`` (4, k, m - 1), component-major: CONSTANT c0 only, LINEAR a line,
    BEZIER the Bernstein form expanded), and ``time``: the time as a cubic in s, in spans from the
    segment's key, s (t1 + s (t2 + s t3)) (3, m - 1). That is s itself (1, 0, 0) unless the segment
    is BEZIER with handles not at one third in time (``general``), so that s is the time fraction
    there, as Blender's evaluation gives it."""

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
        self.coefficients = np.ascontiguousarray(c.transpose(0, 2, 1))
        third = self.span / 3.0
        self.general = bezier & ((np.abs(x1 - x0 - third) > _THIRD * self.span)
                                 | (np.abs(x3 - x2 - third) > _THIRD * self.span))
        time = np.zeros((3, len(x0)))
        time[0] = 1.0
        general = self.general
        time[:, general] = _time_cubic(x0[general], x1[general], x2[general], x3[general])
        self.time = time


def _limit_handle(x_key, y_key, x_handle, y_handle, span):
    """BKE_fcurve_correct_bezpart: a handle reaching further than the segment in time is scaled
    towards its key (values too) so that it reaches exactly the other key's time."""
    length = np.abs(x_key - x_handle)
    factor = np.where(length > span, span / np.where(length > 0.0, length, 1.0), 1.0)
    return (x_key - factor * (x_key - x_handle),
            y_key - factor[:, None] * (y_key - y_handle))


def _time_cubic(a, b, c, d):
    """(t1, t2, t3): the Bezier time x(s) of control points a, b, c, d as (x(s) - a) / (d - a)
    = s (t1 + s (t2 + s t3)); relative to the key, so that residuals keep float64 resolution far
    from frame 0. With h1, h2 the handle lengths in spans: t1 = 3 h1, t2 = 3 (1 - 2 h1 - h2),
    t3 = 3 (h1 + h2) - 2 (all 1, 0, 0 for handles at one third)."""
    span = d - a
    h1, h2 = (b - a) / span, (d - c) / span
    return np.array([3.0 * h1, 3.0 * (1.0 - 2.0 * h1 - h2), 3.0 * (h1 + h2) - 2.0])


def bezier_parameter(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """s in [0, 1] with x(s) = q for time control points x (T, 4)."""
    a, b, c, d = np.asarray(x, dtype=np.float64).T
    u = (np.asarray(q, dtype=np.float64) - a) / (d - a)
    t1, t2, t3 = _time_cubic(a, b, c, d)
    return _time_parameter(t1, t2, t3, u, np.empty(len(u)), np.empty((2, len(u))))


def _time_parameter(t1, t2, t3, u, s, work):
    """Into ``s`` (not ``u``): s in [0, 1] with s (t1 + s (t2 + s t3)) = u, the time in spans
    from the key. Blender keeps handles within their segment in time, which makes this monotonic,
    and its handles near one third, which makes it nearly s = u: two Newton steps from the linear
    guess u then converge (residual _CONVERGED), checked on every sample. The others take more
    Newton steps; where those do not converge either (handles far from one third, x'(s) near 0),
    bisection brackets s, Newton steps inside the bracket finish it to _RESOLUTION, and samples
    where Newton still stalls are bisected to the end. ``work``: two arrays like u."""
    residual, slope = work
    np.copyto(s, u)
    with np.errstate(divide="ignore", invalid="ignore"):  # x'(s) = 0: the residual check catches s
        for _ in range(_FIRST_STEPS):
            _cubic(t1, t2, t3, s, u, residual, slope)
            s -= np.divide(residual, slope, out=residual)
            np.clip(s, 0.0, 1.0, out=s)
    np.abs(_cubic(t1, t2, t3, s, u, residual), out=residual)
    if residual.size and residual.max() <= _CONVERGED:  # the usual case: one pass to know
        return s
    pending = np.flatnonzero(~(residual <= _CONVERGED))  # NaN too: s is NaN after a 0 / 0
    p1, p2, p3, pu = (v[pending] for v in (t1, t2, t3, u))
    solved = pu.copy()  # from the linear guess again: s may be NaN
    stalled = _newton(p1, p2, p3, pu, solved, _NEWTON_STEPS)
    if stalled.size:
        solved[stalled] = _bracketed(p1[stalled], p2[stalled], p3[stalled], pu[stalled])
    s[pending] = solved
    return s


def _newton(t1, t2, t3, u, s, steps):
    """``steps`` Newton steps on s, in place, kept in [0, 1] and without a step where the slope is
    not positive; returns the indices of the samples that have not converged (_CONVERGED)."""
    slope = np.empty(len(s))
    for _ in range(steps):
        residual = _cubic(t1, t2, t3, s, u, slope=slope)
        s -= residual / np.where(slope > 0.0, slope, np.inf)
        np.clip(s, 0.0, 1.0, out=s)
    return np.flatnonzero(~(np.abs(_cubic(t1, t2, t3, s, u)) <= _CONVERGED))


def _cubic(t1, t2, t3, s, u, p=None, slope=None):
    """Into ``p``: s (t1 + s (t2 + s t3)) - u, and if given into ``slope`` its derivative in s
    (Horner for both); returns p."""
    p = np.multiply(t3, s, out=p)
    p += t2
    if slope is not None:
        np.multiply(t3, s, out=slope)
        slope += p
    p *= s
    p += t1
    if slope is not None:
        slope *= s
        slope += p
    p *= s
    p -= u
    return p


def _bracketed(t1, t2, t3, u):
    """The solve for samples where Newton from the linear guess stalls: bisection brackets s,
    Newton steps inside the bracket, and bisection to the end where they stall again."""
    low, high = _bisect(t1, t2, t3, u, np.zeros(len(u)), np.ones(len(u)), _BRACKET_STEPS)
    s = 0.5 * (low + high)
    slope = np.empty(len(u))
    for _ in range(_NEWTON_STEPS):
        residual = _cubic(t1, t2, t3, s, u, slope=slope)
        s = np.clip(s - residual / np.where(slope > 0.0, slope, np.inf), low, high)
    stalled = np.flatnonzero(np.abs(_cubic(t1, t2, t3, s, u)) > _RESOLUTION)
    if stalled.size:
        low, high = _bisect(t1[stalled], t2[stalled], t3[stalled], u[stalled], low[stalled],
                            high[stalled], _BISECTIONS - _BRACKET_STEPS)
        s[stalled] = 0.5 * (low + high)
    return s


def _bisect(t1, t2, t3, u, low, high, steps):
    for _ in range(steps):  # per halving step, over all samples at once
        mid = 0.5 * (low + high)
        below = _cubic(t1, t2, t3, mid, u) < 0.0
        low = np.where(below, mid, low)
        high = np.where(below, high, mid)
    return low, high
