"""Core-spec fallback samplers for a fitted CUBICSLERP curve (spec "Channel forms").

Viewers without EXT_animation_sqlerp play the channel's core sampler, so it should follow the
CUBICSLERP curve as closely as its interpolation allows:

- LINEAR (slerp): keys at the CUBICSLERP key times plus keys where a segment misses by more than
  the tolerance at a check time; the values lie on the curve.
- CUBICSPLINE: the same key times, tangents fitted per segment (normalize(Hermite) follows the
  curve), and the resulting error reported, since the key times are fixed.
"""

import numpy as np
import numpy.typing as npt

from ..sampling import chords
from ..sampling import quaternions as quat
from . import screening
from ..gltf import as_stored
from ..sampling import Evaluator, segment_index
from .hermite_tangents import hermite_rows
from .sqlerp_fit import CubicSlerpFit
from ..constants import CUBICSLERP, FALLBACK_TOLERANCE_DEG

MAX_ROUNDS = 32
# A segment still over the tolerance after a round gets SPLIT_MARGIN x sqrt(error / tolerance)
# pieces: its error is not the same everywhere, and exactly sqrt(...) left pieces over it, to be
# split again (1,000-key Euler and quaternion tracks: 1 % fewer keys than with 1.0 or 1.25).
SPLIT_MARGIN = 1.1
# Rounds of thinned_keys: each may halve the keys (a quarter... an eighth of them at most after 3).
THINNING_ROUNDS = 3
MAX_MERGED_TURN_DEG = 60.0


