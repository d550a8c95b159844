"""One rotation channel's export, free of Blender: the CUBICSLERP keys as a file stores them,
fitted to a motion and checked at every dense check time, and the core-spec fallback keys that
viewers without EXT_animation_sqlerp play (spec "Channel forms").

operators/export_rotations feeds it the motion Blender plays and writes the results into the
bundled exporter's objects (many channels at once, in threads: nothing here touches Blender);
the "as exported" preview plays the same results.

Dense channels (a key per frame or closer: motion capture, baked and imported clips) are samples of a
motion, not an animator's keys: their key times are chosen freely, and they take whichever form
writes fewer bytes within the tolerance: CUBICSLERP keys with their fallback, or LINEAR keys alone
(core.fitting.linear_reduction: a core sampler that plays the motion itself, in every viewer, so the channel
needs no extension). Real clips' corners make the LINEAR form the smaller one at fine tolerances.
"""

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from ..sampling import chords
from ..sampling import quaternions as quat
from ..gltf import as_stored
from .fallback_fit import THINNING_ROUNDS
from .channel_keys import EXTENSION_JSON_BYTES, ChannelKeys
from .fallback_forms import QUATERNION_BYTES, TIME_BYTES, fallback_keys
from ..sampling import evaluate
from .linear_reduction import LinearKeys, linear_on, reduce_linear
from ..sampling import SAMPLES_PER_FRAME
from .spline_alone import fit_spline_alone
from .sqlerp_fit import CubicSlerpFit, FitOptions, fit_cubicslerp
from .stored_keys import kept_fit
from .sqlerp_tangents import Target
from ..constants import FALLBACK_TOLERANCE_DEG, ROTATION_TOLERANCE_DEG

# The fit is checked as written (float32 times; float32 or 16-bit normalized quaternions) within
# FIT_MARGIN x tolerance of the emulated motion: the rest is room for Blender's own float32
# evaluation, which the tolerance is about. Its tangents aim lower by what the rounding of the
# written form can add, so that few segments fail the check: 16-bit normalized quaternion
# components move a rotation by up to 2 asin(2 x 0.5 / 32767) = 0.0035 degrees.
FIT_MARGIN = 0.9
QUANTIZATION_DEG = {"FLOAT": 0.0, "SHORT": 0.0035}
# 16-bit values pay off while the tolerance leaves the fit this many times their rounding: below,
# the keys a 16-bit fit needs to aim under the rounding outnumber the bytes it saves (a cubic
# curve's keys grow as aim^-1/4 and 16-bit halves 48 of a key's 52 bytes: break-even near 1.1x).
SHORT_HEADROOM = 1.2
# A channel whose CUBICSLERP curve needs at most this many keys may be still, or nearly a slerp
# between its ends: LINEAR keys alone (no extension) are then tried, and written when smaller.
FEW_KEYS = 4


@dataclass
class ExportOptions:
    """Options of a rotation channel's export (``export_keys``), and of the export's other paths.

    Attributes
    ----------
    tolerance_deg : float
        The bound of what the written keys play (CUBICSLERP, or a core sampler alone) against the
        motion, in degrees.
    fallback : str
        The fallback's form: "AUTO", "LINEAR", "CUBICSPLINE", "NONE" or "SAMPLED"
        (core.fitting.fallback_forms).
    fallback_tolerance_deg : float
        The bound of the fallback against the CUBICSLERP curve, in degrees.
    precision : str
        CUBICSLERP output components: "FLOAT" (32-bit) or "SHORT" (normalized 16-bit).
    property_tolerance : float
        Translation, scale and weights keys stay within this fraction of the model's size (0:
        the per-frame keys are kept; core.fitting.property_export says how each path uses it).
    world_space : bool
        The tolerances hold for world rotations (operators/export_world); False: per channel.
    core_alone : bool
        With the "AUTO" fallback, a channel whose CUBICSPLINE sampler alone writes fewer bytes than
        the extension with its fallback is written so (``smallest_form``); False: the extension
        always.

    Examples
    --------
    >>> ExportOptions(tolerance_deg=0.05, fallback="LINEAR").precision  # the others keep their defaults
    'SHORT'
    """
    tolerance_deg: float = ROTATION_TOLERANCE_DEG
    fallback: str = "AUTO"
    fallback_tolerance_deg: float = FALLBACK_TOLERANCE_DEG
    precision: str = "SHORT"
    property_tolerance: float = 1e-4
    world_space: bool = True
    core_alone: bool = True


