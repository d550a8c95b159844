"""Blender F-curve keyframes for one glTF sampler, in glTF value space.

Blender plays every component on its own F-curve: CONSTANT, LINEAR or BEZIER segments between keys
and constant extrapolation outside them (the same as glTF clamping). A quaternion channel is four
such curves, normalized when Blender builds the pose, so a rotation plays normalize(curve). `play`
(core/blender_model/fcurves.py)
emulates that in numpy; `keyframes_for` chooses the keys:

- exact wherever the glTF curve is that kind of curve: STEP (CONSTANT), LINEAR translation, scale
  and weights (LINEAR), CUBICSPLINE (BEZIER carrying the file's tangents; for rotations the spec
  normalizes the Hermite result just as Blender does);
- within a tolerance where it is not (slerp, CUBICSLERP): BEZIER keys at the file's keys with
  handles along the curve's one-sided derivatives (corners stay corners), and segments that miss
  split at their midpoints until they follow the curve.

BEZIER handles always sit exactly one third of the segment away in time. Then Blender's x(s) is
linear in s and the segment is the cubic Hermite in time with end slopes 3 (handle - key) / h,
whatever the values. The Blender layer must set the handles to FREE: AUTO handles would be
recomputed by fcurve.update().
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..sampling import Sampler
from ..sampling import chords
from ..sampling import quaternions as quat
from .fcurves import BEZIER, CONSTANT, LINEAR, Prepared, play  # noqa: F401 (play is public here)
from .curve_slopes import arc_slope, end_slopes, sqlerp_end_slopes, value_and_slope
from ..sampling import brackets, jump_times
from ..constants import CUBICSLERP, CUBIC_INTERPOLATIONS

# Blender stores key values as float32: a unit quaternion's components are rounded by up to 6e-8,
# which turns it by up to ~1e-5 degrees. Tighter tolerances cannot be played; they are raised to
# this (it also bounds the key count when the fit reaches float64 rounding).
MIN_TOLERANCE_DEG = 1e-5
PROBES_PER_SEGMENT = 32
MAX_ROUNDS = 16
# A segment splits when its largest probe error exceeds this fraction of the tolerance. Error
# bumps are smooth: measured over 2,048 samples per segment, their peak was at most 0.6% above the
# largest of the 32 probes.
SPLIT_AT = 0.98
# Each round first probes every pending segment at SCREEN_PROBES points; only segments whose error
# there lies between SCREEN_AT and 1 times the split limit (about 2 % of them) get the full
# PROBES_PER_SEGMENT. Measured on 170,461 segments (the CUBICSLERP benchmark rig, exports of the
# CMU clips and keyed rigs, the sample, 120 random curves with turns up to 170 degrees, the
# CUBICSPLINE rotations of the Khronos models), the peak over 1,024 points was at most 1.28
# times the largest of the 4 screen probes: a segment passed by the screen stays under
# 0.4 x 1.28 = 0.51 of the tolerance, and a file would need a peak 2.5 times its screen to pass
# one over it.
SCREEN_PROBES = 4
SCREEN_AT = 0.4
# Rotation error (degrees) of a normalized Hermite following a great-circle arc of half-angle phi
# (radians) with exact end derivatives is ARC_ERROR_DEG * phi**5: measured at 2,001 points per arc,
# 1.7e-7 degrees for a 10 degree rotation up to 0.31 for 180, the constant 0.0338 holds within 4 %
# and 0.0340 stays above every measurement.
ARC_ERROR_DEG = 0.0340
@dataclass
class Keyframes:
    """Keys of one channel's F-curves, one row per key, with their handles.

    Handles are always filled; they only shape BEZIER segments. Times are seconds in glTF's
    space (keyframes_for), frames in Blender's (blender_curves.CurveKeys.keyframes).

    Attributes
    ----------
    times : (m,) float array
        The keys' times.
    values : (m, k) float array
        The keys' values, k components (4 for quaternions).
    left_times, right_times : (m,) float array
        The times of each key's left and right handle.
    left_values, right_values : (m, k) float array
        The values of each key's left and right handle.
    interpolation : (m,) str array
        CONSTANT, LINEAR or BEZIER: interpolation[i] is the mode of the segment that starts at key
        i (the last key repeats its predecessor's).
    jumps : (j,) float array or None
        Times (seconds) where a CUBICSLERP curve jumps (core.sampling.sqlerp_jumps).
    """
    times: np.ndarray
    values: np.ndarray
    left_times: np.ndarray
    left_values: np.ndarray
    right_times: np.ndarray
    right_values: np.ndarray
    interpolation: np.ndarray
    jumps: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.times)


def keyframes_for(sampler: Sampler, tolerance_deg: float = 0.01, bake_times: npt.ArrayLike | None = None,
                  frames_per_second: float = 24.0) -> Keyframes:
    """Choose the keys that make Blender play a glTF sampler, exactly or within a tolerance.

    Rotation keys are sign-continuous. Where a CUBICSLERP curve jumps (core.sampling.sqlerp_jumps),
    a CONSTANT segment between two keys 0.02 frames apart around it holds the jump.

    Parameters
    ----------
    sampler : Sampler
        The glTF sampler; rotations (x, y, z, w).
    tolerance_deg : float
        The rotation error allowed for slerp and CUBICSLERP rotations, in degrees; raised to
        MIN_TOLERANCE_DEG, what float32 keys can play.
    bake_times : (T,) float array or None
        Seconds: LINEAR keys holding the curve's value at each of those times instead of fitted
        curves ("bake every frame").
    frames_per_second : float
        The scene's rate, which places the keys around a jump.

    Returns
    -------
    Keyframes
        In glTF values and seconds: (m,) times, (m, k) values.

    Raises
    ------
    ValueError
        ``tolerance_deg`` is not positive, or ``bake_times`` is empty.

    Examples
    --------
    >>> from gltf_sqlerp.core.sampling import Sampler
    >>> q = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)]])  # 0 and 90 degrees about Z
    >>> keys = keyframes_for(Sampler("LINEAR", np.array([0.0, 1.0]), q, "rotation", ""), tolerance_deg=0.01)
    >>> t = np.linspace(0.0, 1.0, 101)
    >>> slerp = np.stack([0 * t, 0 * t, np.sin(np.pi / 4 * t), np.cos(np.pi / 4 * t)], axis=1)  # 90t degrees about Z
    >>> bool(quat.angle_between(play(keys, t, rotation=True), slerp).max() < 0.01)  # as Blender plays the keys
    True
    """
    if not tolerance_deg > 0.0:
        raise ValueError(f"tolerance_deg must be positive, got {tolerance_deg!r}")
    tolerance_deg = max(float(tolerance_deg), MIN_TOLERANCE_DEG)
    rotation = sampler.path == "rotation" or sampler.interpolation == CUBICSLERP
    if bake_times is not None:
        return _baked(sampler, bake_times, rotation)
    times = np.asarray(sampler.times, dtype=np.float64).reshape(-1)
    values = np.asarray(sampler.values, dtype=np.float64)
    values = values[:, None] if values.ndim == 1 else values
    cubic = sampler.interpolation in CUBIC_INTERPOLATIONS
    # Equal key times (only in accessors without data) are a jump that F-curves cannot key: keep
    # the last key of each run, the value glTF plays from that time on.
    last = np.append(np.diff(times) > 0.0, True)
    if not last.all():
        times = times[last]
        values = values.reshape(len(last), -1, values.shape[1])[last].reshape(-1, values.shape[1])
    keys = values[1::3] if cubic else values
    if len(times) == 1:
        return with_handles(times, keys[:1], None, None, CONSTANT)
    if sampler.interpolation == "STEP":
        return _straight(times, quat.make_continuous(keys) if rotation else keys, CONSTANT)
    if not rotation:
        if sampler.interpolation == "LINEAR":
            return _straight(times, keys, LINEAR)
        return with_handles(times, keys, values[0::3], values[2::3], BEZIER)
    if sampler.interpolation == "LINEAR":
        return _slerp_keyframes(times, keys, tolerance_deg)
    return _rotation_keyframes(sampler, times, values, keys, tolerance_deg, frames_per_second)


# --- key sets -------------------------------------------------------------------------------------

def with_handles(times: np.ndarray, values: np.ndarray, arriving: np.ndarray | None, leaving: np.ndarray | None,
                 modes: object) -> Keyframes:
    """Keys with handles one third of the adjacent segment away in time, along the given slopes
    (value per second: ``arriving`` at a key from the left, ``leaving`` it to the right). The first
    key's left and the last key's right handle are never played (constant extrapolation): they
    mirror the other side's spacing and slope, so Blender draws a smooth tangent there."""
    times = np.array(times, dtype=np.float64)     # copies: the keys never share the sampler's data
    values = np.array(values, dtype=np.float64)
    m = len(times)
    if m == 1:
        third = np.full(1, 1.0 / 3.0)  # no segment to take a spacing from: any will do
        return Keyframes(times, values.copy(), times - third, values.copy(), times + third,
                         values.copy(), np.array([CONSTANT]))
    third = np.diff(times) / 3.0
    before = np.concatenate([third[:1], third])
    after = np.concatenate([third, third[-1:]])
    arriving, leaving = np.array(arriving, dtype=np.float64), np.array(leaving, dtype=np.float64)
    arriving[0], leaving[-1] = leaving[0], arriving[-1]
    segment_modes = np.broadcast_to(np.asarray(modes, dtype="<U8"), (m - 1,))
    return Keyframes(times, values, times - before, values - before[:, None] * arriving,
                     times + after, values + after[:, None] * leaving,
                     np.append(segment_modes, segment_modes[-1]))