def linear_fallback(fit: CubicSlerpFit, check_times: npt.ArrayLike, tolerance_deg: float = FALLBACK_TOLERANCE_DEG,
                    written: str | None = None, max_keys: int | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(times, values, max_error_deg) of LINEAR rotation keys whose slerp stays within
    ``tolerance_deg`` of the CUBICSLERP curve ``fit`` (a CubicSlerpFit) at every check time inside
    its keys; max_error_deg is the largest angle over those check times.

    Starts from the CUBICSLERP key times and a first cut spaced by the curve's sampled bend
    (_first_cut); each round, every piece still over the tolerance gets about
    sqrt(error / tolerance) - 1 evenly spaced keys (a slerp's error to a smooth curve falls with
    the square of the piece's length). Later rounds check only the check times inside the pieces
    just split. Values are sign-continuous. ``written``: None, or
    how a file stores the keys ("FLOAT": float32; "SHORT": normalized 16-bit quaternions, float32
    times): they are checked in that form, played as a reader plays them (normalized), so the
    error is the written file's. The check is core.fitting.screening's: float32 first, float64 for the
    pieces it cannot clear. The curve comes from ``fit.played`` when the fit has it. ValueError
    as soon as the keys outnumber ``max_keys`` (None: any number).
    """
    if not tolerance_deg > 0.0:
        raise ValueError(f"tolerance_deg must be positive, got {tolerance_deg!r}")
    times = _stored_times(np.asarray(fit.times, dtype=np.float64), written)
    check, curve = _curve(fit, check_times, times)
    every_check, limit = check, chords.chord2_limit(tolerance_deg)
    times = _with(times, _stored_times(_first_cut(times, check, curve, tolerance_deg), written))
    on_curve, accepted = _OnCurve(fit), _Accepted()
    for _ in range(MAX_ROUNDS):
        if max_keys is not None and len(times) > max_keys:
            raise ValueError(f"linear_fallback: more than {max_keys} keys")
        values = quat.make_continuous(on_curve(times))
        values = as_stored(values, written) if written else values
        unit = quat.normalize(values)
        starts = np.searchsorted(check, times[:-1], side="left")
        played = _played(times, unit, check, everywhere=check is every_check)
        worst = segment_max(screening.chord2(played, curve), starts)
        exact = worst > screening.lowered(limit)
        if exact.any():  # within float32's margin of the limit: float64 decides
            worst[exact] = _played_exactly(times, unit, check, starts, np.flatnonzero(exact),
                                           on_curve)
        over = worst > limit
        checked = ~over & (np.append(starts[1:], len(check)) > starts)  # final: never split again
        accepted.add(times[:-1][checked], worst[checked], exact[checked])
        if not over.any():
            return _finished(times, values, unit, every_check, accepted, on_curve)
        pending = over[segment_index(times, check, ordered=True)]
        check, curve = check[pending], curve[:, pending]
        pieces = np.ceil(np.sqrt(chords.chord2_to_degrees(worst[over]) / tolerance_deg) * SPLIT_MARGIN)
        pieces = pieces.astype(np.intp)
        times = _with(times, _stored_times(_even_splits(times, over, pieces), written))
    raise ValueError(f"linear_fallback: no LINEAR keys within {tolerance_deg} deg after "
                     f"{MAX_ROUNDS} rounds")


def _finished(times, values, unit, check, accepted, on_curve):
    """linear_fallback's result once every piece passes: its largest error settled in float64
    over all the check times."""
    starts = np.searchsorted(check, times[:-1])
    error = accepted.max(times, lambda pieces: _played_exactly(times, unit, check, starts, pieces, on_curve))
    return times, values, float(chords.chord2_to_degrees(error))


def on_times(fit: CubicSlerpFit, check_times: npt.ArrayLike, times: npt.ArrayLike,
             written: str | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(times, values, max_error_deg) of LINEAR rotation keys at the given ``times`` (inside the
    fit's keys), their values on the CUBICSLERP curve ``fit``: the fallback with the bundled
    exporter's per-frame key times, when following the curve within its tolerance would need more
    keys than those. The error is over the check times, as written (``written`` as
    linear_fallback's)."""
    times = _stored_times(np.unique(np.asarray(times, dtype=np.float64)), written)
    times = times[(times >= fit.times[0]) & (times <= fit.times[-1])]
    values = quat.make_continuous(fit.evaluate(times))
    values = as_stored(values, written) if written else values
    check = _inside(check_times, times)
    played = Evaluator("LINEAR", times, quat.normalize(values), rotation=True)(check)
    return times, values, float(chords.max_angle_deg(played, fit.evaluate(check)))


class _Accepted:
    """The pieces each round accepts (they are never split again), by start time, with their
    largest squared chords (float64 where exact, float32 elsewhere)."""

    def __init__(self):
        self.starts, self.worst, self.exact = [], [], []

    def add(self, starts, worst, exact):
        self.starts.append(starts)
        self.worst.append(worst)
        self.exact.append(exact)

    def max(self, times, recheck):
        """The largest float64 squared chord (core.fitting.screening.settled_max); ``recheck`` takes
        piece indices of the final ``times``."""
        starts = np.concatenate(self.starts)
        pieces = np.searchsorted(times, starts)
        return screening.settled_max(np.concatenate(self.worst), np.concatenate(self.exact),
                                     lambda close: recheck(pieces[close]))


def _played(times, values, check, everywhere=False):
    """(4, n) float32 LINEAR (slerp) keys played at the sorted check times (core.fitting.screening), set
    up on the pieces holding check times only (a later round checks a few pieces of thousands;
    ``everywhere``: the check times are all of them, every piece is set up without a search);
    each piece plays its own two keys, so a sampler of those pieces' keys plays the same numbers
    there."""
    if not everywhere:
        times, values = _keys_of(times, values, _occupied(times, check))
    return screening.slerp(times, values, check)


def _played_exactly(times, values, check, starts, pieces, on_curve):
    """Float64 largest squared chords between the LINEAR keys and the curve over the check times
    inside the given ``pieces`` (``starts``: where each piece's check times begin)."""
    index, offsets, lengths = screening.runs(starts, len(check), pieces)
    query = check[index]
    played = Evaluator("LINEAR", *_keys_of(times, values, pieces), rotation=True)(query)
    return screening.group_max(chords.chord2(played, on_curve.evaluate(query)), offsets, lengths)


def _occupied(times, check):
    """The pieces of ``times`` holding any of the sorted check times."""
    piece = segment_index(times, check, ordered=True)  # sorted: its distinct values are its steps
    return piece[np.concatenate([[True], piece[1:] != piece[:-1]])] if len(piece) else piece


def _keys_of(times, values, pieces):
    """The keys of the given pieces (all of them when they are more than half)."""
    if 2 * len(pieces) >= len(times):
        return times, values
    keys = np.union1d(pieces, pieces + 1)
    return times[keys], values[keys]


class _OnCurve:
    """The CUBICSLERP curve at growing sets of key times: set up once, and each time evaluated
    once (a round adds a few keys to thousands)."""

    def __init__(self, fit):
        self.evaluate = Evaluator(CUBICSLERP, fit.times, quat.normalize(fit.interleaved()))
        self.times, self.values = np.zeros(0), np.zeros((0, 4))

    def __call__(self, times):
        at = np.minimum(np.searchsorted(self.times, times), max(len(self.times) - 1, 0))
        known = self.times[at] == times if len(self.times) else np.zeros(len(times), dtype=bool)
        values = np.empty((len(times), 4))
        values[known] = self.values[at[known]]
        values[~known] = self.evaluate(times[~known])
        self.times, self.values = times, values
        return values


def _first_cut(times, check, curve, tolerance_deg):
    """Key times to add to the CUBICSLERP keys before any slerp is evaluated: within each segment,
    spaced by the curve's sampled bend (equal shares of the keys _key_density asks for), so that
    every piece misses by about the tolerance. On 1,000-key tracks: 21 % fewer keys than cutting
    each segment evenly for its largest bend, and all but 1 to 4 % of the pieces pass the first
    dense round."""
    if len(check) < 3:
        return np.zeros(0)
    density = _key_density(times, check, curve, tolerance_deg)
    cumulative = np.concatenate([[0.0], np.cumsum(0.5 * (density[1:] + density[:-1]) * np.diff(check))])
    at_keys = np.interp(times, check, cumulative)
    pieces = np.maximum(np.ceil(np.diff(at_keys)), 1.0).astype(np.intp)
    cut = pieces > 1
    if not cut.any():
        return np.zeros(0)
    return np.interp(_even_splits(at_keys, cut, pieces[cut]), cumulative, check)


def _key_density(times, check, curve, tolerance_deg):
    """LINEAR keys per second each check time asks for.

    At a check time with neighbours d away on both sides in the same segment, the angle between
    the curve and the slerp midpoint of the neighbours is the error of a LINEAR piece of length
    2d; on a smooth curve the error grows with the square of the length, so a piece of length h
    misses by A h^2 (A = that angle / (2d)^2), and sqrt(A / tolerance) keys per second keep it
    within. Check times without such neighbours (at keys, uneven spacing) take their segment's
    largest; a floor keeps the cumulative count strictly increasing (it is inverted)."""
    segment = segment_index(times, check, ordered=True)
    before, after = check[1:-1] - check[:-2], check[2:] - check[1:-1]
    even = (segment[:-2] == segment[2:]) & (np.abs(before - after) <= 1e-9 * after)
    # Every inner sample at once on slices (views: no gathers), the uneven ones masked after;
    # component-major, as numpy is slow on a trailing axis of 4. Float32 (the screened curve's
    # precision) moves the bend estimate by far less than it varies: on 12 1,000-key tracks the
    # fallbacks got 86,100 keys against 86,123 from the float64 curve.
    previous, here, following = curve[:, :-2], curve[:, 1:-1], curve[:, 2:]
    middle = following * screening.signs(screening.dot(previous, following))
    middle += previous  # the slerp midpoint of the neighbours, unnormalized
    middle /= np.sqrt(screening.dot(middle, middle))
    chord2 = np.where(even, screening.chord2(here, middle), np.float32(0.0))
    density = np.zeros(len(check))
    bend = chords.chord2_to_degrees(chord2) / np.float32(tolerance_deg)
    density[1:-1] = np.sqrt(bend) / (2.0 * before)
    known = np.zeros(len(check), dtype=bool)
    known[1:-1] = even
    largest = segment_max(density, np.searchsorted(segment, np.arange(len(times) - 1)))
    return np.where(known, density, largest[segment]) + 1e-9


def cubicspline_fallback(fit: CubicSlerpFit, check_times: npt.ArrayLike,
                         written: str | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(times, values (3n, 4) interleaved a_i, v_i, b_i, max_error_deg) of a glTF CUBICSPLINE
    rotation sampler at the fit's key times following the CUBICSLERP curve.

    Segments are independent (segment k has key k's out-tangent and key k+1's in-tangent); the
    first in-tangent and last out-tangent are zeros (core spec). max_error_deg is the largest angle
    between the core spec's CUBICSPLINE evaluation and the curve over the check times; with
    ``written`` ("FLOAT", or "SHORT" when every row lies in [-1, 1]: tangents are per second, no
    unit quaternions), of the float32 times and rows a file stores.
    """
    times, rows = cubicspline_rows(fit, written)
    rows = as_stored(rows, written) if written else rows
    return times, rows, cubicspline_error(fit, check_times, times, rows)


def cubicspline_rows(fit: CubicSlerpFit, written: str | None = None,
                     keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(key times, as written when ``written``; interleaved rows, unrounded) of the CUBICSPLINE
    sampler cubicspline_fallback describes: a caller choosing the stored form from the rows
    rounds them itself and measures them with cubicspline_error. ``keep``: indices of the
    CUBICSLERP keys it has keys at (the first and the last among them; default: every one)."""
    kept = slice(None) if keep is None else keep
    times = _stored_times(np.asarray(fit.times, dtype=np.float64)[kept], written)
    values = quat.make_continuous(np.asarray(fit.values, dtype=np.float64)[kept])
    return times, hermite_rows(fit, times, values)


def thinned_keys(fit: CubicSlerpFit, check_times: npt.ArrayLike, tolerance_deg: float,
                 rounds: int = THINNING_ROUNDS) -> np.ndarray:
    """Indices of the CUBICSLERP keys a CUBICSPLINE sampler keeps within ``tolerance_deg`` of
    the curve: each round drops every other remaining inner key whose two segments, merged into
    one with its own fitted tangents, still follow the curve (segments are independent, so the
    others keep theirs). A fallback may miss the curve ten times more than the extension does,
    and a cubic's error grows as the fourth power of its length: it rarely needs every key."""
    keep = np.arange(len(fit.times))
    limit = screening.lowered(chords.degrees_to_chord2(tolerance_deg), margins=2)
    for _ in range(rounds):
        drop = keep[1:-1:2]
        if not len(drop):
            break
        trial = np.setdiff1d(keep, drop)
        times, rows = cubicspline_rows(fit, written="FLOAT", keep=trial)
        check, curve = _curve(fit, check_times, times)
        played = Evaluator("CUBICSPLINE", times, rows, rotation=True)(check)
        errors = segment_max(chords.chord2(played, curve.T), np.searchsorted(check, times[:-1]))
        segment = np.searchsorted(trial, drop) - 1
        ends = np.abs(np.einsum("ij,ij->i", fit.values[trial[segment]], fit.values[trial[segment + 1]]))
        # A long turn's Hermite path in 4D passes near the origin, where normalizing it swings the
        # rotation wildly between check times (a 143-degree segment: 0.096 degrees at the checks,
        # 2.3 between them): merged segments turn MAX_MERGED_TURN_DEG at most.
        merged = (errors[segment] <= limit) & (ends >= np.cos(np.radians(MAX_MERGED_TURN_DEG) / 2.0))
        if not merged.any():
            break
        keep = np.setdiff1d(keep, drop[merged])
    return keep


def cubicspline_error(fit: CubicSlerpFit, check_times: npt.ArrayLike, times: np.ndarray, rows: np.ndarray) -> float:
    """The largest angle (degrees) between CUBICSPLINE ``rows`` at ``times`` (as the spec plays
    them) and the CUBICSLERP curve ``fit`` over the check times inside them."""
    check, curve = _curve(fit, check_times, times)
    played = Evaluator("CUBICSPLINE", times, rows, rotation=True)(check)
    starts = np.searchsorted(check, times[:-1], side="left")
    worst = segment_max(chords.chord2(played, curve.T), starts)  # the curve to float32

    def recheck(segments):  # against the float64 curve
        index, offsets, lengths = screening.runs(starts, len(check), segments)
        exact = chords.chord2(played[index], fit.evaluate(check[index]))
        return screening.group_max(exact, offsets, lengths)
    error = screening.settled_max(worst, np.zeros(len(worst), dtype=bool), recheck)
    return float(chords.chord2_to_degrees(error))


def _curve(fit, check_times, times):
    """(check times inside the keys, the CUBICSLERP curve there as (4, n) float32): the fit's
    own dense check when it kept one for these check times, else core.fitting.screening's."""
    check = _inside(check_times, times)
    if fit.played is not None and np.array_equal(fit.check_times, check):
        return check, screening.as_float32(fit.played)
    return check, screening.cubicslerp(fit.times, quat.normalize(fit.interleaved()), check)


def _with(times, added):
    """The key times with ``added`` ones, sorted; float32 rounding may repeat one: kept once."""
    return np.unique(np.concatenate([times, added]))


def _stored_times(times, written):
    """float32-rounded times when ``written`` (what a file gives back), else unchanged."""
    return as_stored(times, "FLOAT") if written else times


def _inside(check_times, times):
    """The check times within the keys, sorted, without repeats (callers' dense grids are)."""
    t = np.asarray(check_times, dtype=np.float64).reshape(-1)
    t = t[(t >= times[0]) & (t <= times[-1])]
    return t if (t[1:] > t[:-1]).all() else np.unique(t)


def segment_max(x: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Max of x (as float64) over each segment's run starting at starts[k] (0 for an empty run)."""
    lengths = np.append(starts[1:], len(x)) - starts
    return screening.group_max(np.asarray(x, dtype=np.float64), starts, lengths)


def _even_splits(times, over, pieces):
    """For each segment in the mask ``over``, the inner times cutting it into ``pieces`` equal
    parts (at least two)."""
    pieces = np.maximum(pieces, 2)
    start = np.repeat(times[:-1][over], pieces - 1)
    duration = np.repeat(np.diff(times)[over], pieces - 1)
    count = np.repeat(pieces, pieces - 1)
    offsets = np.cumsum(pieces - 1) - (pieces - 1)
    rank = np.arange(len(start)) - np.repeat(offsets, pieces - 1) + 1
    return start + duration * rank / count
