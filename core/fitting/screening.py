"""A float32 first pass of the dense checks: the CUBICSLERP fit's against the motion, the LINEAR
fallback's against the CUBICSLERP curve.

Both checks evaluate a curve at tens of thousands of check times per channel and keep the largest
angle per segment; nearly every segment passes by a wide margin (of the final segments of
1,000-key tracks, 1 % come within 6 % of the limit). In float32, numpy's sin runs many times
faster than in float64 (it is vectorized for float32 only) and every other operation faster too
(measured: docs/manual/benchmarks.md, "Kernel choices"), so the checks evaluate everything in
float32 first and only the segments within MARGIN_CHORD of the limit again in float64
(core.sampling.interpolation), which decides there.

MARGIN_CHORD is how far the float32 pass may put a chord (between the played and the expected
rotation, both unit quaternions) from its float64 value. Every quantity here is a unit quaternion,
an angle of at most pi or a parameter in [0, 1], so each operation adds a few units of float32
rounding (u = 2^-24) at most, and the errors of its operations do not grow through the chain: on
100 channels of 1,000-key Blender tracks (6.6 million samples) the chords differ by 2.8 u at most,
and tests/core/test_screening.py holds each curve to 8 u of the draft's formulas on random keys (nearly
equal and nearly opposite neighbours included) and a chord of float32-rounded rotations to 4 u.
The margin is 32 u, enough for two curves and a chord (the LINEAR fallback's first pass compares
its slerp with the screened CUBICSLERP curve): at the fit's limit (0.009 degrees) 2.4 % of the
chord; on those tracks 2.2 % of the segments are played again in float64 (for a decision or for
the reported maximum).
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..sampling import CHUNK, Arcs, Gather, nearer_end, segment_parameters, turned

MARGIN_CHORD = 32 * 2.0 ** -24


def cubicslerp(times: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """(4, len(query)) float32 CUBICSLERP curve of keys at ``times`` with interleaved, normalized
    ``rows`` (a_i, v_i, b_i) at the sorted ``query`` times inside them."""
    v, a, b = rows[1::3], rows[0::3], rows[2::3]
    keys_arc, tangents_arc = Arcs(v[:-1], v[1:], np.float32), Arcs(b[:-1], a[1:], np.float32)

    def kernel(k, t, out):
        j, u = nearer_end(k, t)
        j, u = Gather(j, ordered=True), u.astype(np.float32)
        p = keys_arc.at(j, u)
        _outer_slerp(p, tangents_arc.at(j, u), (2.0 * t * (1.0 - t)).astype(np.float32), out)
    return _blocks(times, query, kernel)


def slerp(times: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """(4, len(query)) float32 LINEAR (slerp) curve of unit ``values`` at ``times``."""
    arc = Arcs(values[:-1], values[1:], np.float32)

    def kernel(k, t, out):
        j, u = nearer_end(k, t)
        _normalize(arc.at(Gather(j, ordered=True), u.astype(np.float32)), out)
    return _blocks(times, query, kernel)


def lowered(chord2: float, margins: int = 1) -> float:
    """The squared chord ``margins`` x MARGIN_CHORD below ``chord2`` (0 at least): a float32
    squared chord at most lowered(limit) is at most ``limit`` in float64."""
    return np.maximum(np.sqrt(chord2) - margins * MARGIN_CHORD, 0.0) ** 2


def as_float32(q: npt.ArrayLike) -> np.ndarray:
    """(n, 4) quaternions as (4, n) float32, the layout the screening works in."""
    return np.ascontiguousarray(np.asarray(q).T, dtype=np.float32)


def chord2(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Squared chord |p - sign(p.q) q| (sign-free) of (4, n) float32 quaternions, as float32."""
    d = q * signs(dot(p, q))
    np.subtract(p, d, out=d)
    return dot(d, d)


def dot(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per-column dot of component-major (4, n) quaternions, in their dtype."""
    return np.einsum("ij,ij->j", p, q)


def signs(dots: np.ndarray) -> np.ndarray:
    """-1 where a dot is negative, else 1, in its dtype (float32 work stays float32)."""
    return np.where(dots < 0.0, dots.dtype.type(-1.0), dots.dtype.type(1.0))


def _blocks(times, query, kernel):
    durations = np.diff(times)
    out = np.empty((4, len(query)), dtype=np.float32)
    for start in range(0, len(query), CHUNK):
        k, t = segment_parameters(times, durations, query[start:start + CHUNK], ordered=True)
        kernel(k, t, out[:, start:start + CHUNK])
    return out


def _outer_slerp(p, s, h, out):
    """slerp(p, s, h) for h <= 1/2 in float32: p cos(h angle) + e sin(h angle), e the unit part
    of s' = sign(p.s) s orthogonal to p, written as the orthogonal part times sin / its length
    (which tends to h / |p.s| as the angle vanishes: the lerp branch's limit)."""
    d = dot(p, s)
    s -= p * d
    length = np.sqrt(dot(s, s))
    angle = np.arctan2(length, np.abs(d))
    angle *= h
    sine = np.sin(angle)
    ratio = np.divide(sine, length, out=np.copy(h), where=length > 0.0)
    ratio *= signs(d)
    _normalize(turned(p, s, sine, ratio), out)


def _normalize(q, out):
    inverse = np.sqrt(dot(q, q))
    np.divide(np.float32(1.0), inverse, out=inverse, where=inverse > 0.0)
    np.multiply(q, inverse, out=out)


def settled_max(worst: np.ndarray, exact: np.ndarray, recheck: Callable[[np.ndarray], np.ndarray]) -> float:
    """The largest float64 error of segments whose squared chords ``worst`` are float64 where
    ``exact`` and float32 elsewhere: those within two margins of the largest are first replaced
    by ``recheck(segments)`` (their float64 squared chords); any other is below the float64 error
    of the one that comes out largest."""
    if not len(worst):
        return 0.0
    close = np.flatnonzero(~exact & (worst >= lowered(worst.max(), margins=2)))
    if len(close):
        worst = worst.copy()
        worst[close] = recheck(close)
    return float(worst.max())


def runs(starts: np.ndarray, total: int, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(index, offsets, lengths) of the given segments' runs of sorted check times: their check
    indices in order, where each run begins among those and its length. ``starts``: where each
    segment's run begins among the ``total`` check times (a searchsorted of its first key)."""
    begins, ends = starts[segments], np.append(starts[1:], total)[segments]
    index, offsets = ranges(begins, ends)
    return index, offsets, ends - begins


def ranges(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenated aranges [starts[i], ends[i]) and where each begins in the result."""
    lengths = ends - starts
    offsets = np.cumsum(lengths) - lengths
    shift = np.repeat(starts - offsets, lengths)
    return np.arange(lengths.sum()) + shift, offsets


def group_argmax(x: np.ndarray, offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Position in x of the maximum of each non-empty group x[offsets[i]:offsets[i] + lengths[i]]
    (the first, where several are equal)."""
    index, starts = ranges(offsets, offsets + lengths)
    order = np.lexsort((-x[index], np.repeat(np.arange(len(offsets)), lengths)))
    return index[order[starts]]


def group_max(x: np.ndarray, offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Maximum of each group x[offsets[i]:offsets[i] + lengths[i]] (0 for an empty one)."""
    if not len(x):
        return np.zeros(len(offsets))
    # A sentinel after x: an empty last group starts at len(x) and must not cut the group before
    # it short, as clipping its offset to len(x) - 1 would (reduceat stops at the next offset).
    worst = np.maximum.reduceat(np.append(x, 0.0), offsets)
    return np.where(lengths > 0, worst, 0.0)
