"""One LINEAR rotation sampler of a file, rewritten in fewer bytes: what core.conversion.converter fits.

The sampler's keys are samples of a motion (capture, baking, another exporter's per-frame keys),
so the export's machinery for dense channels applies (core.fitting.rotation_export.export_keys with
``dense=True``): the target is the LINEAR curve as the spec plays it (slerp between the keys), and
the smallest within the tolerance of LINEAR keys alone (16-bit or float; the per-frame keys
themselves when their input accessor stays) and CUBICSLERP keys with a cheap fallback (LINEAR
reduced, or CUBICSPLINE at the CUBICSLERP key times) wins. A form that would not write fewer
bytes than the sampler it replaces (JSON included, roughly) is not used: the sampler stays.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..sampling import quaternions as quat
from ..gltf import COMPONENT_TYPES, TYPE_SIZES, as_stored
from ..sampling import Evaluator
from ..fitting import ChannelKeys, CubicSlerpFit, ExportOptions, export_keys
from ..constants import CUBICSLERP

# Check times per original interval (its start included): the error between a smooth curve and a
# polyline peaks at the corners (the keys) or inside the intervals; on CesiumMan and 24-30 fps
# synthetic motions it exceeded the tolerance between check points by 1.1 % with 8 (measured at 64
# per interval), and the fits aim at 0.9 of the tolerance (core.fitting.rotation_export.FIT_MARGIN).
CHECKS_PER_INTERVAL = 8
# Rough JSON bytes of one accessor with its buffer view, and of a sampler with a channel's
# extension object: a form must save more than its JSON adds (the file's check is exact).
ACCESSOR_JSON_BYTES = 150
EXTENSION_JSON_BYTES = 110
# seconds -> (T, 4) rotations as a file plays them
Player = Callable[[np.ndarray], np.ndarray]


@dataclass
class Unit:
    """One LINEAR rotation sampler of an animation and the nodes its channels rotate."""
    sampler: int
    nodes: list[int]          # node indices (channels may share a sampler)
    channels: list[int]       # channel indices in the animation
    times: np.ndarray         # (n,) key times as stored (float64 of float32 values)
    values: np.ndarray        # (n, 4) key values as read (normalized)
    old_bytes: int            # what leaving the file saves: its output (and input when its own)
    share: float = 1.0        # of the tolerance (core.fitting.world_error), and of the fallback's
    fallback_share: float = 1.0
    keys: ChannelKeys | None = None  # None: the sampler stays as it is
    note: str = ""            # why it stays
    output: int = -1          # the sampler's output accessor in the source

    def target(self) -> Evaluator:
        return Evaluator("LINEAR", self.times, self.values, rotation=True)


def check_times(times: npt.ArrayLike) -> np.ndarray:
    """Every key time and CHECKS_PER_INTERVAL - 1 evenly spaced times inside each interval,
    rounded to float32 (fits insert keys at check times, and float32-exact key times play in the
    written file exactly as fitted)."""
    times = np.asarray(times, dtype=np.float64)
    steps = np.arange(CHECKS_PER_INTERVAL) / CHECKS_PER_INTERVAL
    inside = times[:-1, None] + np.diff(times)[:, None] * steps
    check = np.append(inside.reshape(-1), times[-1]).astype(np.float32).astype(np.float64)
    return np.unique(check)  # rounding may merge the check times of a very short interval


def fit_unit(unit: Unit, tolerance_deg: float, fallback_tolerance_deg: float, min_ratio: float) -> Unit:
    """``unit`` with ``keys`` (its smallest rewrite within its shares of the tolerances) or a
    ``note`` saying why the sampler stays."""
    unit.keys, unit.note = None, ""
    target = unit.target()
    check = check_times(unit.times)
    # The converter writes the extension (or LINEAR keys alone): not a CUBICSPLINE sampler alone,
    # which the Blender export chooses where smaller (core.fitting.rotation_export.smallest_form).
    options = ExportOptions(tolerance_deg * unit.share, "AUTO", fallback_tolerance_deg * unit.fallback_share,
                            core_alone=False)
    try:
        keys = export_keys(target, unit.times, check, target(check), options, dense=True,
                           frame_times=unit.times)
    except ValueError as reason:  # the written form's rounding alone misses a tiny share
        unit.note = f"no rewrite within {options.tolerance_deg:.3g} deg: {reason}"
        return unit
    count = key_count(keys)
    if count * min_ratio > len(unit.times):
        unit.note = (f"needs {count} of its {len(unit.times)} keys within {options.tolerance_deg:.3g}"
                     f" deg, more than 1/{min_ratio:g} of them")
    elif new_bytes(keys) >= unit.old_bytes:
        unit.note = (f"no smaller: {new_bytes(keys)} bytes (JSON included, roughly) for "
                     f"{unit.old_bytes} within {options.tolerance_deg:.3g} deg")
    else:
        unit.keys = keys
    return unit


def key_count(keys: ChannelKeys) -> int:
    return len(keys.linear.times) if keys.linear is not None else len(cubicslerp(keys).times)


def cubicslerp(keys: ChannelKeys) -> CubicSlerpFit:
    """The CUBICSLERP keys of a rewrite that is not LINEAR keys alone (export_keys gives them)."""
    if keys.fit is None:
        raise ValueError(f"no CUBICSLERP keys to write ({keys.skipped or 'LINEAR keys alone'})")
    return keys.fit


def fallback(keys: ChannelKeys) -> tuple[str, np.ndarray, np.ndarray]:
    """(interpolation, times, values) of a CUBICSLERP rewrite's fallback (every "AUTO" one has it)."""
    if keys.fallback is None:
        raise ValueError("a CUBICSLERP rewrite without its fallback sampler")
    return keys.fallback