def _straight(times, values, mode):
    """CONSTANT or LINEAR keys. Blender plays no handle of such segments, so the handles simply
    sit on their keys (the Blender layer does not even write them)."""
    times, values = np.array(times, dtype=np.float64), np.array(values, dtype=np.float64)
    return Keyframes(times, values, times.copy(), values.copy(), times.copy(), values.copy(),
                     np.full(len(times), mode))


def _baked(sampler, bake_times, rotation):
    times = np.unique(np.asarray(bake_times, dtype=np.float64).reshape(-1))
    if times.size == 0:
        raise ValueError("bake_times is empty")
    values = sampler.evaluate(times)
    if rotation:
        values = quat.make_continuous(values)
    if len(times) == 1:
        return with_handles(times, values, None, None, CONSTANT)
    return _straight(times, values, LINEAR)


def _slerp_keyframes(times, keys, tolerance_deg):
    """BEZIER keys for a LINEAR (slerp) rotation, in closed form.

    A slerp segment is a great-circle arc, and so is the normalized Hermite with the arc's exact
    end derivatives: both lie in the plane of the two keys. Its error therefore depends only on
    the arc's angle phi (half the rotation angle) and is ARC_ERROR_DEG * phi**5 degrees, so every
    segment is cut into the fewest equal pieces that meet the tolerance, with no probing.
    """
    v = quat.make_continuous(keys)
    h = np.diff(times)
    phi = 2.0 * np.arctan2(np.linalg.norm(v[1:] - v[:-1], axis=1),
                           np.linalg.norm(v[1:] + v[:-1], axis=1))
    budget = tolerance_deg * SPLIT_AT
    pieces = np.maximum(np.ceil((ARC_ERROR_DEG * phi ** 5 / budget) ** 0.2 - 1e-9), 1).astype(int)
    segment = np.repeat(np.arange(len(h)), pieces)
    step = np.arange(len(segment)) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    start, end = step / pieces[segment], (step + 1) / pieces[segment]
    a, b, angle, duration = v[segment], v[segment + 1], phi[segment], h[segment]
    new_values = a.copy()  # the file's keys, as stored, where a segment starts
    inner = step > 0
    if inner.any():
        new_values[inner] = quat.slerp(a[inner], b[inner], start[inner])
    new_times = np.append(times[segment] + start * duration, times[-1])
    leaving = arc_slope(a, b, angle, start) / duration[:, None]
    arriving = arc_slope(a, b, angle, end) / duration[:, None]
    m = len(new_times)
    arrive, leave = np.empty((m, 4)), np.empty((m, 4))
    leave[:-1], arrive[1:] = leaving, arriving
    return with_handles(new_times, np.vstack([new_values, v[-1:]]), arrive, leave, BEZIER)