def check_grid(start: float, end: float, key_frames: npt.ArrayLike) -> np.ndarray:
    """Build the dense check frames of a range and its key frames.

    Keys on whole frames are on the grid already; the others are merged in (an insertion, not a
    sort of the whole grid).

    Parameters
    ----------
    start : float
        The range's first frame.
    end : float
        Its last frame.
    key_frames : (K,) float array
        Key frames; those outside [start, end] are left out.

    Returns
    -------
    (T,) float array
        Sorted frames: SAMPLES_PER_FRAME per frame from ``start``, ``end`` and every key frame in
        between.

    Examples
    --------
    >>> check_grid(0.0, 1.0, [0.0, 0.3, 1.0]).tolist()  # 8 per frame, the key at 0.3 merged in
    [0.0, 0.125, 0.25, 0.3, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0]
    """
    count = int(np.ceil((end - start) * SAMPLES_PER_FRAME))
    grid = start + np.arange(max(count, 0)) / SAMPLES_PER_FRAME
    grid = grid[grid < end]
    key_frames = np.asarray(key_frames, dtype=np.float64)
    extra = np.append(key_frames[(key_frames >= start) & (key_frames < end)], end)
    at = np.searchsorted(grid, extra)
    on_grid = (at < len(grid)) & (grid[np.minimum(at, len(grid) - 1)] == extra)
    return np.insert(grid, at[~on_grid], extra[~on_grid])


def export_keys(target: Target, key_times: np.ndarray, check_times: np.ndarray, expected: np.ndarray,
                options: ExportOptions, *, stored: tuple[np.ndarray, np.ndarray] | None = None, dense: bool = False,
                frame_times: np.ndarray | None = None, max_keys: int | None = None) -> ChannelKeys:
    """Fit and choose the keys one rotation channel writes for a motion.

    Stored keys that still play the motion are kept; otherwise the form that holds the tolerance
    in the fewest bytes is chosen (with the "AUTO" fallback: LINEAR keys alone, a CUBICSPLINE
    sampler alone or CUBICSLERP keys with their fallback; ``smallest_form``).

    Parameters
    ----------
    target : callable
        ``target(seconds) -> (T, 4)`` unit quaternions (x, y, z, w): the motion.
    key_times : (K,) float array
        The animator's keys in seconds, float32 values (as written).
    check_times : (C,) float array
        Sorted seconds at which the keys are checked (``check_grid``'s frames in seconds).
    expected : (C, 4) float array
        The motion at ``check_times``.
    options : ExportOptions
        Tolerances, fallback form and precision.
    stored : tuple ((n,) float array, (3n, 4) float array) or None
        (times, rows) of CUBICSLERP keys imported earlier, kept when they still play the motion.
    dense : bool
        The keys are samples of a motion: only the first and last are kept and the form that
        writes fewer bytes is chosen.
    frame_times : (F,) float array or None
        The times of the bundled exporter's per-frame keys, which a LINEAR fallback never
        outnumbers.
    max_keys : int or None
        The most keys the channel may take.

    Returns
    -------
    ChannelKeys
        The keys as written, with their error and bytes.

    Raises
    ------
    ValueError
        When the tolerance needs more than ``max_keys`` keys: a finer share of the tolerance than
        is worth its bytes.

    Examples
    --------
    A turn at constant speed is a slerp between its ends: two LINEAR keys hold it, no extension.

    >>> from gltf_sqlerp.core.sampling import quaternions as quat
    >>> turn = lambda t: quat.exp(np.outer(t, [0.0, 0.0, np.pi / 4]))  # 90 deg about Z in 1 s
    >>> checks = np.linspace(0.0, 1.0, 25)
    >>> keys = export_keys(turn, np.array([0.0, 1.0]), checks, turn(checks), ExportOptions())
    >>> keys.interpolation, keys.key_count, keys.fit is None
    ('LINEAR', 2, True)
    """
    requested, options = options.precision, _precise_enough(options)
    kept = kept_fit(stored, check_times, expected, options.tolerance_deg)
    if kept is not None:
        return _with_fallback(ChannelKeys(kept, "KEPT"), check_times, options, frame_times)
    if dense:
        return _dense_keys(target, key_times, check_times, expected, options, frame_times, requested,
                           max_keys)
    if options.fallback == "AUTO" and options.core_alone:  # a core sampler alone may be smaller
        # LINEAR keys in fewer bytes than any CUBICSPLINE sampler writes (two keys) win outright:
        # tried first where the animator keyed few, they spare those still or nearly slerping
        # channels the spline's fit, most of a few-key rig's fitting time. Channels keyed more
        # would pay for the try (measured: docs/manual/benchmarks.md, "Export of real dense
        # animation" and "Export of Blender-keyed rigs").
        if len(key_times) <= FEW_KEYS:
            floor = 2 * (TIME_BYTES + 3 * QUATERNION_BYTES[options.precision])
            few = _few_linear_keys(check_times, expected, options, floor)
            if few is not None and (max_keys is None or few.key_count <= max_keys):
                return few
        keys = smallest_form(target, key_times, check_times, expected, options, frame_times, max_keys)
    else:
        fit = written_fit(target, key_times, check_times, expected, options, max_keys=max_keys)
        keys = _with_fallback(ChannelKeys(fit, options.precision), check_times, options, frame_times)
    if keys.key_count <= FEW_KEYS:  # still, or nearly a slerp: LINEAR keys alone may be smaller
        few = _few_linear_keys(check_times, expected, options, keys.written_bytes)
        keys = few if few is not None else keys
    return keys