def new_bytes(keys: ChannelKeys) -> int:
    """Bytes the rewrite adds: its samplers' data and their JSON, roughly."""
    if keys.linear is not None:
        return keys.written_bytes + ACCESSOR_JSON_BYTES * (1 if keys.frame_keys else 2)
    accessors = 3 if fallback(keys)[0] == "CUBICSPLINE" else 4  # CUBICSPLINE shares the key times
    return keys.written_bytes + ACCESSOR_JSON_BYTES * accessors + EXTENSION_JSON_BYTES


def old_bytes(gltf: dict[str, Any], sampler: dict[str, Any], input_shared: bool) -> int:  # JSON: Any
    """Bytes that leave the file with ``sampler``: its output accessor's data (and its input's,
    when no other sampler uses it) and their JSON, roughly."""
    total = 0
    for key in ("output",) if input_shared else ("output", "input"):
        accessor = gltf["accessors"][int(sampler[key])]
        size = COMPONENT_TYPES[accessor["componentType"]].itemsize * TYPE_SIZES[accessor["type"]]
        total += int(accessor["count"]) * size + ACCESSOR_JSON_BYTES
    return total


def written_players(keys: ChannelKeys) -> tuple[Player, Player]:
    """(extension, fallback): seconds -> (T, 4) rotations as the file plays what ``keys`` write,
    held at the ends outside their keys (LINEAR keys alone: the same sampler twice)."""
    if keys.linear is not None:
        linear = _clamped(keys.interpolation, keys.linear.times, as_stored(keys.linear.values, keys.precision))
        return linear, linear
    fit = cubicslerp(keys)
    extension = _clamped(CUBICSLERP, fit.times, quat.normalize(as_stored(fit.interleaved(), keys.precision)))
    interpolation, times, values = fallback(keys)
    return extension, _clamped(interpolation, times, as_stored(values, keys.fallback_precision))


def _clamped(interpolation, times, values):
    times = np.asarray(times, dtype=np.float64)
    evaluator = Evaluator(interpolation, times, values, rotation=True)
    return lambda seconds: quat.normalize(evaluator(np.clip(seconds, times[0], times[-1])))