@dataclass
class RefineStart:
    """A rotation channel's keys before refinement: sign-continuous values, their one-sided
    slopes, which segments still need checking (``pending``) and which are CONSTANT jumps."""
    times: np.ndarray
    values: np.ndarray
    arriving: np.ndarray
    leaving: np.ndarray
    pending: np.ndarray
    gaps: np.ndarray
    jumps: np.ndarray


def _rotation_keyframes(sampler, times, values, keys, tolerance_deg, frames_per_second=24.0):
    """BEZIER keys for a rotation sampler (LINEAR, CUBICSPLINE or CUBICSLERP).

    CUBICSPLINE segments whose keys have dot >= 0 keep the file's tangents (exact). Where the
    file's keys have dot < 0 the Hermite swings the long way round; sign-continuous keys cannot
    follow that exactly (the rotation path lifts to one continuous path of unit quaternions, which
    ends at the key's stored sign), so such segments are approximated like slerp segments.
    A CUBICSLERP jump gets a key either side and a CONSTANT segment between them (``gaps``).
    """
    start = rotation_start(sampler, times, values, keys, frames_per_second)
    limits = chord2_limits(tolerance_deg)
    times, values, arriving, leaving, gaps = refine(sampler, start, lambda times, segments: limits)
    refined = with_handles(times, values, arriving, leaving, gap_modes(gaps))
    refined.jumps = start.jumps
    return refined


