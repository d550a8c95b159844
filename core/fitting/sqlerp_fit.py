"""Fitting CUBICSLERP keys to a rotation motion (spec "CUBICSLERP Interpolation", "Sign rules for
writers", "Error measure").

The animator's key times are kept and keys are added only where a segment cannot follow the motion
within the tolerance. A segment's curve depends only on v_k, v_{k+1}, b_k and a_{k+1}, so tangents
are stored per segment (out-tangent b_k and in-tangent a_{k+1}) and every segment is fitted on its
own, all segments of a round at once. Segments start from the C1 control points and keep them where
they already follow the motion; the others get the least-squares tangents of
`sqlerp_tangents.Probes.fit` (the keys and tangents in progress: core.fitting.sqlerp_segments).
The acceptance check is the spec's evaluator (core.sampling.interpolation) at
the caller's dense check times, after a float32 first pass (core.fitting.screening) that clears the
segments far enough below the tolerance.

Quaternion signs never change the curve this project's evaluator plays (every slerp takes the short
path), so the fit ignores them; each round then flips tangents to the spec's sign rules, which
make evaluators that never flip play the same curve, and splits a segment whose tangents cannot
satisfy b_k . a_{k+1} >= 0, or whose curve jumps between the keys (p . s changes sign inside it:
spec "CUBICSLERP Interpolation"), which the dense check may not see between two check times.
"""

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..sampling import chords
from ..sampling import quaternions as quat
from . import screening
from ..sampling import Evaluator, jumping_segments, nearest_index
from .sqlerp_segments import MAX_ROUNDS, Segments
from .sqlerp_tangents import EVEN_PROBES, Target, uniform_probes, unit as _unit
from ..constants import CUBICSLERP, ROTATION_TOLERANCE_DEG


@dataclass(frozen=True)
class CubicSlerpFit:
    """CUBICSLERP keys fitted to a motion, with what they play at the check times.

    Attributes
    ----------
    times : (n,) float array
        Key times in seconds, strictly increasing, n >= 2.
    in_tangents : (n, 4) float array
        a_i, unit quaternions (x, y, z, w); a_1 = v_1 (never read).
    values : (n, 4) float array
        v_i.
    out_tangents : (n, 4) float array
        b_i; b_n = v_n (never read).
    max_error_deg : float
        The largest angle to the target over the check times.
    check_times : (T,) float array or None
        The check times inside the keys.
    played : (T, 4) float array or None
        What the keys play at ``check_times``, kept for the fallbacks that follow the curve:
        fit_cubicslerp's dense check (float32, to core.fitting.screening's margin) or float64
        (core.fitting.stored_keys' kept keys); or None.
    """
    times: np.ndarray
    in_tangents: np.ndarray
    values: np.ndarray
    out_tangents: np.ndarray
    max_error_deg: float
    check_times: np.ndarray | None = None
    played: np.ndarray | None = None

    def interleaved(self) -> np.ndarray:
        """(3n, 4) sampler output rows a_1, v_1, b_1, a_2, ..."""
        return np.stack([self.in_tangents, self.values, self.out_tangents], axis=1).reshape(-1, 4)

    def evaluate(self, times: npt.ArrayLike) -> np.ndarray:
        """The curve at ``times`` as a reader plays it: rows normalized first, as core.sampling.animation
        reads rotations (decoded 16-bit quaternions are a little off unit length)."""
        return Evaluator(CUBICSLERP, self.times, quat.normalize(self.interleaved()))(times)


