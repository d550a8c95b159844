"""KHR_animation_pointer properties (materials, cameras, lights) against their stored reference.

An import keeps, per pointer F-curve, the samples Blender's importer converted from the spec
(core.blender_model.clip_record.PointerRecord: times in seconds, Blender values). They are the
spec's curve in Blender units, whatever the importer's conversion: ``reference_values`` plays it
(linear between the samples, 8 a frame; STEP from key to key), for the live preview; and
``pointer_deviations`` measures how far Blender's F-curves play from it, at the reference's own
times (they include the deviation report's check times: frames and eighth frames inside the
channel's keys; a STEP reference, its keys alone, is checked at those check times too), absolute
and in units of the range the curve spans, for the deviation report.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .clip_record import PointerRecord
from ..sampling import SAMPLES_PER_FRAME
from .blender_curves import BlenderCurves, CurveKeys
from .deviation import SNAP_FRAMES, Peak

# A STEP reference switches at float32 key frames: a frame within this many float32 ulps of a key
# plays that key (Blender compares float32 frames), as the node channels' preview does.
_KEY_SNAP_ULPS = 4
_EPSILON = float(np.finfo(np.float32).eps)
# The range of a curve that holds one value: its size's float32 resolution, never 0.
_FLAT_RANGE = 1e-6


def reference_values(record: PointerRecord, frames: npt.ArrayLike, frames_per_second: float) -> np.ndarray:
    """(len(frames), k) float64: the reference of each F-curve at action ``frames``; held before
    the first sample and after the last, as Blender holds a curve's end keys."""
    frames = np.atleast_1d(np.asarray(frames, dtype=np.float64))
    values = record.values.astype(np.float64)
    key_frames = record.times.astype(np.float64) * frames_per_second
    if record.interpolation == "STEP" or len(key_frames) < 2:
        snap = _KEY_SNAP_ULPS * _EPSILON * np.maximum(np.abs(frames), 1.0)
        at = np.searchsorted(key_frames, frames + snap, side="right") - 1
        return values[np.clip(at, 0, len(values) - 1)]
    return np.stack([np.interp(frames, key_frames, values[:, c]) for c in range(values.shape[1])], axis=1)


@dataclass
class PointerDeviation:
    """One row of the pointer table: one F-curve against its reference. ``blender`` is None where
    its curve could not be compared (``notes`` say why)."""
    index: int            # position in the clip's stored pointer records
    component: int        # the F-curve's position in that record
    target: str           # material, camera or light
    pointer: str          # the glTF property
    data_path: str
    array_index: int
    span: float           # range of the reference values (Blender units)
    blender: Peak | None  # largest |Blender - reference| and where
    notes: list[str] = field(default_factory=list)

    @property
    def relative(self) -> float | None:
        """The largest difference in units of the curve's range."""
        return None if self.blender is None else self.blender.max / self.span

    @property
    def property(self) -> str:
        return f"{self.data_path}[{self.array_index}]"


# Per component of a record: its F-curve's keys, None where the curve is gone, or a reason string
# for the whole record.
PointerCurves = Sequence[CurveKeys | None] | str


def check_frames(record: PointerRecord, frames_per_second: float) -> np.ndarray:
    """Action frames where a record is checked: its samples' times. A STEP record's samples are
    its keys alone, and it holds each key's value exactly up to the next: it is checked a hair
    after each key (SNAP_FRAMES, where Blender's float32 frame is past it whatever the rounding)
    and at every eighth frame between its first and last key (the report's check times)."""
    frames = record.times.astype(np.float64) * frames_per_second
    if record.interpolation != "STEP" or not len(frames):
        return frames
    grid = np.arange(np.ceil(frames[0] * SAMPLES_PER_FRAME), np.floor(frames[-1] * SAMPLES_PER_FRAME) + 1)
    return np.union1d(frames + SNAP_FRAMES, grid / SAMPLES_PER_FRAME)


def pointer_deviations(records: Sequence[PointerRecord], curves: Sequence[PointerCurves],
                       frames_per_second: float) -> list[PointerDeviation]:
    """Rows for every F-curve of ``records`` (``curves[i]``: record i's, see PointerCurves),
    worst first (by the difference relative to the range), curves not compared last."""
    rows = []
    for i, (record, keys) in enumerate(zip(records, curves)):
        frames = check_frames(record, frames_per_second)
        reference = record.values.astype(np.float64) if record.interpolation != "STEP" \
            else reference_values(record, frames, frames_per_second)
        for c, target in enumerate(record.curves):
            column = reference[:, c]
            span = max(float(np.ptp(column)) if len(column) else 0.0,
                       _FLAT_RANGE * max(1.0, float(np.abs(column).max(initial=0.0))))
            row = PointerDeviation(i, c, record.id_name, record.target, target.data_path,
                                   target.index, span, None)
            found = keys if isinstance(keys, str) else keys[c]
            if isinstance(found, str):
                row.notes.append(found)
            elif found is None:
                row.notes.append("its F-curve is gone")
            else:
                prepared = BlenderCurves.of([found])
                if isinstance(prepared, str):
                    row.notes.append(prepared)
                else:
                    played = prepared.values(frames, False)[0][:, 0]
                    difference = np.abs(played - column)
                    at = int(np.argmax(difference))
                    row.blender = Peak(float(difference[at]), float(frames[at] / frames_per_second),
                                       float(frames[at]))
            rows.append(row)
    rows.sort(key=lambda r: (r.relative is None, -(r.relative or 0.0)))
    return rows


def format_pointer_table(rows: Sequence[PointerDeviation], limit: int | None = None) -> list[str]:
    """The pointer rows as lines of text (a header and one line per row, worst first)."""
    if not rows:
        return []
    lines = [f"{'target':<20} {'property':<56} {'BLENDER-spec':<34} of its range"]
    for row in rows[:limit]:
        note = f"  ({'; '.join(row.notes)})" if row.notes else ""
        if row.blender is None:
            lines.append(f"{row.target[:20]:<20} {row.property[:56]:<56} -{note}")
            continue
        peak = row.blender
        cell = f"{peak.max:.3g} at {peak.time:.3f} s (frame {peak.frame:.2f})"
        lines.append(f"{row.target[:20]:<20} {row.property[:56]:<56} {cell:<34} "
                     f"{row.relative:.2e} of {row.span:.4g}{note}")
    return lines
