"""The fewest keys of a sampled translation, scale or morph-weight channel that stay within a
tolerance of the polyline it plays.

The bundled exporter samples these channels at every frame (LINEAR, or STEP where the animator's
curves are constant). Between its keys a reader plays a polyline (a staircase for STEP), so keys
are chosen among its own key times with their own values, as Douglas and Peucker simplify a
polyline: from the two ends, every piece that misses the tolerance at some check time gets a key at
its worst inner key time, all pieces of a round at once (core.fitting.linear_reduction does the same for
quaternions). A chord of a polyline is furthest from it at one of its corners, so keys at corners
are what the tolerance asks for; the check times between keys (SAMPLES_PER_FRAME per frame, at
least) verify it on the written data: float32 times and values, played as a reader plays them.

A channel whose values all stay within the tolerance of one value is constant: one key holding the
middle of their range.

The split may start from given keys (``start``) instead of the two ends: the keys a channel must
share with others whose input accessor it shares (core.fitting.pointer_export.join_key_sets). More
keys of a polyline do not always make a closer chord (a chord may pass nearer a corner than the
shorter ones), so those keys are checked again, and split further where they miss.

Errors are measured in units of the tolerance, so one rule serves every path: ``tolerance`` is a
scalar or per key and component (broadcast to the values' shape, interpolated between keys as the
values are), and the error at a check time is either the Euclidean length of the difference over
the tolerance (``norm=True``: a distance, for translations) or the largest component's difference
over its tolerance (``norm=False``: per component, for scales and weights).
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..gltf import as_stored
from ..sampling import SAMPLES_PER_FRAME
from .screening import group_argmax, group_max, ranges

INTERPOLATIONS = ("LINEAR", "STEP")


@dataclass(frozen=True)
class VectorKeys:
    times: np.ndarray      # (n,) seconds as written (float32 values)
    values: np.ndarray     # (n, d) as written (float32 values)
    indices: np.ndarray    # (n,) the sampler's keys they stand at (a constant channel: its first)
    interpolation: str     # "LINEAR" or "STEP", as the sampler's
    max_error: float       # largest error over the check times, in tolerances (at most 1)
    constant: bool = False  # one key holds the whole channel


def check_counts(times: npt.ArrayLike, frames_per_second: float, per_frame: int = SAMPLES_PER_FRAME) -> np.ndarray:
    """Count the check times of each key interval.

    Parameters
    ----------
    times : (n,) float array
        Key times in seconds, sorted.
    frames_per_second : float
        The scene's frame rate.
    per_frame : int
        Check times per frame.

    Returns
    -------
    (n - 1,) int array
        ``per_frame`` per frame of each interval (rounded up), and ``per_frame`` at least for an
        interval shorter than a frame.

    Examples
    --------
    >>> check_counts([0.0, 1.0, 1.125], frames_per_second=4).tolist()  # 4 frames, then half a frame
    [32, 8]
    """
    frames = np.diff(np.asarray(times, dtype=np.float64)) * frames_per_second
    return np.maximum(np.ceil(frames * per_frame), per_frame).astype(np.intp)


def reduce_vectors(times: npt.ArrayLike, values: npt.ArrayLike, tolerance: npt.ArrayLike,
                   interpolation: str = "LINEAR", norm: bool = True,
                   samples: int | np.ndarray = SAMPLES_PER_FRAME,
                   start: npt.ArrayLike | None = None) -> VectorKeys:
    """Reduce a sampled translation, scale or weights channel to the fewest keys its split finds.

    Parameters
    ----------
    times : (n,) float array
        The sampler's key times in seconds, sorted.
    values : (n, d) float array
        Its values.
    tolerance : float or (n, d) float array
        The bound, a scalar or per key and component (see the module's text).
    interpolation : str
        The sampler's: "LINEAR" or "STEP".
    norm : bool
        Errors are Euclidean distances over the tolerance (translations); False: the largest
        component's difference over its tolerance (scales, weights).
    samples : int or (n - 1,) int array
        Check times per key interval (one count per interval: ``check_counts``); the key times
        are checked too.
    start : (k,) int array or None
        Key indices the result keeps, with the two ends (no constant form then); None: the ends.

    Returns
    -------
    VectorKeys
        The keys as written (float32 times and values), the sampler's key indices they stand at,
        their largest error in tolerances and whether one key holds the whole channel.

    Raises
    ------
    ValueError
        For keys that cannot be read as a sampler (times not increasing as float32, values not
        finite, tolerances not positive), a start key out of range, or when the written float32
        keys alone miss the tolerance.

    Examples
    --------
    A tent: its chords to the corner at t = 2 are the polyline itself, so that corner is the
    only key kept inside.

    >>> keys = reduce_vectors([0.0, 1.0, 2.0, 3.0, 4.0], [[0.0], [1.0], [2.0], [1.0], [0.0]], 0.1)
    >>> keys.indices.tolist(), keys.values.tolist(), keys.max_error
    ([0, 2, 4], [[0.0], [2.0], [0.0]], 0.0)
    >>> reduce_vectors([0.0, 1.0], [[1.0], [1.05]], 0.1).constant  # within 0.1 of 1.025 throughout
    True
    """
    t, v, tol = _checked(times, values, tolerance, interpolation)
    if start is None and (v == v[0]).all():  # still (most channels of a rig): no check grid needed
        return _still(t, v, tol, interpolation, norm)
    grid = _Grid(t, v, tol, interpolation, norm, samples)
    if start is None:
        constant = _constant(grid)
        if constant is not None:
            return constant
        keys = np.array([0, grid.count - 1])
    else:
        given = np.asarray(start, dtype=np.intp).reshape(-1)
        if ((given < 0) | (given >= grid.count)).any():
            raise ValueError("reduce_vectors: a start key is not one of the sampler's keys")
        keys = np.unique(np.concatenate([[0, grid.count - 1], given]))
    if len(keys) == 1:  # a single key: nothing to split
        key_times, key_values = grid.written(keys)
        return VectorKeys(key_times, key_values, keys, grid.interpolation, 0.0)
    worst, at = np.zeros(len(keys) - 1), np.full(len(keys) - 1, -1, dtype=np.intp)
    dirty = np.ones(len(keys) - 1, dtype=bool)
    while True:
        key_times, key_values = grid.written(keys)
        worst[dirty], at[dirty] = _errors(grid, keys, key_times, key_values, np.flatnonzero(dirty))
        over = worst > 1.0  # only segments just checked can be over: the others passed before
        if not over.any():
            return VectorKeys(key_times, key_values, keys, grid.interpolation, float(worst.max()))
        if (at[over] < 0).any():
            raise ValueError("reduce_vectors: the written float32 keys alone miss the tolerance")
        keys, worst, at, dirty = _split(keys, worst, at, over)


class _Grid:
    """The sampler's keys and its polyline at the check times: ``times``, ``expected`` and
    ``tolerance`` per check time, ``key_at`` (the check index of each key) and ``key_of`` (the
    key at each check time, -1 between keys)."""

    def __init__(self, t, v, tol, interpolation, norm, samples):
        """``t``, ``v``, ``tol``: the keys as _checked gives them."""
        self.count, self.key_times, self.key_values = len(t), t, v
        self.interpolation, self.norm = interpolation, norm
        counts = np.broadcast_to(np.asarray(samples, dtype=np.intp), (len(t) - 1,))
        segment, step = self._layout(np.maximum(counts, 1))
        self.times = t[segment] + step * (t[np.minimum(segment + 1, len(t) - 1)] - t[segment])
        self.expected, self.tolerance = self._polyline(v, segment, step), self._polyline(tol, segment, step)
        self.key_at = np.append(0, np.cumsum(counts)) if len(counts) else np.zeros(1, dtype=np.intp)
        self.key_of = np.full(len(self.times), -1, dtype=np.intp)
        self.key_of[self.key_at] = np.arange(len(t))

    @staticmethod
    def _layout(counts):
        """(key interval, fraction of it) per check time: ``counts`` per interval from its
        start, then the last key (interval n - 1, fraction 0)."""
        segment = np.append(np.repeat(np.arange(len(counts)), counts), len(counts))
        first = np.repeat(np.cumsum(counts) - counts, counts)
        inside = np.arange(len(first)) - first
        step = np.append(inside / np.repeat(counts, counts), 0.0)
        return segment, step

    def _polyline(self, rows, segment, step):
        """``rows`` (per key) at the check times, as the sampler plays them."""
        if self.interpolation == "STEP":
            return rows[segment]
        after = rows[np.minimum(segment + 1, len(rows) - 1)]
        return rows[segment] + step[:, None] * (after - rows[segment])

    def written(self, keys):
        """(times, values) of the keys as a file stores them."""
        return as_stored(self.key_times[keys], "FLOAT"), as_stored(self.key_values[keys], "FLOAT")

    def error(self, played, index):
        """Errors in tolerances of ``played`` rows at the check times ``index``."""
        scaled = (played - self.expected[index]) / self.tolerance[index]
        return np.sqrt(np.einsum("ij,ij->i", scaled, scaled)) if self.norm else np.abs(scaled).max(axis=1)


def _checked(times, values, tolerance, interpolation):
    """(times (n,), values (n, d), tolerances (n, d)) as float64 arrays; raises ValueError for
    keys that cannot be read as a sampler (see reduce_vectors)."""
    t = np.asarray(times, dtype=np.float64).reshape(-1)
    v = np.asarray(values, dtype=np.float64)
    v = v.reshape(len(t), -1) if v.size else v.reshape(len(t), 0)
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"reduce_vectors: interpolation {interpolation!r} is not LINEAR or STEP")
    if not len(t) or not v.shape[1] or not (np.isfinite(t).all() and np.isfinite(v).all()):
        raise ValueError("reduce_vectors needs keys with finite times and values")
    if (np.diff(as_stored(t, "FLOAT")) <= 0.0).any():
        raise ValueError("reduce_vectors: key times must increase, also as float32")
    tol = np.broadcast_to(np.asarray(tolerance, dtype=np.float64), v.shape)
    if not (np.isfinite(tol).all() and (tol > 0.0).all()):
        raise ValueError("reduce_vectors: tolerances must be positive and finite")
    return t, v, tol


def _still(t, v, tol, interpolation, norm):
    """_constant's VectorKeys for keys that all hold one value: its float32 rounding is the
    error everywhere, largest in tolerances where the tolerance is smallest, at a key (the
    tolerances are interpolated between keys as the values are)."""
    held = as_stored(v[0], "FLOAT")
    scaled = (held - v[0]) / tol
    worst = float((np.sqrt(np.einsum("ij,ij->i", scaled, scaled)) if norm else np.abs(scaled).max(axis=1)).max())
    if worst > 1.0:
        raise ValueError("reduce_vectors: the written float32 keys alone miss the tolerance")
    return VectorKeys(as_stored(t[:1], "FLOAT"), held[None, :], np.zeros(1, dtype=np.intp), interpolation,
                      worst, constant=True)


def _constant(grid):
    """VectorKeys of one key holding the middle of the values' range when every check time is
    within the tolerance of it (as written), else None."""
    middle = as_stored(0.5 * (grid.key_values.min(axis=0) + grid.key_values.max(axis=0)), "FLOAT")
    worst = grid.error(np.broadcast_to(middle, grid.expected.shape), np.arange(len(grid.times))).max()
    if worst > 1.0:
        return None
    times = as_stored(grid.key_times[:1], "FLOAT")
    return VectorKeys(times, middle[None, :], np.zeros(1, dtype=np.intp), grid.interpolation,
                      float(worst), constant=True)


def _errors(grid, keys, key_times, key_values, segments):
    """(largest error of each of the given segments over its check times, both keys included;
    per segment, the inner key with its largest error, or -1 when it has no inner key)."""
    starts = grid.key_at[keys[:-1][segments]]
    ends = grid.key_at[keys[1:][segments]] + 1  # the end key's check time too: its rounding counts
    index, offsets = ranges(starts, ends)
    lengths = ends - starts
    error = grid.error(_played(grid, key_times, key_values, segments, index, lengths, ends), index)
    inside = (grid.key_of[index] >= 0) & (index > np.repeat(starts, lengths)) \
        & (index < np.repeat(ends - 1, lengths))
    first = group_argmax(np.where(inside, error, -1.0), offsets, lengths)
    at = np.where(inside[first], grid.key_of[index[first]], -1)
    return group_max(error, offsets, lengths), at


def _played(grid, key_times, key_values, segments, index, lengths, ends):
    """The written keys' polyline at the check times ``index`` of the given segments."""
    piece = np.repeat(segments, lengths)
    if grid.interpolation == "STEP":  # each piece holds its first key's value; its end key, its own
        return key_values[piece + (index == np.repeat(ends - 1, lengths))]
    start, end = key_times[piece], key_times[piece + 1]
    u = (grid.times[index] - start) / (end - start)
    return key_values[piece] + u[:, None] * (key_values[piece + 1] - key_values[piece])


def _split(keys, worst, at, over):
    """(keys with one more in each segment of the mask ``over``, at its worst inner key ``at``;
    the per-segment errors and split keys kept for the others; the mask of the segments to check
    again: both halves of each split)."""
    new_keys = np.sort(np.concatenate([keys, at[over]]))
    parents = np.repeat(np.arange(len(over)), np.where(over, 2, 1))
    return new_keys, np.where(over[parents], 0.0, worst[parents]), at[parents], over[parents]
