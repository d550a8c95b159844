"""Sampler evaluation: glTF 2.0 STEP, LINEAR, CUBICSPLINE (Appendix C) and EXT_animation_sqlerp
CUBICSLERP (spec "CUBICSLERP Interpolation"), for whole arrays of query times at once.

Rules shared by every interpolation (core spec, "Animations"): before the first key and after the
last the value is clamped; at a key time the key's value is returned as stored (bit for bit); a
sampler with one key is constant. Rotation results between keys are normalized.

Work that depends only on the segment (arc angles and directions, Hermite coefficients) is done
once per segment and gathered per sample, so the per-sample cost is a handful of vector operations.
"""

from collections.abc import Callable
from typing import TypeVar, cast

import numpy as np
import numpy.typing as npt

from . import quaternions as quat
from ..constants import CUBICSLERP, CUBIC_INTERPOLATIONS, INTERPOLATIONS


# Samples per block. Per-sample temporaries (a few (4, CHUNK) float64 arrays) then stay in the
# L2 cache instead of streaming through memory: about 25% faster than whole-array passes. The loop
# is per block of samples, never per sample or per key.
CHUNK = 16384

# kernel(k, t, out, ordered): a block's samples at segments k, parameters t, written into out.
Kernel = Callable[[npt.NDArray[np.intp], npt.NDArray[np.float64], npt.NDArray[np.float64], bool], None]
_Scalar = TypeVar("_Scalar", bound=np.generic)


def evaluate(interpolation: str, times: npt.ArrayLike, values: npt.ArrayLike, query: npt.ArrayLike, *,
             rotation: bool = False) -> npt.NDArray[np.float64]:
    """Evaluate a sampler at the query times as the glTF spec plays it.

    Parameters: ``interpolation`` (STEP, LINEAR, CUBICSPLINE or CUBICSLERP); ``times`` (n,)
    strictly increasing; ``values`` (n, k) for STEP/LINEAR, (3n, k) rows (a_i, v_i, b_i)
    interleaved for CUBICSPLINE/CUBICSLERP; ``query`` (T,) seconds, clamped to the keys;
    ``rotation``: k == 4 quaternions (x, y, z, w), LINEAR becomes slerp and CUBICSPLINE results
    are normalized (CUBICSLERP is rotation-only by definition). a_1 and b_n are never read, so any
    value (zeros) is fine. Returns (T, k).

    >>> evaluate("LINEAR", [0.0, 2.0], [[0.0], [10.0]], [-1.0, 0.5, 3.0]).tolist()  # clamped outside
    [[0.0], [2.5], [10.0]]
    >>> evaluate("STEP", [0.0, 1.0], [[1.0], [2.0]], [0.99, 1.0]).tolist()
    [[1.0], [2.0]]
    """
    return Evaluator(interpolation, times, values, rotation=rotation)(query)


