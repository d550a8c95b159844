"""Which core-spec fallback sampler a CUBICSLERP channel writes (spec "Channel forms"), and its bytes.

The fallback is what every viewer without EXT_animation_sqlerp plays, so it must follow the
CUBICSLERP curve within the fallback tolerance; it is also most of a file's cost when it is fitted
finely. The forms (ExportOptions.fallback):

- "AUTO" (the default): the smallest of LINEAR keys (core.fitting.fallback_fit.linear_fallback), a
  CUBICSPLINE sampler at the CUBICSLERP key times (which shares their input accessor) and one at
  as few of them as hold the tolerance (core.fitting.fallback_fit.thinned_keys) among those
  within the tolerance, never with more keys than the bundled exporter's per-frame sampler; when
  neither holds the tolerance (fast turns: 100 degrees in 4 frames), the one closer to the curve.
- "LINEAR" and "CUBICSPLINE": that form alone, "NONE": one STEP key (the required form), "SAMPLED":
  the bundled exporter's own sampler (None here: the caller keeps it).

Rotation outputs of every interpolation may be normalized 16-bit integers in core glTF when they
lie in [-1, 1]: LINEAR values always do, CUBICSPLINE tangents (per second) only when the rotation
turns slowly enough, so they are 16-bit only then.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..sampling import chords
from ..sampling import quaternions as quat
from ..gltf import as_stored
from .fallback_fit import cubicspline_error, cubicspline_rows, linear_fallback, on_times, thinned_keys
from .sqlerp_fit import CubicSlerpFit

if TYPE_CHECKING:  # rotation_export imports this module
    from .rotation_export import ExportOptions

# Bytes of one stored quaternion, by precision, and of one key time.
QUATERNION_BYTES = {"FLOAT": 16, "SHORT": 8}
TIME_BYTES = 4


@dataclass(frozen=True)
class Fallback:
    interpolation: str       # "LINEAR", "CUBICSPLINE" or "STEP"
    times: np.ndarray        # as written (float32 values)
    values: np.ndarray       # (n, 4) or, for CUBICSPLINE, (3n, 4) interleaved; as written
    error_deg: float         # largest angle to the CUBICSLERP curve over the check times
    precision: str           # how the values are written: "FLOAT" or "SHORT"

    def bytes(self, cubicslerp_times: np.ndarray | None) -> int:
        return sampler_bytes(self.interpolation, self.times, self.precision, cubicslerp_times)


def sampler_bytes(interpolation: str, times: np.ndarray, precision: str,
                  cubicslerp_times: np.ndarray | None = None) -> int:
    """Bytes of a rotation sampler's data: its values, and its key times unless they are the
    CUBICSLERP sampler's (one input accessor serves both)."""
    rows = 3 if interpolation == "CUBICSPLINE" else 1
    shared = cubicslerp_times is not None and np.array_equal(
        np.asarray(times, dtype=np.float32), np.asarray(cubicslerp_times, dtype=np.float32))
    return len(times) * ((0 if shared else TIME_BYTES) + rows * QUATERNION_BYTES[precision])


def fallback_keys(fit: CubicSlerpFit, check_times: np.ndarray, options: "ExportOptions",
                  frame_times: np.ndarray | None = None) -> Fallback | None:
    """The Fallback of ExportOptions ``options`` for the CUBICSLERP keys ``fit``, as written, or
    None to keep the caller's sampled one. ``frame_times``: the bundled exporter's per-frame key
    times, which an "AUTO" fallback never outnumbers."""
    mode, tolerance = options.fallback, options.fallback_tolerance_deg
    if mode == "AUTO":
        return _smallest(fit, check_times, tolerance, options.precision, frame_times)
    if mode == "LINEAR":
        return _linear(fit, check_times, tolerance, options.precision)
    if mode == "CUBICSPLINE":
        return _cubicspline(fit, check_times, options.precision)
    if mode == "NONE":
        return _first_key(fit)
    return None


def _smallest(fit, check_times, tolerance, precision, frame_times):
    """The "AUTO" choice (see the module's text). LINEAR keys are fitted last, and given up as
    soon as they outnumber what would make them smaller than the CUBICSPLINE candidates (on
    keyed rigs they need ten times the keys: fitting them all took most of the export's time)."""
    candidates = [_cubicspline(fit, check_times, precision)]
    keep = thinned_keys(fit, check_times, tolerance)
    if len(keep) < len(fit.times):  # fewer keys, on an input of their own
        candidates.append(_cubicspline(fit, check_times, precision, keep))
    budget = len(frame_times) if frame_times is not None and len(frame_times) >= 2 else None
    within = [c for c in candidates if c.error_deg <= tolerance]
    if within:  # a key costs its value at least (its time may be shared)
        smaller = (min(c.bytes(fit.times) for c in within) - 1) // QUATERNION_BYTES[precision]
        budget = smaller if budget is None else min(budget, smaller)
    try:
        candidates.append(_linear(fit, check_times, tolerance, precision, budget))
        within = [c for c in candidates if c.error_deg <= tolerance]
    except ValueError:  # more keys than that
        pass
    if within:
        return min(within, key=lambda c: c.bytes(fit.times))
    if len(candidates) == 1 and frame_times is not None:
        # LINEAR needed more keys than a frame each: those keys instead (no frame times: none)
        times, values, error = on_times(fit, check_times, frame_times, written=precision)
        candidates.append(Fallback("LINEAR", times, values, error, precision))
    return min(candidates, key=lambda c: c.error_deg)


def _linear(fit, check_times, tolerance, precision, max_keys=None):
    """LINEAR keys within ``tolerance`` of the curve, values in the CUBICSLERP precision
    (ValueError beyond ``max_keys``)."""
    times, values, error = linear_fallback(fit, check_times, tolerance, written=precision, max_keys=max_keys)
    return Fallback("LINEAR", times, values, error, precision)


def _cubicspline(fit, check_times, precision, keep=None):
    """CUBICSPLINE at the CUBICSLERP key times (those at ``keep``): 16-bit when ``precision`` is
    and every row fits in [-1, 1], else floats; measured as written."""
    times, rows = cubicspline_rows(fit, written="FLOAT", keep=keep)
    stored = "SHORT" if precision == "SHORT" and np.abs(rows).max() <= 1.0 else "FLOAT"
    rows = as_stored(rows, stored)
    return Fallback("CUBICSPLINE", times, rows, cubicspline_error(fit, check_times, times, rows), stored)


def _first_key(fit):
    """The required form's fallback: one STEP key holding v_1 (the schema needs channel.sampler,
    spec "Channel forms"). Its error is reported only (tens of degrees): |p - v|^2 = 2 - 2 |p.v|
    for unit p and v, worked in the played curve's dtype (float32 from the fit: no float64 copy)."""
    played = np.asarray(fit.played)
    dot = np.abs(played @ quat.normalize(fit.values[0]).astype(played.dtype)).min(initial=1.0)
    error = float(chords.chord2_to_degrees(2.0 - 2.0 * min(dot, 1.0)))
    return Fallback("STEP", fit.times[:1], fit.values[:1], error, "FLOAT")
