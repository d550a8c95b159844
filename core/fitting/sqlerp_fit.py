"""Fitting CUBICSLERP keys to a rotation motion (spec "CUBICSLERP Interpolation", "Sign rules for
writers", "Error measure").

The animator's key times are kept and keys are added only where a segment cannot follow the motion
within the tolerance. A segment's curve depends only on v_k, v_{k+1}, b_k and a_{k+1}, so tangents
are stored per segment (out-tangent b_k and in-tangent a_{k+1}) and every segment is fitted on its
own, all segments of a round at once. Segments start from the C1 control points and keep them where
they already follow the motion; the others get the least-squares tangents of
`sqlerp_tangents.Probes.fit`. The acceptance check is the spec's evaluator (core.sampling.interpolation) at
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

from ..sampling import quaternions as quat
from . import screening
from ..gltf import as_stored
from ..sampling import Evaluator, jumping_segments, nearest_index
from .sqlerp_tangents import EVEN_PROBES, Probes, Target, uniform_probes, unit as _unit
from ..constants import CUBICSLERP, ROTATION_TOLERANCE_DEG

# Probe errors (first order in the error of s: within 0.5 % of the exact angle) above this share of
# the tolerance make a C1 segment refitted and a fitted segment go through Lawson rounds; below it,
# the dense check passes anyway (0.8 x 1.13 < 1).
SCREEN_AT = 0.8
MAX_ROUNDS = 64
# The probes' first-order errors have a floor of about 1e-6 degrees (the square root of float64
# rounding in 1 - x^2 - y^2): only errors above the tolerance by more than this split a segment
# before the dense check, which alone decides at tolerances near the floor.
PROBE_FLOOR_DEG = 1e-5


@dataclass(frozen=True)
class CubicSlerpFit:
    times: np.ndarray         # (n,) seconds, strictly increasing, n >= 2
    in_tangents: np.ndarray   # (n, 4) a_i, unit, (x, y, z, w)
    values: np.ndarray        # (n, 4) v_i
    out_tangents: np.ndarray  # (n, 4) b_i
    max_error_deg: float      # largest angle to the target over the check times
    # What the keys play at the check times inside them, (T, 4), kept for the fallbacks that
    # follow the curve: fit_cubicslerp's dense check (float32, to core.fitting.screening's margin) or
    # float64 (core.fitting.rotation_export's kept keys); or None.
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
    """How ``fit_cubicslerp`` fits; ``FIT_DEFAULTS`` holds the defaults (as glTF-Transform's
    functions take an options object beside one defaults object).

    ``tolerance_deg``: the bound at every check time. ``max_keys``: fail (ValueError) beyond this
    many keys (None: the key times plus one per check time). ``split_at``: where a segment that
    cannot follow gets its extra key: "middle" (smooth motion: a fitted segment's error falls with
    the fourth power of its length, so halves are the surest way to few keys; Blender's Euler curves
    at 30-degree turns: 345 keys instead of 611 for 200 animator keys) or "worst" (the worst check
    time: motion with corners, such as a dense LINEAR curve, whose error sits at the corners).
    ``written``: None, or the form a file stores the keys in ("FLOAT": float32; "SHORT":
    normalized 16-bit quaternions, float32 times): the dense check then plays the keys as a reader
    decodes them, added keys get float32 times, and the result holds those decoded keys, so its
    error is the written file's. ``aim_deg``: what the tangent fit aims at (None: the tolerance);
    below the tolerance, it leaves room for the rounding of the written form.

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

    Parameters: ``target(times) -> (T, 4)`` unit quaternions (any sign per row); ``key_times``
    (K,) are kept (sorted and deduplicated here; the first and last bound the curve; float32
    values when ``written``); ``check_times`` (C,), those outside the key times ignored;
    ``options``: FitOptions, whose fields may also be given as keywords (``tolerance_deg=0.05``);
    ``check_values``: (C, 4), the target at ``check_times`` when the caller has it already.

    Returns a CubicSlerpFit: its ``times`` (N,), ``in_tangents``, ``values`` and ``out_tangents``
    (N, 4) and its largest error. Raises ValueError when the tolerance needs more than
    ``max_keys`` keys or the fit does not converge.

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
    curve = _Segments(times, quat.make_continuous(_unit(target(times))), target, aim, written,
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
        jumping = dirty & curve.jumping()
        if not (over.any() or unsigned.any() or jumping.any()):
            return curve.result(check.max_error_deg(curve), check.times, check.played.T)
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


class _Segments:
    """Keys (times, values) and per-segment tangents b (out of key k) and a (into key k + 1).

    Tangents start at the C1 control points; segments whose probes miss by more than SCREEN_AT x
    tolerance are fitted at once (the probes serve both, one target evaluation).
    """

    def __init__(self, times, values, target, tolerance_deg, written, sample):
        self.times, self.values = times, values
        self.target, self.tolerance_deg, self.written = target, tolerance_deg, written
        self.sample = sample  # sqlerp_tangents.Probes' target samples
        control = quat.control_points(times, values)
        self.b, self.a = control[:-1].copy(), control[1:].copy()
        self.parents = np.arange(len(times) - 1)  # segment index before the last split
        probes = Probes(times, values, self.parents, self.sample)
        self.probe_error = probes.errors(self.b, self.a)  # per segment, degrees
        self.refined = self.probe_error > SCREEN_AT * tolerance_deg
        if self.refined.any():
            fitted = probes.fit(tolerance_deg, self.refined)
            self.b[self.refined], self.a[self.refined], self.probe_error[self.refined] = fitted

    def refit(self, which):
        """Fitted tangents for the segments in the mask ``which``."""
        if which.any():
            probes = Probes(self.times, self.values, np.flatnonzero(which), self.sample)
            self.b[which], self.a[which], self.probe_error[which] = probes.fit(self.tolerance_deg)
            self.refined |= which

    def presplit(self, tolerance_deg, max_keys):
        """Cut the segments whose fitted probes already miss ``tolerance_deg`` (the dense check
        would fail them), before any dense check, which then runs once over everything and once
        more over the pieces of the few segments it finds (1,000-key tracks: 20 to 40 of 1,100 to
        1,750 segments) instead of once per round of cutting. A segment missing by e is cut into
        about k = (e / tolerance)^(1/4) equal pieces (each misses by about e / k^4), one cut per
        round, a k-th off the start: thirds where halving twice would make quarters (turns near
        100 degrees between keys: 5 % fewer keys)."""
        for _ in range(MAX_ROUNDS):
            doomed = self.probe_error > tolerance_deg + PROBE_FLOOR_DEG
            if not doomed.any() or len(self.times) + np.count_nonzero(doomed) > max_keys:
                return
            # k equal pieces miss by about error / k^4 each: the first is cut off now, the rest later.
            pieces = np.maximum(2.0, np.ceil((self.probe_error / tolerance_deg) ** 0.25))
            cuts = self.times[:-1] + (self.times[1:] - self.times[:-1]) / pieces
            self.split(doomed, cuts[doomed], np.zeros_like(doomed))

    def split(self, which, split_times, refit):
        """Insert a key (value = target there) in each segment of the mask ``which``, then fit both
        halves and the segments of the mask ``refit``; returns the mask of the changed segments."""
        if self.written is not None:
            which, split_times = self._float32_splits(which, split_times)
        index = np.flatnonzero(which)
        self.parents = np.repeat(np.arange(len(which)), np.where(which, 2, 1))
        if len(index):
            new_values = _unit(self.target(split_times))
            self.times = np.insert(self.times, index + 1, split_times)
            self.values = quat.make_continuous(np.insert(self.values, index + 1, new_values, 0))
            self.b, self.a = self.b[self.parents], self.a[self.parents]
            self.refined, self.probe_error = self.refined[self.parents], self.probe_error[self.parents]
        changed = (which | refit)[self.parents]
        self.refit(changed)
        return changed

    def _float32_splits(self, which, split_times):
        """Split times as written (float32: the check plays them), and the mask without the
        segments too short for a float32 time strictly inside (left as they are)."""
        rounded = as_stored(split_times, "FLOAT")
        index = np.flatnonzero(which)
        inside = (rounded > self.times[index]) & (rounded < self.times[index + 1])
        which = which.copy()
        which[index[~inside]] = False
        return which, rounded[inside]

    def fix_signs(self):
        """Conventions' 2nd and 3rd sign rules by flipping tangents (same rotations)."""
        self.b *= np.where(quat.dot(self.values[:-1], self.b) < 0.0, -1.0, 1.0)[:, None]
        self.a *= np.where(quat.dot(self.values[1:], self.a) < 0.0, -1.0, 1.0)[:, None]

    def result(self, max_error_deg=0.0, check_times=None, played=None):
        """The keys, with a_1 = v_1 and b_n = v_n (spec "CUBICSLERP Interpolation"), as written."""
        rows = self._rows(np.arange(len(self.times)))
        return CubicSlerpFit(self.times.copy(), rows[:, 0], rows[:, 1], rows[:, 2], max_error_deg,
                             check_times, played)

    def jumping(self) -> np.ndarray:
        """Per segment: whether its curve, as written, jumps (core.sampling.sqlerp_jumps)."""
        return jumping_segments(self.times, self._rows(np.arange(len(self.times))).reshape(-1, 4))

    def sampler_of(self, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(times, normalized interleaved rows) of a CUBICSLERP sampler of the given segments' end
        keys, as written. Each of those segments has the same keys and tangents there, so it plays
        the same numbers; segments bridging the gaps between them are never queried. Setting up
        only the few segments a round changed is what keeps the later rounds cheap."""
        keys = np.union1d(segments, segments + 1)
        return self.times[keys], quat.normalize(self._rows(keys).reshape(-1, 4))

    def _rows(self, keys):
        """(len(keys), 3, 4) rows a_k, v_k, b_k of the given keys, as written."""
        a = self.a[np.maximum(keys - 1, 0)]
        a[keys == 0] = self.values[0]
        b = self.b[np.minimum(keys, len(self.b) - 1)]
        b[keys == len(self.times) - 1] = self.values[-1]
        rows = np.stack([a, self.values[keys], b], axis=1)
        return rows if self.written is None else as_stored(rows, self.written)


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
        self.limit = quat.chord2_limit(tolerance_deg)
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
        chord2 = quat.chord2(played, np.take(self.q, index, axis=0))
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
        return float(quat.chord2_to_degrees(screening.settled_max(self.worst, self.exact, recheck)))
