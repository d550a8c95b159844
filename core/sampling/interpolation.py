"""Sampler evaluation: glTF 2.0 STEP, LINEAR, CUBICSPLINE (Appendix C) and EXT_animation_sqlerp
CUBICSLERP (spec "CUBICSLERP Interpolation"), for whole arrays of query times at once.

Rules shared by every interpolation (core spec, "Animations"): before the first key and after the
last the value is clamped; at a key time the key's value is returned as stored (bit for bit); a
sampler with one key is constant. Rotation results between keys are normalized.

Work that depends only on the segment (arc angles and directions, Hermite coefficients) is done
once per segment and gathered per sample, so the per-sample cost is a handful of vector operations:
the segment of each sample comes from core.sampling.segments, the arcs from core.sampling.arcs.
"""

from collections.abc import Callable
from typing import cast

import numpy as np
import numpy.typing as npt

from . import quaternions as quat
from .arcs import Arcs, Gather, nearer_end
from .segments import segment_parameters
from ..constants import CUBICSLERP, CUBIC_INTERPOLATIONS, INTERPOLATIONS


# Samples per block. Per-sample temporaries (a few (4, CHUNK) float64 arrays) then stay in the
# L2 cache instead of streaming through memory, which beats whole-array passes (measured:
# docs/manual/benchmarks.md, "Kernel choices"). The loop is per block of samples, never per
# sample or per key.
CHUNK = 16384

# kernel(k, t, out, ordered): a block's samples at segments k, parameters t, written into out.
Kernel = Callable[[npt.NDArray[np.intp], npt.NDArray[np.float64], npt.NDArray[np.float64], bool], None]


def evaluate(interpolation: str, times: npt.ArrayLike, values: npt.ArrayLike, query: npt.ArrayLike, *,
             rotation: bool = False) -> npt.NDArray[np.float64]:
    """Evaluate a sampler at the query times as the glTF spec plays it.

    Parameters
    ----------
    interpolation : str
        STEP, LINEAR, CUBICSPLINE or CUBICSLERP.
    times : (n,) float array
        Key times in seconds, strictly increasing.
    values : (n, k) or (3n, k) float array
        (n, k) for STEP and LINEAR; (3n, k) rows (a_i, v_i, b_i) interleaved for CUBICSPLINE
        and CUBICSLERP. a_1 and b_n are never read, so any value (zeros) is fine.
    query : (T,) float array
        Seconds, clamped to the keys.
    rotation : bool
        k == 4 quaternions (x, y, z, w): LINEAR becomes slerp, CUBICSPLINE results are normalized
        (CUBICSLERP is rotation-only by definition).

    Returns
    -------
    (T, k) float64 array
        The sampler's values at ``query``.

    Raises
    ------
    ValueError
        An unknown interpolation, no keys, or ``values`` of the wrong shape.

    Examples
    --------
    >>> evaluate("LINEAR", [0.0, 2.0], [[0.0], [10.0]], [-1.0, 0.5, 3.0]).tolist()  # clamped outside
    [[0.0], [2.5], [10.0]]
    >>> evaluate("STEP", [0.0, 1.0], [[1.0], [2.0]], [0.99, 1.0]).tolist()
    [[1.0], [2.0]]
    """
    return Evaluator(interpolation, times, values, rotation=rotation)(query)


def slerp_keys(times: npt.NDArray[np.float64], values: npt.NDArray[np.float64],
               query: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Play a LINEAR rotation sampler once, as Evaluator plays it, without its set-up.

    The segment by the key times, Appendix C slerp, normalized, a key's own value at its time,
    clamped at the ends: for samplers of a few keys played once (the export's reductions and world
    passes), where Evaluator's per-segment set-up would cost more than it saves (measured:
    docs/manual/benchmarks.md, "Kernel choices").

    Parameters
    ----------
    times : (n,) float array
        Key times in seconds, strictly increasing, at least two.
    values : (n, 4) float array
        Unit quaternions (x, y, z, w).
    query : (T,) float array
        Seconds, sorted or not.

    Returns
    -------
    (T, 4) float64 array
        The rotations at ``query``.

    Examples
    --------
    >>> import numpy as np
    >>> keys = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)]])  # 0 and 90 deg about Z
    >>> slerp_keys(np.array([0.0, 2.0]), keys, np.array([1.0, 3.0])).round(6).tolist()  # 45 deg; clamped
    [[0.0, 0.0, 0.382683, 0.92388], [0.0, 0.0, 0.707107, 0.707107]]
    """
    k = np.clip(np.searchsorted(times, query, side="right") - 1, 0, len(times) - 2)
    span = times[k + 1] - times[k]
    u = np.clip((query - times[k]) / np.where(span > 0.0, span, 1.0), 0.0, 1.0)
    played = quat.normalize(quat.slerp(values[k], values[k + 1], u))
    start, end = u == 0.0, u == 1.0
    played[start], played[end] = values[k[start]], values[k[end] + 1]
    return played


class Evaluator:
    """A sampler set up once for evaluation, then called with query times.

    The per-segment work (arcs, Hermite coefficients) is done here, so evaluating it many times,
    as the keyframe fitter does, costs only per-sample work. The arguments are evaluate's; it
    raises ValueError as evaluate does.

    Attributes
    ----------
    times : (n,) float64 array
        Key times in seconds.
    keys : (n, k) float64 array
        Key values, without the tangents of a cubic sampler.
    durations : (n - 1,) float64 array
        Segment lengths in seconds.
    step : bool
        A STEP sampler.
    kernel : callable or None
        kernel(k, t, out, ordered) writes samples at segments k and parameters t into out; None
        for STEP and for one key.

    Examples
    --------
    >>> spline = Evaluator("CUBICSPLINE", [0.0, 1.0], [[0.0], [0.0], [2.0], [1.0], [1.0], [0.0]])
    >>> spline([0.5, 1.0]).tolist()  # Appendix C: 0.5 v_0 + 0.125 b_0 + 0.5 v_1 - 0.125 a_1
    [[0.625], [1.0]]
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
        """Evaluate at (T,) ``query`` seconds: (T, k) float64 values."""
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
            store_normalized(arc.at(Gather(j, ordered), u), out)
        return slerp
    if interpolation == "CUBICSPLINE":
        coeffs = hermite_coefficients(times, values)
        if rotation:
            return lambda k, t, out, ordered: store_normalized(_horner(coeffs, k, t).T, out)
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


def _restore_keys(out, keys, k, t):
    """Exact key times and clamped queries get the stored key value, unrounded and unnormalized."""
    start = t == 0.0
    if start.any():
        out[start] = keys[k[start]]
    end = t == 1.0
    if end.any():
        out[end] = keys[k[end] + 1]


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
        store_normalized(quat.slerp_from_basis(p, e, angle, tiny, h, axis=0), out)
    return kernel


def store_normalized(q: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> None:
    """Component-major (4, m) quaternions, normalized, into out (m, 4). Column by column: numpy
    copies a transposed block slower than four strided columns (measured: docs/manual/benchmarks.md,
    "Kernel choices"). A zero quaternion (only a degenerate CUBICSPLINE can give one) stays zero,
    as in quaternions.normalize."""
    inverse = np.einsum("ij,ij->j", q, q)
    np.sqrt(inverse, out=inverse)
    np.divide(1.0, inverse, out=inverse, where=inverse > 0.0)
    for i in range(4):
        np.multiply(q[i], inverse, out=out[:, i])