def slerp_keys(times: npt.NDArray[np.float64], values: npt.NDArray[np.float64],
               query: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """A LINEAR rotation sampler (two or more keys) at sorted or unsorted ``query`` seconds, as
    Evaluator plays it (the segment by the key times, Appendix C slerp, normalized, a key's own
    value at its time, clamped at the ends), without its set-up: where a sampler of a few keys is
    played once (the export's reductions and world passes, 0.15-0.25 ms a set-up each)."""
    k = np.clip(np.searchsorted(times, query, side="right") - 1, 0, len(times) - 2)
    span = times[k + 1] - times[k]
    u = np.clip((query - times[k]) / np.where(span > 0.0, span, 1.0), 0.0, 1.0)
    played = quat.normalize(quat.slerp(values[k], values[k + 1], u))
    start, end = u == 0.0, u == 1.0
    played[start], played[end] = values[k[start]], values[k[end] + 1]
    return played


class Evaluator:
    """A sampler set up for evaluation once: the per-segment work (arcs, Hermite coefficients) is
    done here, so evaluating it many times, as the keyframe fitter does, costs only per-sample work.
    """

    def __init__(self, interpolation: str, times: npt.ArrayLike, values: npt.ArrayLike, *,
                 rotation: bool = False) -> None:
        if interpolation not in INTERPOLATIONS:
            raise ValueError(f"unknown interpolation {interpolation!r}; expected one of "
                             f"{INTERPOLATIONS}")
        self.times = np.asarray(times, dtype=np.float64).reshape(-1)
        values = np.asarray(values, dtype=np.float64)
        if values.ndim == 1:
            values = values[:, None]
        _check_shapes(interpolation, self.times, values, rotation)
        self.step = interpolation == "STEP"
        self.keys = values[1::3] if interpolation in CUBIC_INTERPOLATIONS else values
        self.durations = np.diff(self.times)
        self.kernel: Kernel | None = None
        if len(self.times) > 1 and not self.step:
            self.kernel = _kernel(interpolation, self.times, values, self.keys, rotation)

    def __call__(self, query: npt.ArrayLike) -> npt.NDArray[np.float64]:
        times, keys = self.times, self.keys
        query = np.asarray(query, dtype=np.float64).reshape(-1)
        if len(times) == 1:
            return np.repeat(keys[:1], len(query), axis=0)
        if self.step:
            index = np.searchsorted(times, query, side="right") - 1
            return keys[np.clip(index, 0, len(times) - 1)]
        out = np.empty((len(query), keys.shape[1]))
        ordered = len(query) > 1 and bool((query[1:] >= query[:-1]).all())
        kernel = cast(Kernel, self.kernel)  # set above for two keys or more, unless STEP
        for start in range(0, len(query), CHUNK):
            block = out[start:start + CHUNK]
            k, t = segment_parameters(times, self.durations, query[start:start + CHUNK], ordered)
            kernel(k, t, block, ordered)
            _restore_keys(block, keys, k, t)
        return out


def _kernel(interpolation, times, values, keys, rotation):
    """Per-segment set-up, done once; returns f(k, t, out) writing those samples into out."""
    if interpolation == "LINEAR" and not rotation:
        delta = np.diff(keys, axis=0)

        def lerp(k, t, out, ordered):
            np.multiply(delta[k], t[:, None], out=out)
            out += keys[k]
        return lerp
    if interpolation == "LINEAR":
        arc = Arcs(keys[:-1], keys[1:])

        def slerp(k, t, out, ordered):
            j, u = nearer_end(k, t)
            _store_normalized(arc.at(Gather(j, ordered), u), out)
        return slerp
    if interpolation == "CUBICSPLINE":
        coeffs = hermite_coefficients(times, values)
        if rotation:
            return lambda k, t, out, ordered: _store_normalized(_horner(coeffs, k, t).T, out)
        return lambda k, t, out, ordered: np.copyto(out, _horner(coeffs, k, t))
    return _cubicslerp_kernel(values)


def _check_shapes(interpolation, times, values, rotation):
    n = len(times)
    if n == 0:
        raise ValueError("a sampler needs at least one key")
    rows = 3 * n if interpolation in CUBIC_INTERPOLATIONS else n
    if values.ndim != 2 or values.shape[0] != rows:
        raise ValueError(f"{interpolation} with {n} keys needs {rows} value rows, "
                         f"got {values.shape}")
    if (rotation or interpolation == CUBICSLERP) and values.shape[1] != 4:
        raise ValueError(f"rotations are (x, y, z, w) quaternions, "
                         f"got {values.shape[1]} components")


def segment_parameters(times: npt.NDArray[np.float64], durations: npt.NDArray[np.float64],
                       query: npt.NDArray[np.float64],
                       ordered: bool = False) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """Segment index k (t_k <= q <= t_{k+1}, clamped to the first/last segment) and t in [0, 1].

    side="right" puts a query equal to t_k at the start of segment k, so t is exactly 0 there;
    at t_n, t = (t_n - t_{n-1}) / (t_n - t_{n-1}) is exactly 1. Clipping t clamps outside the keys.
    ``ordered``: the queries are sorted (segment_index's cheaper way).
    """
    if ordered:
        first, runs = segment_runs(times, query)
        end = first + len(runs)
        k = np.repeat(np.arange(first, end), runs)
        start, duration = np.repeat(times[first:end], runs), np.repeat(durations[first:end], runs)
    else:
        k = segment_index(times, query)
        start, duration = times[k], durations[k]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = query - start
        t /= duration
    np.clip(t, 0.0, 1.0, out=t)
    if not durations.all():
        # Equal key times only pass validation in accessors without data (all zeros): such a
        # segment is a jump, taken once the query reaches it (0/0 would give NaN).
        jump = durations[k] == 0.0
        t[jump] = query[jump] >= times[k[jump] + 1]
    return k, t


def segment_index(times: npt.NDArray[np.float64], query: npt.NDArray[np.float64], ordered: bool = False,
                  out: npt.NDArray[np.intp] | None = None) -> npt.NDArray[np.intp]:
    """Per query, the last of the sorted ``times`` at or before it, clamped to 0 .. len(times) - 2
    (its segment), as int64, into ``out`` if given.

    ``ordered``: the queries are sorted too (dense sampling). Then one binary search per key finds
    where its segment starts in the queries, and each segment's index is repeated over its run: a
    tenth of the cost of a binary search per query (64,000 queries, 1,600 keys: 55 against 520 us).
    """
    if ordered:
        first, runs = segment_runs(times, query)
        k = np.repeat(np.arange(first, first + len(runs)), runs)
        if out is None:
            return k
        out[...] = k
        return out
    k = np.searchsorted(times, query, side="right")
    k -= 1
    return np.clip(k, 0, len(times) - 2, out=out if out is not None else k)


def nearest_index(times: npt.NDArray[np.float64], query: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """Per query, the index of the nearest of the sorted ``times`` (at least two; the earlier one
    on a tie, as float subtraction measures the distances)."""
    index = np.clip(np.searchsorted(times, query), 1, len(times) - 1)
    index -= query - times[index - 1] <= times[index] - query
    return index


def segment_runs(times: npt.NDArray[np.float64],
                 query: npt.NDArray[np.float64]) -> tuple[int | np.intp, npt.NDArray[np.intp]]:
    """For sorted ``query``: (first, runs), the queries falling in segments first, first + 1, ...
    of ``times`` (as segment_index assigns them), runs[i] of them in segment first + i. Only the
    keys inside the queries' span are searched and counted (a block of samples spans a few of
    thousands of keys)."""
    inner = times[1:-1]
    if not len(query):
        return 0, np.zeros(0, dtype=np.intp)
    first, last = np.searchsorted(inner, query[[0, -1]], side="right")
    starts = np.searchsorted(query, inner[first:last], side="left")
    return first, np.diff(starts, prepend=0, append=len(query))


class Gather:
    """``x[..., index]`` of several arrays for one index. A sorted index (a dense, sorted sampling)
    is taken as runs of equal values: np.repeat copies each value over its run, 3 to 4 times
    faster than np.take (64,000 samples in 1,000 runs: 12 against 39 us per 1-D array, 96 against
    360 us per (4, n) array)."""

    def __init__(self, index: npt.NDArray[np.intp], ordered: bool = False) -> None:
        self.index = index
        # The index as runs: each run's value and length (None: taken as it is).
        self.values: npt.NDArray[np.intp] | None = None
        self.counts: npt.NDArray[np.intp] | None = None
        if ordered and len(index) > 1:
            first = np.flatnonzero(index[1:] != index[:-1])
            if 4 * len(first) < len(index):  # runs of 4 samples or more on average
                first += 1
                first = np.concatenate(([0], first))
                self.values, self.counts = index[first], np.diff(first, append=len(index))

    def __call__(self, x: npt.NDArray[_Scalar], axis: int = -1) -> npt.NDArray[_Scalar]:
        values, counts = self.values, self.counts
        if values is None or counts is None:  # set together, where the index has runs
            return np.take(x, self.index, axis=axis, mode="clip")
        return np.repeat(np.take(x, values, axis=axis, mode="clip"), counts, axis=axis)


def _restore_keys(out, keys, k, t):
    """Exact key times and clamped queries get the stored key value, unrounded and unnormalized."""
    start = t == 0.0
    if start.any():
        out[start] = keys[k[start]]
    end = t == 1.0
    if end.any():
        out[end] = keys[k[end] + 1]


class Arcs:
    """Appendix C slerp along each segment's arc a[k] -> b[k], set up once per segment.

    Both ends are kept (index 2k starts at a, 2k + 1 at b'), and a sample uses the nearer one, so
    its phase is at most a quarter turn and slerp costs a single sin (quaternions.slerp_from_basis).
    Arrays are component-major (4, ...): numpy is slow on a trailing axis of length 4.
    """

    def __init__(self, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64],
                 dtype: type[np.floating] = np.float64) -> None:
        """``dtype``: what the samples are worked in (core.fitting.screening: float32); the set-up is
        float64 and rounded once."""
        starts, e, angle, tiny = quat.slerp_ends(a.T, b.T, axis=0)   # (2, 4, m), (2, m)
        self.starts = np.ascontiguousarray(starts.transpose(1, 2, 0).reshape(4, -1), dtype=dtype)
        self.e = np.ascontiguousarray(e.transpose(1, 2, 0).reshape(4, -1), dtype=dtype)
        self.angle = np.ascontiguousarray(angle.T.reshape(-1), dtype=dtype)
        self.tiny = np.ascontiguousarray(tiny.T.reshape(-1))

    def at(self, j: Gather, u: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
        """(4, len(u)) slerp at the ends (a Gather of the indices from nearer_end()) and
        parameters u: quaternions' slerp_from_basis, the same operations in the same order (the
        same bits), worked in the gathered arrays instead of fresh ones (fresh large arrays cost
        page faults)."""
        a, e = j(self.starts), j(self.e)
        tiny = np.flatnonzero(j(self.tiny))
        if len(tiny):  # Appendix C's lerp and normalize: a + u e, e = b' - a there
            lerp = a[:, tiny] + e[:, tiny] * u[tiny]
        s = j(self.angle)
        s *= u
        np.sin(s, out=s)
        a = turned(a, e, s, s)
        if len(tiny):
            # C order, as slerp_from_basis normalizes: einsum sums other layouts in another order
            a[:, tiny] = quat.normalize(np.ascontiguousarray(lerp), axis=0)
        return a


def turned(a: npt.NDArray[np.floating], e: npt.NDArray[np.floating], sine: npt.NDArray[np.floating],
           scale: npt.NDArray[np.floating] | float) -> npt.NDArray[np.floating]:
    """a cos + e scale, in place in a and e, with cos = sqrt((1 - sin)(1 + sin)) from ``sine``
    (exact to rounding for phases up to a quarter turn, where cos >= 0.7; one sin instead of
    two, the slowest numpy calls here)."""
    cosine = 1.0 - sine
    cosine *= 1.0 + sine
    np.sqrt(cosine, out=cosine)
    a *= cosine
    e *= scale
    a += e
    return a


def nearer_end(k: npt.NDArray[np.intp],
               t: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """Arc end index j (2k, or 2k + 1 past the middle) and its parameter u = min(t, 1 - t)."""
    far = t > 0.5
    j = k + k
    j += far
    u = 1.0 - t
    np.minimum(u, t, out=u)
    return j, u


def hermite_coefficients(times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Appendix C cubic Hermite spline, tangents scaled by the segment duration td:

    p(t) = (2t^3-3t^2+1) v_k + (t^3-2t^2+t) td b_k + (-2t^3+3t^2) v_{k+1} + (t^3-t^2) td a_{k+1},
    regrouped per segment into c0 + t (c1 + t (c2 + t c3)): (segments, 4, k).
    """
    a, v, b = values[0::3], values[1::3], values[2::3]
    td = np.diff(times)[:, None]
    v0, v1 = v[:-1], v[1:]
    m0, m1 = td * b[:-1], td * a[1:]
    return np.stack([v0, m0, 3.0 * (v1 - v0) - 2.0 * m0 - m1, 2.0 * (v0 - v1) + m0 + m1], axis=1)


def _horner(coeffs, k, t):
    c = coeffs[k]
    tc = t[:, None]
    out = c[:, 3] * tc
    out += c[:, 2]
    out *= tc
    out += c[:, 1]
    out *= tc
    out += c[:, 0]
    return out


def _cubicslerp_kernel(values):
    """q(t) = slerp(slerp(v_k, v_{k+1}, t), slerp(b_k, a_{k+1}, t), 2t(1-t)), normalized.

    The outer parameter 2t(1-t) is at most 1/2, so the outer slerp starts at its first operand.
    """
    a, v, b = values[0::3], values[1::3], values[2::3]
    keys_arc, tangents_arc = Arcs(v[:-1], v[1:]), Arcs(b[:-1], a[1:])

    def kernel(k, t, out, ordered):
        j, u = nearer_end(k, t)
        j = Gather(j, ordered)
        p = keys_arc.at(j, u)
        s = tangents_arc.at(j, u)
        h = 1.0 - t
        h *= t
        h *= 2.0
        e, angle, tiny = quat.slerp_basis(p, s, axis=0)
        _store_normalized(quat.slerp_from_basis(p, e, angle, tiny, h, axis=0), out)
    return kernel


def _store_normalized(q, out):
    """Component-major (4, m) quaternions, normalized, into out (m, 4). Column by column: numpy
    copies a transposed block three times slower than four strided columns. A zero quaternion
    (only a degenerate CUBICSPLINE can give one) stays zero, as in quaternions.normalize."""
    inverse = np.einsum("ij,ij->j", q, q)
    np.sqrt(inverse, out=inverse)
    np.divide(1.0, inverse, out=inverse, where=inverse > 0.0)
    for i in range(4):
        np.multiply(q[i], inverse, out=out[:, i])
