"""Exact keys for KHR_animation_pointer properties that are not a node's own (materials, cameras,
lights, texture transforms).

Blender's bundled importer turns each such value into a Blender property with a conversion of its
own (identity for colours and factors, a scale for light intensity, ``lens`` from ``yfov``, ...),
some of them not linear, so the spec's curve cannot be mapped key by key as node channels are.
Instead the importer is handed the spec's curve sampled densely (``dense_samples``): at every key
and at SAMPLES_PER_FRAME times a frame on the scene's frame grid, as LINEAR (STEP: the keys alone,
as CONSTANT). It converts each sample itself, so every sample is the exact Blender value at its
time. ``fit_samples`` then gives each F-curve the fewest keys that follow all its samples within
``tolerance``: between the file's keys (where a CUBICSPLINE or LINEAR curve may have a corner) one
LINEAR or Bezier segment where that suffices, split at the worst sample where it does not. Bezier
handles sit at a third of their segment, so Blender plays a cubic in time there: under a linear
conversion a CUBICSPLINE segment is one exact Bezier segment and a LINEAR one a LINEAR segment, and
only curved conversions (``lens``) need more keys. Frames and half frames are samples, so Blender
plays the spec there within the tolerance, whatever the conversion.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..blender_model import Keyframes
from ..gltf import as_stored
from ..sampling import SAMPLES_PER_FRAME, Sampler

# Tolerance of a pointer property: this fraction of the range its F-curve spans in the clip,
# and never below what float32 keys can hold (a few units in the last place of its largest value).
RANGE_FRACTION = 5e-6
_FLOAT32_UNITS = 4.0 * 2.0 ** -23


@dataclass(frozen=True)
class PointerSamples:
    """What the importer is given for one pointer sampler: ``times`` (n,) seconds, ``values``
    (n, k) glTF values, to be played ``interpolation`` (LINEAR, or STEP for a STEP sampler), and
    ``knots``: indices of the samples at the sampler's own keys."""
    times: np.ndarray
    values: np.ndarray
    interpolation: str
    knots: np.ndarray


def dense_samples(sampler: Sampler, frames_per_second: float) -> PointerSamples:
    """The spec's curve of ``sampler`` sampled for the importer (see the module's text)."""
    keys = sampler.times
    if sampler.interpolation == "STEP" or len(keys) < 2:
        kind = "STEP" if sampler.interpolation == "STEP" else "LINEAR"
        return PointerSamples(keys.copy(), sampler.keys.copy(), kind, np.arange(len(keys)))
    step = 1.0 / (SAMPLES_PER_FRAME * frames_per_second)
    grid = np.arange(np.ceil(keys[0] / step - 1e-9), np.floor(keys[-1] / step + 1e-9) + 1) * step
    # Grid times closer to a key than float32 tells apart would make two keys at one time.
    near = np.abs(as_stored(grid, "FLOAT")[:, None] - as_stored(keys, "FLOAT")[None, :]).min(axis=1) > 0
    times = np.union1d(keys, grid[near])
    return PointerSamples(times, sampler.evaluate(times), "LINEAR", np.searchsorted(times, keys))


def tolerance(values: npt.ArrayLike) -> float:
    """The tolerance of one F-curve whose samples are ``values`` (see RANGE_FRACTION)."""
    v = np.asarray(values, dtype=np.float64)
    if not v.size:
        return 1e-12
    return max(RANGE_FRACTION * float(np.ptp(v)), _FLOAT32_UNITS * float(np.abs(v).max()), 1e-12)


def fit_samples(samples: PointerSamples, values: npt.ArrayLike) -> Keyframes:
    """Keyframes (times in seconds, one component) that play the F-curve whose value at each of
    ``samples.times`` is ``values`` within ``tolerance(values)``: CONSTANT keys at the knots for
    STEP, else LINEAR and BEZIER segments (see the module's text)."""
    t = np.asarray(samples.times, dtype=np.float64)
    y = as_stored(np.asarray(values, dtype=np.float64), "FLOAT")
    if samples.interpolation == "STEP" or len(t) < 2:
        return _keys(t, y, samples.knots, np.zeros((len(samples.knots), 2)), np.zeros(len(samples.knots), bool),
                     "CONSTANT" if samples.interpolation == "STEP" else "LINEAR")
    limit = tolerance(y)
    starts = np.unique(np.asarray(samples.knots)[:-1])
    done_starts, done_inner, done_cubic = [], [], []
    ends = np.append(starts[1:], len(t) - 1)
    while len(starts):
        inner, cubic, worst, at = _fit(t, y, starts, ends, limit)
        ok = worst <= limit
        done_starts.append(starts[ok])
        done_inner.append(inner[ok])
        done_cubic.append(cubic[ok])
        split = at[~ok]
        starts = np.concatenate([starts[~ok], split])
        ends = np.concatenate([split, ends[~ok]])
    order = np.argsort(np.concatenate(done_starts))
    knots = np.append(np.concatenate(done_starts)[order], len(t) - 1)
    return _keys(t, y, knots, np.concatenate(done_inner)[order], np.concatenate(done_cubic)[order], "LINEAR")


