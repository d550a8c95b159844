"""One rotation channel's export, free of Blender: the CUBICSLERP keys as a file stores them,
fitted to a motion and checked at every dense check time, and the core-spec fallback keys that
viewers without EXT_animation_sqlerp play (conventions section 3).

operators/export_rotations feeds it the motion Blender plays and writes the results into the
bundled exporter's objects (many channels at once, in threads: nothing here touches Blender);
the "as exported" preview plays the same results.
"""

from dataclasses import dataclass

import numpy as np

from . import quaternions as quat
from .accessors import as_stored
from .fallback_fit import cubicspline_fallback, linear_fallback
from .interpolation import evaluate
from .metrics import SAMPLES_PER_FRAME
from .sqlerp_fit import CubicSlerpFit, fit_cubicslerp

# The fit is checked as written (float32 times; float32 or 16-bit normalized quaternions) within
# FIT_MARGIN x tolerance of the emulated motion: the rest is room for Blender's own float32
# evaluation, which the tolerance is about. Its tangents aim lower by what the rounding of the
# written form can add, so that few segments fail the check: 16-bit normalized quaternion
# components move a rotation by up to 2 asin(2 x 0.5 / 32767) = 0.0035 degrees.
FIT_MARGIN = 0.9
QUANTIZATION_DEG = {"FLOAT": 0.0, "SHORT": 0.0035}


@dataclass
class ExportOptions:
    tolerance_deg: float = 0.01         # CUBICSLERP against the motion
    fallback: str = "LINEAR"            # "LINEAR", "CUBICSPLINE", "NONE" or "SAMPLED" (the caller's)
    fallback_tolerance_deg: float = 0.1  # the LINEAR fallback against the CUBICSLERP curve
    precision: str = "SHORT"  # CUBICSLERP output components: "FLOAT" (32-bit) or "SHORT" (normalized 16-bit)


@dataclass
class ChannelKeys:
    """What one rotation channel writes."""
    fit: CubicSlerpFit        # the CUBICSLERP keys as written, with their dense check (played)
    precision: str            # "FLOAT" or "SHORT" components; "KEPT": stored keys, written as floats
    fallback: tuple = None    # (interpolation, times, values) for channel.sampler, or None (keep it)
    fallback_error_deg: float = 0.0  # the fallback's largest angle to the CUBICSLERP curve
    fallback_precision: str = "FLOAT"  # how its values are written: "FLOAT" or "SHORT" (LINEAR)
    skipped: str = ""  # why nothing is written (fit None): the channel keeps what it has


def check_grid(start, end, key_frames):
    """The dense check frames: SAMPLES_PER_FRAME per frame from ``start``, ``end`` and every key
    frame in between, sorted. Keys on whole frames are on the grid already; the others are merged
    in (an insertion, not a sort of the whole grid)."""
    count = int(np.ceil((end - start) * SAMPLES_PER_FRAME))
    grid = start + np.arange(max(count, 0)) / SAMPLES_PER_FRAME
    grid = grid[grid < end]
    key_frames = np.asarray(key_frames, dtype=np.float64)
    extra = np.append(key_frames[(key_frames >= start) & (key_frames < end)], end)
    at = np.searchsorted(grid, extra)
    on_grid = (at < len(grid)) & (grid[np.minimum(at, len(grid) - 1)] == extra)
    return np.insert(grid, at[~on_grid], extra[~on_grid])


def export_keys(target, key_times, check_times, expected, options, stored=None):
    """ChannelKeys for a motion ``target(seconds) -> (T, 4)`` that plays ``expected`` at the
    sorted ``check_times``. ``key_times``: the animator's keys, float32 values (as written).
    ``options``: ExportOptions. ``stored``: (times, rows) of CUBICSLERP keys imported earlier,
    kept when they still play the motion."""
    fit, precision = written_fit(target, key_times, check_times, expected, options, stored)
    keys = ChannelKeys(fit, precision)
    found = fallback_keys(fit, check_times, options)
    if found is not None:
        interpolation, times, values, keys.fallback_error_deg = found
        keys.fallback = (interpolation, times, values)
        # Quaternion keys take the CUBICSLERP precision; CUBICSPLINE tangents are no unit
        # quaternions (normalized shorts cannot hold them), the one STEP key stays a float.
        keys.fallback_precision = options.precision if interpolation == "LINEAR" else "FLOAT"
    return keys


def written_fit(target, key_times, check_times, expected, options, stored=None):
    """(fit, precision) of the CUBICSLERP keys as a file stores them: the stored keys when Blender
    still plays them within the tolerance ("KEPT": a re-export keeps them to float32), else a fit
    checked in the written precision at every check time."""
    kept = _kept(stored, check_times, expected, options.tolerance_deg)
    if kept is not None:
        return kept, "KEPT"
    aim = (options.tolerance_deg - QUANTIZATION_DEG[options.precision]) * FIT_MARGIN
    fit = fit_cubicslerp(target, key_times, check_times, options.tolerance_deg * FIT_MARGIN,
                         check_values=expected, written=options.precision, aim_deg=aim)
    return fit, options.precision


def _kept(stored, check_times, expected, tolerance_deg):
    """The stored CUBICSLERP keys as a CubicSlerpFit (float32, with their dense check) when
    Blender still plays them within the tolerance (the clip was not edited since its import),
    else None."""
    if stored is None:
        return None
    times, values = (as_stored(a, "FLOAT") for a in stored)
    if len(times) < 2 or np.any(np.diff(times) <= 0.0) or times[0] < 0.0:
        return None
    played = evaluate("CUBICSLERP", times, quat.normalize(values), check_times, rotation=True)
    error = quat.max_angle_deg(played, expected)
    if error > tolerance_deg:
        return None
    v = quat.make_continuous(values[1::3])
    a, b = _same_side(values[0::3], v), _same_side(values[2::3], v)
    a[0], b[-1] = v[0], v[-1]  # never used; written as the conventions say (section 2)
    if np.any(np.einsum("ij,ij->i", b[:-1], a[1:]) < 0.0):
        return None  # the 4th sign rule fails: fitted anew, with a split key
    return CubicSlerpFit(times, a, v, b, error, check_times, played)


def _same_side(q, v):
    """Tangents flipped to the side of their key (sign rules 2 and 3: the same rotations)."""
    return q * np.where(np.einsum("ij,ij->i", q, v) < 0.0, -1.0, 1.0)[:, None]


def fallback_keys(fit, check_times, options):
    """(interpolation, times, values, largest angle to the CUBICSLERP curve as written) of the
    fallback sampler, all as written (float32 times; LINEAR values in the CUBICSLERP precision),
    or None to keep the caller's sampled one."""
    if options.fallback == "LINEAR":
        return ("LINEAR",) + linear_fallback(fit, check_times, options.fallback_tolerance_deg,
                                             written=options.precision)
    if options.fallback == "CUBICSPLINE":
        return ("CUBICSPLINE",) + cubicspline_fallback(fit, check_times, written="FLOAT")
    if options.fallback == "NONE":
        # The schema needs channel.sampler: one STEP key holding v_1 (conventions section 3). Its
        # error is reported only (tens of degrees): |p - v|^2 = 2 - 2 |p.v| for unit p and v,
        # worked in the played curve's dtype (float32 from the fit: no float64 copy of it).
        played = np.asarray(fit.played)
        dot = np.abs(played @ quat.normalize(fit.values[0]).astype(played.dtype)).min(initial=1.0)
        error = float(quat.chord2_to_degrees(2.0 - 2.0 * min(dot, 1.0)))
        return "STEP", fit.times[:1], fit.values[:1], error
    return None
