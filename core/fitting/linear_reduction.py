"""The fewest LINEAR rotation keys that follow a densely sampled motion within a tolerance.

Dense channels (motion capture, baked, simulated and imported clips: a key per frame or closer) are
samples of a motion, and between them Blender plays a polyline with a corner at every key. A smooth
curve follows a corner only where it is tiny against the tolerance: smoothing a corner of c degrees
(the change of the per-frame turn) over two frames misses by about c / 16, and the corners of real
clips are 0.1 to 2 degrees (CesiumMan, CMU motion capture at 120 fps: medians 0.02 to 2.3). So at
fine tolerances the cheapest form of such a channel is often LINEAR keys at the corners that matter,
a core sampler every viewer plays, rather than CUBICSLERP keys at nearly every corner plus a fallback.

The keys are chosen as Douglas and Peucker simplify a polyline: from the two ends, every piece that
misses the tolerance at some check time gets a key at its worst check time (a chord is furthest from
a polyline at one of its corners), all pieces of a round at once. Key values are the motion there,
checked as a file stores them (float32 times; float32 or normalized 16-bit quaternions, played
normalized as a reader does).
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..sampling import chords
from ..sampling import quaternions as quat
from ..gltf import as_stored
from ..sampling import nearest_index, slerp_keys
from .screening import group_argmax, group_max, ranges


@dataclass(frozen=True)
class LinearKeys:
    times: np.ndarray        # (n,) seconds as written (float32 values)
    values: np.ndarray       # (n, 4) as written (sign-continuous)
    max_error_deg: float     # largest angle to the motion over the check times, as written


def reduce_linear(check_times: npt.ArrayLike, motion: npt.ArrayLike, tolerance_deg: float,
                  written: str | None = None, max_keys: int | None = None) -> LinearKeys:
    """LinearKeys whose slerp stays within ``tolerance_deg`` of ``motion`` ((n, 4) unit
    quaternions, any sign per row) at every one of the sorted ``check_times`` (n >= 2); the first
    and last check times are keys. ``written``: None, "FLOAT" or "SHORT" (see the module's text).
    Raises ValueError when more than ``max_keys`` keys would be needed, or when a piece between
    two neighbouring check times misses (the written form's rounding alone is over the
    tolerance)."""
    t = np.asarray(check_times, dtype=np.float64).reshape(-1)
    q = quat.make_continuous(quat.normalize(np.asarray(motion, dtype=np.float64).reshape(-1, 4)))
    if len(t) < 2 or len(q) != len(t) or not (np.diff(t) > 0.0).all():
        raise ValueError("reduce_linear needs two or more increasing check times, one motion row each")
    limit = chords.chord2_limit(tolerance_deg)
    limit_keys = len(t) if max_keys is None else int(max_keys)
    keys = np.array([0, len(t) - 1])
    worst, at = np.zeros(1), np.full(1, -1, dtype=np.intp)
    dirty = np.ones(1, dtype=bool)
    while True:
        times, values = _written(t, q, keys, written)
        worst[dirty], at[dirty] = _errors(t, q, keys, times, values, np.flatnonzero(dirty))
        over = worst > limit  # only segments just checked can be over: the others passed before
        if not over.any():
            return LinearKeys(times, values, float(chords.chord2_to_degrees(worst.max())))
        if (np.diff(keys)[over] < 2).any():
            raise ValueError(f"reduce_linear: the written keys alone miss {tolerance_deg:g} deg")
        if len(keys) + np.count_nonzero(over) > limit_keys:
            raise ValueError(f"reduce_linear: needs more than {limit_keys} keys within {tolerance_deg:g} deg")
        keys, worst, at, dirty = _split(keys, worst, at, over)


def linear_on(check_times: npt.ArrayLike, motion: npt.ArrayLike, times: npt.ArrayLike,
              written: str | None = None) -> LinearKeys:
    """LinearKeys at the check times nearest the given sorted ``times`` (each within a
    microsecond of one), values on ``motion``, with their largest error over the check times
    between the first and the last: the bundled exporter's per-frame keys, whose input accessor
    every such channel can share."""
    t = np.asarray(check_times, dtype=np.float64).reshape(-1)
    q = quat.make_continuous(quat.normalize(np.asarray(motion, dtype=np.float64).reshape(-1, 4)))
    times = np.asarray(times, dtype=np.float64).reshape(-1)
    keys = np.unique(nearest_index(t, times))
    if len(keys) != len(times) or len(keys) < 2 or np.abs(t[keys] - times).max() > 1e-6:
        raise ValueError("linear_on: the key times must be two or more of the check times")
    key_times, values = _written(t, q, keys, written)
    worst, _ = _errors(t, q, keys, key_times, values, np.arange(len(keys) - 1))
    return LinearKeys(key_times, values, float(chords.chord2_to_degrees(worst.max())))


def _written(t, q, keys, written):
    """(times, values) of the keys as a file stores them."""
    times, values = t[keys], q[keys]
    if written is None:
        return times, values
    return as_stored(times, "FLOAT"), as_stored(values, written)


def _errors(t, q, keys, times, values, segments):
    """(largest squared chord of each of the given segments over its check times, keys included;
    per segment, the check index of its largest error strictly between its keys, or -1)."""
    starts = keys[:-1][segments]
    ends = keys[1:][segments] + 1  # the end key's check time too: its rounding counts
    index, offsets = ranges(starts, ends)
    lengths = ends - starts
    chord2 = chords.chord2(slerp_keys(times, quat.normalize(values), t[index]), q[index])
    inside = (index > np.repeat(starts, lengths)) & (index < np.repeat(ends - 1, lengths))
    first = group_argmax(np.where(inside, chord2, -1.0), offsets, lengths)
    at = np.where(inside[first], index[first], -1)
    return group_max(chord2, offsets, lengths), at


def _split(keys, worst, at, over):
    """(keys with one more in each segment of the mask ``over``, at its worst inner check index
    ``at``; the per-segment errors and split indices kept for the others; the mask of the
    segments to check again: both halves of each split)."""
    new_keys = np.sort(np.concatenate([keys, at[over]]))
    parents = np.repeat(np.arange(len(over)), np.where(over, 2, 1))
    return new_keys, np.where(over[parents], 0.0, worst[parents]), at[parents], over[parents]