def _fit(t, y, starts, ends, limit):
    """Per segment (sample ``starts`` to ``ends``): its two inner Bezier values (float32), whether
    it needs them (else a line does), its largest miss and the inner sample to split it at."""
    lengths = ends - starts + 1
    segment = np.repeat(np.arange(len(starts)), lengths)
    index = starts[segment] + np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    a, b = starts[segment], ends[segment]
    u = (t[index] - t[a]) / (t[b] - t[a])
    line = y[a] + u * (y[b] - y[a])
    b1, b2 = 3 * u * (1 - u) ** 2, 3 * u * u * (1 - u)
    rest = y[index] - y[a] * (1 - u) ** 3 - y[b] * u ** 3
    sums = [np.bincount(segment, w, len(starts)) for w in (b1 * b1, b1 * b2, b2 * b2, b1 * rest, b2 * rest)]
    det = sums[0] * sums[2] - sums[1] ** 2
    safe = np.where(np.abs(det) > 1e-300, det, 1.0)
    inner = np.stack([(sums[2] * sums[3] - sums[1] * sums[4]) / safe,
                      (sums[0] * sums[4] - sums[1] * sums[3]) / safe], axis=1)
    inner = np.where((np.abs(det) > 1e-300)[:, None], as_stored(inner, "FLOAT"), 0.0)
    miss_line = _group_max(np.abs(y[index] - line), segment, len(starts))
    curve_miss = np.abs(rest - inner[segment, 0] * b1 - inner[segment, 1] * b2)
    miss_cubic = _group_max(curve_miss, segment, len(starts))
    cubic = miss_line > limit
    worst = np.where(cubic, miss_cubic, miss_line)
    interior = (index > a) & (index < b)
    score = np.where(interior, curve_miss, -1.0)
    at = index[_group_argmax(score, segment, len(starts))]
    return inner, cubic, worst, at


def _group_max(values, groups, count):
    out = np.full(count, -np.inf)
    np.maximum.at(out, groups, values)
    return out


def _group_argmax(values, groups, count):
    """Per group, the position in ``values`` of its largest value (groups are contiguous runs)."""
    order = np.lexsort((-values, groups))
    first = np.searchsorted(groups[order], np.arange(count))
    return order[np.minimum(first, len(order) - 1)]


def _keys(t, y, knots, inner, cubic, default):
    """Keyframes at the samples ``knots``; segment i (knot i to i+1) BEZIER with ``inner[i]`` where
    ``cubic[i]``, else ``default``; handles a third of the way to the neighbouring knots."""
    knots = np.asarray(knots, dtype=np.intp)
    times, values = t[knots], y[knots]
    span = np.diff(times) / 3.0 if len(times) > 1 else np.zeros(0)
    modes = np.where(cubic[:len(span)], "BEZIER", default) if len(span) else np.array([default])
    right_values = np.where(cubic[:len(span)], inner[:len(span), 0], values[:-1] + (values[1:] - values[:-1]) / 3) \
        if len(span) else values.copy()
    left_values = np.where(cubic[:len(span)], inner[:len(span), 1], values[1:] - (values[1:] - values[:-1]) / 3) \
        if len(span) else values.copy()
    return Keyframes(
        times=times, values=values[:, None],
        left_times=times - np.append(span[:1] if len(span) else [0.0], span),
        left_values=np.append(values[:1], left_values)[:, None],
        right_times=times + np.append(span, span[-1:] if len(span) else [0.0]),
        right_values=np.append(right_values, values[-1:])[:, None],
        interpolation=np.append(modes, modes[-1:]) if len(span) else modes)