def rotation_start(sampler: Sampler, times: np.ndarray, values: np.ndarray, keys: np.ndarray,
                   frames_per_second: float = 24.0) -> RefineStart:
    """The RefineStart of a rotation sampler (``times``, ``values``, ``keys`` as keyframes_for
    reads them): keys at the file's keys and jumps, slopes from the curve's one-sided derivatives."""
    gaps, jumps = np.zeros(len(times) - 1, dtype=bool), np.zeros(0)
    if sampler.interpolation == CUBICSLERP:
        times, keys, gaps, jumps = _with_jumps(sampler, times, values, keys, frames_per_second)
    continuous = quat.make_continuous(keys)
    flip = _signs(continuous, keys)
    n = len(times)
    if sampler.interpolation == "CUBICSPLINE":
        arriving, leaving = values[0::3] * flip, values[2::3] * flip
        pending = quat.dot(keys[:-1], keys[1:]) < 0.0
    else:
        arriving, leaving = np.zeros((n, 4)), np.zeros((n, 4))
        pending = ~gaps
    s = np.flatnonzero(pending)
    if s.size:
        if sampler.interpolation == CUBICSLERP and not len(jumps):  # the file's own segments
            out, into = sqlerp_end_slopes(values[2::3][s], values[0::3][s + 1], keys[s], keys[s + 1],
                                           times[s + 1] - times[s])
        else:
            out, into = end_slopes(sampler, times[s], times[s + 1], keys[s], keys[s + 1])
        leaving[s], arriving[s + 1] = out * flip[s], into * flip[s + 1]
    return RefineStart(times, continuous, arriving, leaving, pending, gaps, jumps)


def chord2_limits(tolerance_deg: float) -> tuple[float, float]:
    """(sure, limit) squared chords for refine(): a segment whose screen probes stay under
    ``sure`` passes; one whose worst probe is over ``limit`` splits."""
    return (float(chords.degrees_to_chord2(SCREEN_AT * SPLIT_AT * tolerance_deg)),  # chords grow as angle²
            float(chords.degrees_to_chord2(SPLIT_AT * tolerance_deg)))


def _with_jumps(sampler, times, values, keys, frames_per_second):
    """(times, keys, gaps, jumps): the CUBICSLERP keys with a key either side of every jump (the
    curve's value there, each in its side's limit), per segment whether it is such a gap, and
    the jumps' times."""
    jumps = jump_times(times, values)
    if not len(jumps):
        return times, keys, np.zeros(len(times) - 1, dtype=bool), jumps
    before, after = brackets(jumps, frames_per_second)
    segment = np.clip(np.searchsorted(times, jumps, side="right") - 1, 0, len(times) - 2)
    before = np.maximum(before, times[segment])    # a jump next to a key: that key is its side
    after = np.minimum(after, times[segment + 1])
    merged = np.unique(np.concatenate([times, before, after]))
    added = ~np.isin(merged, times)
    merged_keys = np.empty((len(merged), 4))
    merged_keys[~added] = keys
    merged_keys[added] = sampler.evaluate(merged[added])
    gaps = np.zeros(len(merged) - 1, dtype=bool)
    gaps[np.searchsorted(merged, before)] = True
    return merged, merged_keys, gaps, jumps


