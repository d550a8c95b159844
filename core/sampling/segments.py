"""Find the key segment of each query time: its index and its parameter t in [0, 1].

Shared by the sampler evaluator (core.sampling.interpolation), the fitters and the Blender
keyframe model (core.blender_model.fcurves). Segment k runs from key k to key k + 1; a query is
clamped to the first and last segment, so a sampler plays its first key before the keys and its
last key after them (core spec, "Animations"). Sorted queries (dense sampling) take a cheaper way:
one binary search per key instead of one per query (measured: docs/manual/benchmarks.md,
"Kernel choices").
"""

import numpy as np
import numpy.typing as npt


def segment_parameters(times: npt.NDArray[np.float64], durations: npt.NDArray[np.float64],
                       query: npt.NDArray[np.float64],
                       ordered: bool = False) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """Find each query's segment k and its parameter t in [0, 1] within it.

    side="right" puts a query equal to t_k at the start of segment k, so t is exactly 0 there;
    at t_n, t = (t_n - t_{n-1}) / (t_n - t_{n-1}) is exactly 1. Clipping t clamps outside the keys.

    Parameters
    ----------
    times : (n,) float array
        Key times in seconds, sorted, at least two.
    durations : (n - 1,) float array
        ``np.diff(times)``, the segments' lengths (passed in: callers compute it once).
    query : (T,) float array
        Seconds, anywhere (clamped to the keys).
    ordered : bool
        The queries are sorted: segment_index's cheaper way.

    Returns
    -------
    k : (T,) int array
        The segment, t_k <= q <= t_{k+1}, clamped to 0 .. n - 2.
    t : (T,) float64 array
        (q - t_k) / (t_{k+1} - t_k), clipped to [0, 1]. Equal key times (a segment of length 0)
        give 0 before the jump and 1 from it on.

    Examples
    --------
    >>> import numpy as np
    >>> times = np.array([0.0, 1.0, 3.0])
    >>> k, t = segment_parameters(times, np.diff(times), np.array([-1.0, 0.5, 2.0, 3.0, 4.0]))
    >>> k.tolist(), t.tolist()  # 2.0 is halfway along the 2 s segment [1, 3]
    ([0, 0, 1, 1, 1], [0.0, 0.5, 0.5, 1.0, 1.0])
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
    """Find each query's segment: the last of the sorted ``times`` at or before it.

    ``ordered`` queries (dense sampling) take one binary search per key to find where its segment
    starts in the queries, and each segment's index is repeated over its run, in place of a binary
    search per query (measured: docs/manual/benchmarks.md, "Kernel choices").

    Parameters
    ----------
    times : (n,) float array
        Key times, sorted, at least two.
    query : (T,) float array
        Seconds, anywhere.
    ordered : bool
        The queries are sorted too.
    out : (T,) int array or None
        Where to write the result, if given.

    Returns
    -------
    (T,) int64 array
        The segment k, t_k <= q, clamped to 0 .. n - 2 (``out`` where given).

    Examples
    --------
    >>> import numpy as np
    >>> times = np.array([0.0, 1.0, 3.0])
    >>> segment_index(times, np.array([5.0, -1.0, 0.99, 1.0])).tolist()  # clamped to segments 0 and 1
    [1, 0, 0, 1]
    >>> segment_index(times, np.array([-1.0, 0.99, 1.0, 5.0]), ordered=True).tolist()
    [0, 0, 1, 1]
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
    """Find the index of the nearest of the sorted ``times`` to each query.

    Parameters
    ----------
    times : (n,) float array
        Sorted times, at least two.
    query : (T,) float array
        Seconds, anywhere.

    Returns
    -------
    (T,) int array
        The nearest key's index; the earlier one on a tie, as float subtraction measures the
        distances.

    Examples
    --------
    >>> import numpy as np
    >>> nearest_index(np.array([0.0, 1.0, 3.0]), np.array([-1.0, 0.5, 0.6, 2.5, 9.0])).tolist()  # 0.5: a tie
    [0, 0, 1, 2, 2]
    """
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
