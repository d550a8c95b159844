"""Slerp along the arcs between keys, set up once per segment and gathered per sample.

The LINEAR rotation and CUBICSLERP kernels of core.sampling.interpolation, and the float32 screening
of core.fitting.screening, play each sample from the nearer end of its segment's arc (``Arcs``,
``nearer_end``): the phase is then at most a quarter turn, where one sin gives the cosine too
(``turned``). Per-segment arrays are taken per sample by ``Gather``, which copies runs of equal
indices (a dense, sorted sampling) in place of indexing sample by sample.
"""

from typing import TypeVar

import numpy as np
import numpy.typing as npt

from . import quaternions as quat

_Scalar = TypeVar("_Scalar", bound=np.generic)


class Gather:
    """Take ``x[..., index]`` of several arrays for one index.

    A sorted index (a dense, sorted sampling) with runs of 4 samples or more on average is taken
    as runs of equal values: np.repeat copies each value over its run, which beats np.take there
    (measured: docs/manual/benchmarks.md, "Kernel choices").

    Attributes
    ----------
    index : (m,) int array
        The indices, as given.
    values : (r,) int array or None
        The index as runs: each run's value (None: the index is taken as it is).
    counts : (r,) int array or None
        Each run's length, set with ``values``.

    Examples
    --------
    >>> import numpy as np
    >>> take = Gather(np.array([0, 0, 0, 0, 1, 1, 1, 1]), ordered=True)
    >>> take.counts.tolist(), take(np.array([[10.0, 20.0]])).tolist()  # two runs of 4
    ([4, 4], [[10.0, 10.0, 10.0, 10.0, 20.0, 20.0, 20.0, 20.0]])
    """

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
        """Take ``x`` at the index along ``axis`` (indices past the end are clipped)."""
        values, counts = self.values, self.counts
        if values is None or counts is None:  # set together, where the index has runs
            return np.take(x, self.index, axis=axis, mode="clip")
        return np.repeat(np.take(x, values, axis=axis, mode="clip"), counts, axis=axis)


class Arcs:
    """Appendix C slerp along each segment's arc a[k] -> b[k], set up once per segment.

    Both ends are kept (index 2k starts at a, 2k + 1 at b'), and a sample uses the nearer one, so
    its phase is at most a quarter turn and slerp costs a single sin (quaternions.slerp_from_basis).
    Arrays are component-major (4, ...): numpy is slow on a trailing axis of length 4.

    Attributes
    ----------
    starts : (4, 2m) float array
        Each arc's start a[k] (column 2k) and its end b'[k] (column 2k + 1), b' = b sign(a.b).
    e : (4, 2m) float array
        The unit direction from that end towards the other (quaternions.slerp_basis).
    angle : (2m,) float array
        The arc's angle in radians (4D, half the rotation angle), at both ends.
    tiny : (2m,) bool array
        Arcs below quaternions.NLERP_BELOW, played as Appendix C's lerp and normalize.

    Examples
    --------
    >>> import numpy as np
    >>> arcs = Arcs(np.array([[0.0, 0.0, 0.0, 1.0]]), np.array([[0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)]]))
    >>> j, u = nearer_end(np.array([0, 0]), np.array([0.5, 0.75]))  # 45 and 67.5 degrees about Z
    >>> arcs.at(Gather(j), u).T.round(6).tolist()  # (sin, cos) of 22.5 and 33.75 degrees
    [[0.0, 0.0, 0.382683, 0.92388], [0.0, 0.0, 0.55557, 0.83147]]
    """

    def __init__(self, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64],
                 dtype: type[np.floating] = np.float64) -> None:
        """Set up the arcs from (m, 4) quaternions ``a`` to ``b``. ``dtype``: what the samples are
        worked in (core.fitting.screening: float32); the set-up is float64 and rounded once."""
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
    """Compute a cos + e scale in place, with the cosine taken from ``sine``.

    cos = sqrt((1 - sin)(1 + sin)) is exact to rounding for phases up to a quarter turn, where
    cos >= 0.7: one sin instead of sin and cos, the slowest numpy calls here.

    Parameters
    ----------
    a : (4, m) float array
        Arc starts, component-major; overwritten with the result.
    e : (4, m) float array
        Unit directions from the starts (quaternions.slerp_basis); overwritten (scaled).
    sine : (m,) float array
        sin of each sample's phase, at most a quarter turn.
    scale : (m,) float array or float
        What ``e`` is multiplied by: ``sine`` for slerp.

    Returns
    -------
    (4, m) float array
        ``a``, now a cos + e scale.

    Examples
    --------
    >>> import numpy as np
    >>> a, e = np.array([[0.0], [0.0], [0.0], [1.0]]), np.array([[0.0], [0.0], [1.0], [0.0]])
    >>> turned(a, e, np.array([0.6]), np.array([0.6])).ravel().round(6).tolist()  # cos = 0.8
    [0.0, 0.0, 0.6, 0.8]
    """
    cosine = 1.0 - sine
    cosine *= 1.0 + sine
    np.sqrt(cosine, out=cosine)
    a *= cosine
    e *= scale
    a += e
    return a


def nearer_end(k: npt.NDArray[np.intp],
               t: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """Pick the nearer end of each sample's arc, for Arcs.at.

    Parameters
    ----------
    k : (T,) int array
        Segments (segment_parameters).
    t : (T,) float array
        Parameters in [0, 1] within them.

    Returns
    -------
    j : (T,) int array
        The arc end: 2k (the start), or 2k + 1 (the end) past the middle.
    u : (T,) float64 array
        The parameter from that end, min(t, 1 - t).

    Examples
    --------
    >>> import numpy as np
    >>> j, u = nearer_end(np.array([0, 1, 1]), np.array([0.25, 0.5, 0.75]))
    >>> j.tolist(), u.tolist()  # t = 0.5 stays with the start
    ([0, 2, 3], [0.25, 0.5, 0.25])
    """
    far = t > 0.5
    j = k + k
    j += far
    u = 1.0 - t
    np.minimum(u, t, out=u)
    return j, u