def smallest_form(target: Target, key_times: np.ndarray, check_times: np.ndarray, expected: np.ndarray,
                  options: ExportOptions, frame_times: np.ndarray | None = None,
                  max_keys: int | None = None) -> ChannelKeys:
    """The "AUTO" choice: a CUBICSPLINE sampler alone (core.fitting.spline_alone) where one holds
    the tolerance within ``max_keys`` (or a key per check time), else CUBICSLERP keys with their
    fallback.

    On every benchmark rig (issue 34: keyed and dense, 4 to 69 bones, 4 to 100 degrees between
    keys), CUBICSLERP needed at least as many keys as the sampler alone, 28 bytes each at best
    where the sampler's are 28 or 52, and its fallback adds keys of its own: fitted beside every
    sampler that held, it never made a smaller file, and it took much of the export's time
    (measured: docs/manual/benchmarks.md, "Export of Blender-keyed rigs"). So it is only fitted
    where no sampler alone holds."""
    limit = max_keys if max_keys is not None else max(len(check_times), 2)
    spline = _spline_alone(target, key_times, check_times, expected, options, limit)
    if spline is not None:
        return spline
    fit = written_fit(target, key_times, check_times, expected, options, max_keys=max_keys)
    return _with_fallback(ChannelKeys(fit, options.precision), check_times, options, frame_times)