@dataclass(frozen=True)
class FitOptions:
    """Options of ``fit_cubicslerp``; ``FIT_DEFAULTS`` holds the defaults.

    The pair mirrors glTF-Transform's functions, which take an options object beside one defaults
    object. Raises ValueError for a ``split_at`` other than "middle" or "worst", or a tolerance
    that is not positive.

    Attributes
    ----------
    tolerance_deg : float
        The bound at every check time, in degrees.
    max_keys : int or None
        Fail (ValueError) beyond this many keys (None: the key times plus one per check time).
    split_at : str
        Where a segment that cannot follow gets its extra key: "middle" (smooth motion: a fitted
        segment's error falls with the fourth power of its length, so halves are the surest way
        to few keys on Blender's Euler curves; measured: docs/manual/benchmarks.md, "Export of
        Blender-keyed rigs") or "worst" (the worst check time: motion with corners, such as a
        dense LINEAR curve, whose error sits at the corners).
    written : str or None
        None, or the form a file stores the keys in ("FLOAT": float32; "SHORT": normalized 16-bit
        quaternions, float32 times): the dense check then plays the keys as a reader decodes
        them, added keys get float32 times, and the result holds those decoded keys, so its error
        is the written file's.
    aim_deg : float or None
        What the tangent fit aims at (None: the tolerance); below the tolerance, it leaves room
        for the rounding of the written form.

    Examples
    --------
    >>> FIT_DEFAULTS.tolerance_deg, FIT_DEFAULTS.split_at
    (0.01, 'middle')
    >>> FitOptions(split_at="anywhere")
    Traceback (most recent call last):
    ValueError: split_at must be 'middle' or 'worst', got 'anywhere'
    """
    tolerance_deg: float = ROTATION_TOLERANCE_DEG
    max_keys: int | None = None
    split_at: str = "middle"
    written: str | None = None
    aim_deg: float | None = None

    def __post_init__(self) -> None:
        if self.split_at not in ("middle", "worst"):
            raise ValueError(f"split_at must be 'middle' or 'worst', got {self.split_at!r}")
        if not self.tolerance_deg > 0.0:
            raise ValueError(f"tolerance_deg must be positive, got {self.tolerance_deg!r}")


FIT_DEFAULTS = FitOptions()