# (times, segments) -> (sure, limit) squared chords: scalars, or a (2, segments) array.
Limits = Callable[[np.ndarray, np.ndarray], tuple[float, float] | np.ndarray]


def refine(sampler: Sampler, start: RefineStart,
           limits: Limits) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split every pending segment that misses the curve by more than the tolerance at its
    midpoint, all at once per round; only the new halves are probed in the next round (a segment
    that passed keeps its keys and handles, so it keeps passing). Gaps (a jump between their keys)
    play CONSTANT and are never pending. ``limits(times, segments)``: chord2_limits for those
    segments (scalars, or one per segment). Returns (times, values, arriving, leaving, gaps)."""
    times, values, arriving, leaving = start.times, start.values, start.arriving, start.leaving
    pending, gaps = start.pending, start.gaps
    for _ in range(MAX_ROUNDS):
        segments = np.flatnonzero(pending)
        if not segments.size:
            break
        sure, limit = limits(times, segments)
        keys = Prepared(with_handles(times, values, arriving, leaving, gap_modes(gaps)))
        screened = _worst_chord2(sampler, keys, times, segments, SCREEN_PROBES)
        unsure = np.flatnonzero((screened > sure) & (screened <= limit))
        worst = screened.copy()
        worst[unsure] = _worst_chord2(sampler, keys, times, segments[unsure], PROBES_PER_SEGMENT)
        split = segments[worst > limit]
        if not split.size:
            break
        gaps = np.insert(gaps, split + 1, False)
        times, values, arriving, leaving, pending = _split(sampler, times, values, arriving,
                                                           leaving, split)
    return times, values, arriving, leaving, gaps


def _worst_chord2(sampler, keys, times, segments, probes):
    """Per segment, the largest squared chord (quaternions.chord2) between what Blender plays
    (``keys``: fcurve_model.Prepared) and the spec at ``probes`` points spread evenly inside it."""
    if not segments.size:
        return np.zeros(0)
    fractions = (np.arange(probes) + 0.5) / probes
    duration = times[segments + 1] - times[segments]
    at = (times[segments, None] + duration[:, None] * fractions).ravel()
    played = quat.normalize(np.ascontiguousarray(keys.play(at).T))
    return chords.chord2(played, sampler.evaluate(at)).reshape(len(segments), -1).max(axis=1)


def gap_modes(gaps: np.ndarray) -> np.ndarray:
    """Each segment's Blender interpolation: CONSTANT across a gap (a STEP hold), else BEZIER."""
    return np.where(gaps, CONSTANT, BEZIER)


def _split(sampler, times, values, arriving, leaving, split):
    """New keys at the midpoints of the ``split`` segments: the curve's value there and its
    two-sided derivative (the curve is smooth inside a segment), then signs made continuous."""
    middle = 0.5 * (times[split] + times[split + 1])
    value, slope = value_and_slope(sampler, middle, 0.5 * (times[split + 1] - times[split]))
    at = split + 1
    halves = np.zeros(len(times) - 1, dtype=bool)
    halves[split] = True
    pending = np.insert(halves, at, True)
    times = np.insert(times, at, middle)
    raw = np.insert(values, at, value, axis=0)
    values = quat.make_continuous(raw)
    flip = _signs(values, raw)
    arriving = np.insert(arriving, at, slope, axis=0) * flip
    leaving = np.insert(leaving, at, slope, axis=0) * flip
    return times, values, arriving, leaving, pending


def _signs(continuous, original):
    return np.where(quat.dot(continuous, original) < 0.0, -1.0, 1.0)[:, None]


# --- Blender's segment kernels --------------------------------------------------------------------