def fallback_floor(keys: int) -> int:
    """The fewest bytes any fallback of ``keys`` CUBICSLERP keys writes: THINNING_ROUNDS halvings
    of a 16-bit CUBICSPLINE sampler's keys on an input of its own, or a LINEAR one keeping every
    key (12 bytes each)."""
    short = QUATERNION_BYTES["SHORT"]
    return min((keys // 2**THINNING_ROUNDS + 2) * (TIME_BYTES + 3 * short), keys * (TIME_BYTES + short))


def _spline_alone(target, key_times, check_times, expected, options, max_keys):
    """ChannelKeys of a CUBICSPLINE sampler alone within the tolerance from ``key_times``, or
    None when it needs more than ``max_keys`` keys."""
    try:
        spline, written = fit_spline_alone(target, key_times, check_times, expected,
                                           options.tolerance_deg * FIT_MARGIN, options.precision, int(max_keys))
    except ValueError:
        return None
    return ChannelKeys(None, written, linear=spline, spline=True)


def stepped_keys(key_times: np.ndarray, values: npt.ArrayLike, check_times: np.ndarray, expected: np.ndarray,
                 options: ExportOptions) -> ChannelKeys | None:
    """ChannelKeys of STEP keys alone (``values`` (n, 4) at the float32 ``key_times``) for a
    motion that holds each key's rotation until the next (Blender's constant interpolation), or
    None when they miss ``expected`` at the check times by more than the tolerance. A smooth
    curve cannot jump: fitted to a step, CUBICSLERP needs keys at every check time around it."""
    options = _precise_enough(options)
    values = quat.make_continuous(np.asarray(values, dtype=np.float64))
    stored = as_stored(values, options.precision)
    keep = np.ones(len(key_times), dtype=bool)
    keep[1:] = np.any(stored[1:] != stored[:-1], axis=1)  # a key that changes nothing
    times, stored = np.asarray(key_times)[keep], stored[keep]
    # Checked at float32 times as a viewer reads them: a jump lands on its key time exactly.
    played = evaluate("STEP", times, quat.normalize(stored), as_stored(check_times, "FLOAT"))
    error = chords.max_angle_deg(played, expected)
    if error > options.tolerance_deg * FIT_MARGIN:
        return None
    return ChannelKeys(None, options.precision, linear=LinearKeys(times, stored, error), step=True)


def _precise_enough(options):
    """``options`` with float values when 16-bit rounding would take most of the tolerance (a
    channel deep in a chain gets a small share of it: core.fitting.world_error)."""
    room = options.tolerance_deg * FIT_MARGIN
    if room < SHORT_HEADROOM * QUANTIZATION_DEG[options.precision]:
        return replace(options, precision="FLOAT")
    return options


def _few_linear_keys(check_times, expected, options, budget_bytes):
    """ChannelKeys of LINEAR keys alone within the tolerance when they write fewer than
    ``budget_bytes``, else None."""
    per_key = TIME_BYTES + QUATERNION_BYTES[options.precision]
    try:
        linear = reduce_linear(check_times, expected, options.tolerance_deg * FIT_MARGIN,
                               written=options.precision, max_keys=(budget_bytes - 1) // per_key)
    except ValueError:  # more keys than that, or the written rounding alone misses
        return None
    return ChannelKeys(None, options.precision, linear=linear)


def new_fallback(keys: ChannelKeys, check_times: np.ndarray, options: ExportOptions,
                 frame_times: np.ndarray | None = None) -> ChannelKeys:
    """A copy of CUBICSLERP ``keys`` with the fallback of ``options`` fitted anew (a tighter
    fallback tolerance), the CUBICSLERP keys as they were."""
    return _with_fallback(replace(keys), check_times, _precise_enough(options), frame_times)


def _with_fallback(keys, check_times, options, frame_times=None):
    """``keys`` with the fallback of ``options`` for its CUBICSLERP fit."""
    found = fallback_keys(keys.fit, check_times, options, frame_times)
    if found is not None:
        keys.fallback = (found.interpolation, found.times, found.values)
        keys.fallback_error_deg, keys.fallback_precision = found.error_deg, found.precision
    return keys


def _dense_keys(target, key_times, check_times, expected, options, frame_times, requested,
                max_keys=None):
    """The smallest of LINEAR keys alone, (with the "AUTO" fallback) a CUBICSPLINE sampler alone
    and CUBICSLERP keys with their fallback, within the tolerance, the extension's JSON counted.
    CUBICSLERP is fitted twice: from the range's ends, each missing segment split at its worst
    check time (a polyline's error sits at its corners: capture and imported clips play LINEAR
    between their keys), and keeping every key, segments halved where they miss (smooth curves
    through the keys: baked Bezier motion). Each stops as soon as it would need more keys than the
    smaller core form's bytes buy. ``requested``: the precision asked for (LINEAR keys may keep
    16-bit values where CUBICSLERP ones, whose aim the rounding lowers, do not)."""
    tolerance = options.tolerance_deg * FIT_MARGIN
    linear = _linear_alone(check_times, expected, tolerance, requested, frame_times, max_keys)
    candidates = [linear]
    if options.fallback == "AUTO" and options.core_alone:  # smooth dense motion: a spline alone
        ends = np.asarray(key_times)[[0, -1]]
        within = max(2, (linear.written_bytes - 1) // (TIME_BYTES + 3 * QUATERNION_BYTES["SHORT"]))
        spline = _spline_alone(target, ends, check_times, expected, options, within)
        if spline is None or spline.key_count > len(key_times):
            # Keys that are knots of the curve (Bezier through every sample): a spline from
            # them (thinned), where even pieces from the ends missed them and needed more keys
            # than the knots (rough turns; measured: docs/manual/benchmarks.md, "Export of
            # Blender-keyed rigs").
            spline = _spline_alone(target, key_times, check_times, expected, options, within)
        if spline is not None and (max_keys is None or spline.key_count <= max_keys):
            candidates.append(replace(spline, dense=True))
        # CUBICSLERP needs at least the sampler's keys (smallest_form): where those cost more
        # than the LINEAR keys' bytes (no spline within them), its keys would too.
        return min(candidates, key=lambda keys: keys.file_bytes)
    best = min(keys.file_bytes for keys in candidates)
    # CUBICSLERP keys only pay off below this many: each writes its bytes and a share of the
    # fewest a fallback writes (fallback_floor: at least 3.5 bytes a key).
    per_key = TIME_BYTES + 3 * QUATERNION_BYTES[options.precision] + 3.5
    budget = max(2, int((best - EXTENSION_JSON_BYTES - 1) // per_key))
    budget = budget if max_keys is None else min(budget, max_keys)
    for keys, split_at in ((np.asarray(key_times)[[0, -1]], "worst"), (key_times, "middle")):
        if len(keys) > budget:
            continue
        try:
            fit = written_fit(target, keys, check_times, expected, options, split_at, budget)
        except ValueError:  # more keys than the smallest form's bytes
            continue
        extension = ChannelKeys(fit, options.precision, dense=True)
        if extension.extension_bytes + EXTENSION_JSON_BYTES + fallback_floor(len(fit.times)) >= best:
            continue  # its fallback, the costliest fit, could not make it the smaller
        candidates.append(_with_fallback(extension, check_times, options, frame_times))
        best = min(best, candidates[-1].file_bytes)
    return min(candidates, key=lambda keys: keys.file_bytes)


def _linear_alone(check_times, expected, tolerance, precision, frame_times, max_keys=None):
    """ChannelKeys of the fewest LINEAR keys within ``tolerance`` (16-bit values, or floats where
    a tolerance near the 16-bit rounding makes those fewer bytes), or of the per-frame keys
    (whose times the bundled sampler's input accessor holds already) when those hold it too
    and write fewer bytes. ValueError when neither holds it within ``max_keys``."""
    keys = None
    for written in ("SHORT", "FLOAT") if precision == "SHORT" else ("FLOAT",):
        if keys is not None and tolerance >= 2.0 * QUANTIZATION_DEG["SHORT"]:
            break  # well above the rounding, 16-bit keys are the smaller
        try:
            reduced = ChannelKeys(None, written, dense=True, linear=reduce_linear(
                check_times, expected, tolerance, written=written, max_keys=max_keys))
        except ValueError:  # the written rounding alone misses (floats next), or more keys
            continue
        if keys is None or reduced.written_bytes < keys.written_bytes:
            keys = reduced
    if keys is None:
        raise ValueError(f"LINEAR keys within {tolerance:g} deg need more than {max_keys} keys")
    if frame_times is None:
        return keys
    try:
        on_frames = linear_on(check_times, expected, frame_times, written=keys.precision)
    except ValueError:  # frames outside the check times (another range): not shareable
        return keys
    shared = ChannelKeys(None, keys.precision, dense=True, linear=on_frames, frame_keys=True)
    if on_frames.max_error_deg <= tolerance and shared.written_bytes < keys.written_bytes:
        return shared
    return keys


def written_fit(target: Target, key_times: np.ndarray, check_times: np.ndarray, expected: np.ndarray,
                options: ExportOptions, split_at: str = "middle", max_keys: int | None = None) -> CubicSlerpFit:
    """The CUBICSLERP keys as a file stores them, fitted and checked in the written precision at
    every check time (``split_at`` and ``max_keys`` as core.fitting.sqlerp_fit.fit_cubicslerp's)."""
    aim = (options.tolerance_deg - QUANTIZATION_DEG[options.precision]) * FIT_MARGIN
    fitting = FitOptions(options.tolerance_deg * FIT_MARGIN, max_keys, split_at, options.precision, aim)
    return fit_cubicslerp(target, key_times, check_times, fitting, check_values=expected)