def fit_cubicslerp(target: Target, key_times: npt.ArrayLike, check_times: npt.ArrayLike,
                   options: FitOptions = FIT_DEFAULTS, *, check_values: npt.ArrayLike | None = None,
                   **keywords: Any) -> CubicSlerpFit:
    """Fit CUBICSLERP keys that follow ``target`` within the tolerance at every check time.

    Parameters
    ----------
    target : callable
        ``target(times) -> (T, 4)`` unit quaternions (x, y, z, w), any sign per row.
    key_times : (K,) float array
        Key times in seconds, all kept (sorted and deduplicated here; the first and last bound
        the curve; float32 values when ``written``).
    check_times : (C,) float array
        Seconds at which the curve must follow; those outside the key times are ignored.
    options : FitOptions
        Tolerance, key limit, where to split, written form and aim.
    check_values : (C, 4) float array or None
        The target at ``check_times``, when the caller has it already.
    **keywords
        FitOptions fields in place of those of ``options`` (``tolerance_deg=0.05``).

    Returns
    -------
    CubicSlerpFit
        Its ``times`` (N,), ``in_tangents``, ``values`` and ``out_tangents`` (N, 4), N >= K, and
        its largest error.

    Raises
    ------
    ValueError
        When the tolerance needs more than ``max_keys`` keys, the fit does not converge, or there
        are fewer than two distinct finite key times.

    Examples
    --------
    >>> import numpy as np
    >>> from gltf_sqlerp.core.sampling import quaternions as quat
    >>> turn = lambda t: quat.exp(np.outer(np.asarray(t) ** 2, [0.0, 0.0, np.pi / 4]))  # to 90 deg about Z
    >>> fit = fit_cubicslerp(turn, [0.0, 1.0], np.linspace(0.0, 1.0, 41), tolerance_deg=0.05)
    >>> bool(fit.max_error_deg <= 0.05), len(fit.times) >= 2
    (True, True)
    """
    options = replace(options, **keywords) if keywords else options
    tolerance_deg, max_keys, split_at = options.tolerance_deg, options.max_keys, options.split_at
    written, aim_deg = options.written, options.aim_deg
    times = np.unique(np.asarray(key_times, dtype=np.float64).reshape(-1))
    if len(times) < 2 or not np.isfinite(times).all():
        raise ValueError("fit_cubicslerp needs at least two distinct finite key times")
    check = _Check(target, check_times, times[0], times[-1], tolerance_deg, check_values)
    limit = len(times) + len(check.times) if max_keys is None else int(max_keys)
    aim = tolerance_deg if aim_deg is None else min(float(aim_deg), tolerance_deg)
    curve = Segments(times, quat.make_continuous(_unit(target(times))), target, aim, written,
                     check.probes(target))
    if split_at == "middle":
        curve.presplit(tolerance_deg, limit)
    dirty = np.ones(len(curve.times) - 1, dtype=bool)
    for _ in range(MAX_ROUNDS):
        curve.fix_signs()
        over, at = check.errors(curve, dirty, locate=split_at == "worst")
        unsigned = dirty & (quat.dot(curve.b, curve.a) < 0.0)  # 4th sign rule, after fix_signs
        # spec "Where the curve is discontinuous": p . s keeps its sign across every segment written, so that the
        # curve never jumps, also between check times (seen: 82 of 19,704 random fits jumped, some
        # with 7 check times per segment).
        rows = curve.key_rows()  # as written
        jumping = dirty & jumping_segments(curve.times, rows.reshape(-1, 4))
        if not (over.any() or unsigned.any() or jumping.any()):
            return CubicSlerpFit(curve.times.copy(), rows[:, 0], rows[:, 1], rows[:, 2], check.max_error_deg(curve),
                                 check.times, check.played.T)
        refit = over & ~curve.refined & ~unsigned & ~jumping  # C1 tangents get a fit before any new key
        split = (over | unsigned | jumping) & ~refit
        if len(curve.times) + np.count_nonzero(split) > limit:
            raise ValueError(f"fit_cubicslerp: following the target within {tolerance_deg} deg "
                             f"needs more than max_keys={limit} keys")
        middles = 0.5 * (curve.times[:-1] + curve.times[1:])
        worst = over if split_at == "worst" else np.zeros_like(over)
        dirty = curve.split(split, np.where(worst, check.times[at], middles)[split], refit)
        check.forget(dirty, curve.parents)
    raise ValueError(f"fit_cubicslerp: no fit within {tolerance_deg} deg after {MAX_ROUNDS} "
                     "rounds of splitting (is the target continuous?)")


