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
    """Play a pointer record's reference of each F-curve at action frames, for the live preview.

    LINEAR references play straight lines between their samples; STEP ones hold each sample up to
    the next, switching at float32 key frames as Blender does. Both hold their first and last
    sample outside them, as Blender holds a curve's end keys.

    Parameters
    ----------
    record : PointerRecord
        The reference: samples in seconds and Blender units.
    frames : (T,) float array
        Action frames.
    frames_per_second : float
        The action's frame rate: frame = seconds * frames_per_second.

    Returns
    -------
    (T, k) float64 array
        The reference of each of the record's k F-curves at ``frames``.

    Examples
    --------
    >>> from gltf_sqlerp.core.blender_model import CurveTarget, PointerRecord
    >>> lens = PointerRecord("/animations/0/channels/0", "/cameras/0/perspective/yfov", "CAMERA", "Camera", "",
    ...                      "LINEAR", [CurveTarget("lens", 0)], np.array([0.0, 1.0], np.float32),
    ...                      np.array([[48.0], [24.0]], np.float32))  # 48 mm at 0 s, 24 mm at 1 s
    >>> reference_values(lens, [-6.0, 6.0, 24.0, 30.0], 24.0)[:, 0].tolist()  # frames at 24 fps
    [48.0, 42.0, 24.0, 24.0]
    """
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
    """One row of the pointer table: one F-curve against its reference.

    Attributes
    ----------
    index : int
        The record's position in the clip's stored pointer records.
    component : int
        The F-curve's position in that record.
    target : str
        The material, camera or light.
    pointer : str
        The glTF property, "/cameras/0/perspective/yfov".
    data_path : str
        The F-curve's data path.
    array_index : int
        The F-curve's array index.
    span : float
        The range of the reference values (Blender units); a flat curve's is its size's float32
        resolution, never 0.
    blender : deviation.Peak or None
        The largest |Blender - reference| and where it is; None where the curve could not be
        compared (``notes`` say why).
    notes : list of str
        Why the curve was not compared.
    relative : float or None
        Read-only: ``blender.max`` in units of ``span``.
    property : str
        Read-only: "data_path[array_index]".
    """
    index: int
    component: int
    target: str
    pointer: str
    data_path: str
    array_index: int
    span: float
    blender: Peak | None
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
    """Measure how far Blender's F-curves play from their pointer references, for the report.

    Each F-curve is checked at its reference's own times (``check_frames``: a LINEAR reference's
    samples, 8 a frame; a STEP one's, a hair after each key and every eighth frame between them).

    Parameters
    ----------
    records : sequence of PointerRecord
        The references of a clip's pointer F-curves.
    curves : sequence of PointerCurves
        ``curves[i]``: record i's F-curves, per component a CurveKeys, or None where the F-curve
        is gone; or a string saying why none of the record's can be compared.
    frames_per_second : float
        The action's frame rate.

    Returns
    -------
    list of PointerDeviation
        One row per F-curve, worst first by the difference relative to the range; curves not
        compared last.

    Examples
    --------
    >>> from gltf_sqlerp.core.blender_model import CurveTarget, PointerRecord
    >>> lens = PointerRecord("/animations/0/channels/0", "/cameras/0/perspective/yfov", "CAMERA", "Camera", "",
    ...                      "LINEAR", [CurveTarget("lens", 0)], np.array([0.0, 1.0], np.float32),
    ...                      np.array([[48.0], [24.0]], np.float32))  # 48 mm at 0 s, 24 mm at 1 s
    >>> edited = np.array([[0.0, 48.0], [24.0, 30.0]])  # (frame, lens): the last key moved to 30 mm by hand
    >>> (row,) = pointer_deviations([lens], [[CurveKeys(edited, edited, edited, np.array(["LINEAR"] * 2))]], 24.0)
    >>> row.blender.max, row.blender.frame, row.relative  # 6 mm off at frame 24, a quarter of the 24 mm range
    (6.0, 24.0, 0.25)
    """
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
    """Format pointer rows as lines of text: a header, then one line per row in the rows' order.

    Parameters
    ----------
    rows : sequence of PointerDeviation
        pointer_deviations' rows (worst first).
    limit : int or None
        The most rows shown; None shows all.

    Returns
    -------
    list of str
        The lines; none at all without rows.

    Examples
    --------
    >>> row = PointerDeviation(0, 0, "Camera", "/cameras/0/perspective/yfov", "lens", 0, 24.0, Peak(6.0, 1.0, 24.0))
    >>> format_pointer_table([row])[1].split()  # 6 mm off, at 1 s, a quarter of the 24 mm range
    ['Camera', 'lens[0]', '6', 'at', '1.000', 's', '(frame', '24.00)', '2.50e-01', 'of', '24']
    """
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