class _Check:
    """The dense acceptance check: target at the check times, per-segment worst error.

    Check time c belongs to the segment k with t_k <= c < t_{k+1} (the last key to the last
    segment); at a key the curve and the target agree, so that choice costs nothing. The curve is
    played in float32 first (core.fitting.screening); segments within its margin of the limit are played
    again in float64, which decides (``exact``), so the accepted keys are those of a float64 check.
    """

    def __init__(self, target, check_times, first, last, tolerance_deg, values=None):
        t = np.asarray(check_times, dtype=np.float64).reshape(-1)
        inside = (t >= first) & (t <= last)
        everything = bool(inside.all())  # the usual case: no copies
        t = t if everything else t[inside]
        if values is not None and (t[1:] > t[:-1]).all():
            values = np.asarray(values, dtype=np.float64).reshape(-1, 4)
            self.times, self.q = t, _unit(values if everything else values[inside])
        else:
            self.times = t = np.unique(t)  # the usual dense grid is sorted already
            self.q = _unit(target(t)) if len(t) else np.zeros((0, 4))
        self.q32 = screening.as_float32(self.q)
        self.limit = chords.chord2_limit(tolerance_deg)
        self.screen = screening.lowered(self.limit)
        self.worst = np.zeros(0)        # per segment, squared chord, valid where not dirty
        self.exact = np.zeros(0, dtype=bool)  # ... of a float64 check (else float32's)
        # The curve per check time, (4, n) float32: valid where not dirty; the fit's ``played``
        # is its (n, 4) view.
        self.played = np.empty(self.q32.shape, dtype=np.float32)

    def probes(self, target):
        """A probe sampler (sqlerp_tangents.Probes) taking the target from this check's values:
        per segment, the check times nearest PROBES even parameters, where they are distinct and
        strictly inside it (in segments of a dozen check times or more); ``target`` evaluated at
        the even parameters elsewhere. Most probes then cost no target evaluation."""
        even = uniform_probes(target)

        def sample(start, duration):
            if len(self.times) < 2:
                return even(start, duration)
            index = nearest_index(self.times, start[:, None] + duration[:, None] * EVEN_PROBES)
            t = (self.times[index] - start[:, None]) / duration[:, None]
            usable = (t[:, 0] > 0.0) & (t[:, -1] < 1.0) & (np.diff(t, axis=1) > 0.0).all(axis=1)
            q = np.empty(t.shape + (4,))
            q[usable] = self.q[index[usable]]
            if not usable.all():
                t[~usable], q[~usable] = even(start[~usable], duration[~usable])
            return t, q
        return sample

    def errors(self, curve, dirty, locate=True):
        """Per segment, whether it misses the tolerance (evaluating the ``dirty`` ones, the others
        keep their last result) and, where it does, the check index of its worst error."""
        count = len(curve.times) - 1
        if len(self.worst) != count:
            self.worst, self.exact = np.zeros(count), np.zeros(count, dtype=bool)
        at = np.zeros(count, dtype=np.intp)
        segments = np.flatnonzero(dirty)
        if len(segments):
            starts = self._starts(curve)
            if len(segments) == count:  # all of them (the first round): a slice, no gathers
                index = slice(starts[0], len(self.times))
                offsets, lengths = starts - starts[0], np.diff(np.append(starts, len(self.times)))
            else:
                index, offsets, lengths = screening.runs(starts, len(self.times), segments)
            key_times, rows = curve.sampler_of(segments)
            played = screening.cubicslerp(key_times, rows, self.times[index])
            self.played[:, index] = played
            chord2 = screening.chord2(played, self.q32[:, index]).astype(np.float64)
            self.worst[segments] = screening.group_max(chord2, offsets, lengths)
            self.exact[segments] = False
            near = segments[self.worst[segments] > self.screen]
            if len(near):  # within float32's margin of the limit: float64 decides
                index, chord2, offsets, lengths = self._played_exactly(curve, near)
                over = self.worst[near] > self.limit
                if locate and over.any():
                    at[near[over]] = index[screening.group_argmax(chord2, offsets[over], lengths[over])]
        return self.worst > self.limit, at

    def _starts(self, curve):
        """Where each segment's check times begin."""
        return np.searchsorted(self.times, curve.times[:-1], side="left")

    def _played_exactly(self, curve, segments):
        """Float64 errors of the given segments into ``worst``; returns their check indices,
        squared chords and runs (index, chord2, offsets, lengths)."""
        index, offsets, lengths = screening.runs(self._starts(curve), len(self.times), segments)
        key_times, rows = curve.sampler_of(segments)
        played = Evaluator(CUBICSLERP, key_times, rows)(np.take(self.times, index))
        chord2 = chords.chord2(played, np.take(self.q, index, axis=0))
        self.worst[segments] = screening.group_max(chord2, offsets, lengths)
        self.exact[segments] = True
        return index, chord2, offsets, lengths

    def forget(self, dirty, parents):
        """Keep the per-segment errors of the unchanged segments across a split."""
        self.worst = np.where(dirty, 0.0, self.worst[parents])
        self.exact = ~dirty & self.exact[parents]

    def max_error_deg(self, curve):
        """The largest angle of the float64 check (core.fitting.screening.settled_max)."""
        def recheck(segments):
            self._played_exactly(curve, segments)
            return self.worst[segments]
        return float(chords.chord2_to_degrees(screening.settled_max(self.worst, self.exact, recheck)))
