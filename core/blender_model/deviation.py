"""How far apart an imported clip's three sources play, channel by channel.

The three sources (Blender target space, the values the F-curves drive):

- EXTENSION: the channel's stored ``sampler`` (the CUBICSLERP one for EXT_animation_sqlerp
  channels, the only one otherwise);
- FALLBACK: the stored ``fallback``, or the ``sampler`` again where a channel has none;
- BLENDER: the channel's F-curve keys as Blender plays them (core.blender_model.blender_curves, on
  fcurves' exact emulation), quaternions normalized as Blender does when it builds the pose.

For each pair the largest difference over dense times and where it peaks: the angle in degrees
(spec "Error measure") for rotations, the largest absolute component difference otherwise.
Angles are the same in glTF and Blender space: the map between them is left and right
multiplication by fixed unit quaternions, which keeps the angle between two rotations.
Records are core.blender_model.clip_record.ChannelRecord (what an import stores on its Action).
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..sampling import quaternions as quat
from ..gltf import as_stored
from ..sampling import Sampler
from .blender_curves import CurveKeys, Curves, blender_values
from .clip_record import ChannelRecord
from .keyframes import Keyframes
from ..sampling import SAMPLES_PER_FRAME, dense_times
from ..sampling import PosePlayer
from ..sampling import jump_times
from ..constants import CUBICSLERP

SOURCES = ("EXTENSION", "FALLBACK", "BLENDER")
PAIRS = ("EXTENSION-FALLBACK", "EXTENSION-BLENDER", "FALLBACK-BLENDER")
# Dense samples this close to a key (frames) are moved onto it. A sample a hair before a STEP key
# (dense times end at the float32 key time of the file, so they miss exact key times by ~1e-7)
# would compare the value before the jump with Blender's value after it (Blender plays at float32
# frames, where the sample is on the key): a full step of "deviation" that no one can see.
SNAP_FRAMES = 1e-3
_WIDTH = 34  # a table cell: "0.09921° at 1.688 s (frame 40.50)"
_XYZW = [1, 2, 3, 0]  # Blender quaternions (w, x, y, z) -> glTF order for quaternions.angle_between
_BONE = re.compile(r'^pose\.bones\["((?:[^"\\]|\\.)*)"\]')


@dataclass(frozen=True)
class Peak:
    """The largest difference between two sources (degrees for rotations) and where it is."""
    max: float
    time: float   # seconds (spec time)
    frame: float  # action frame: time * frames_per_second


@dataclass
class ChannelDeviation:
    """One row of the report: one channel (a bone's or object's rotation, location, scale, or a
    mesh's morph weights). A pair involving BLENDER is None where Blender's curves could not be
    compared (``notes`` say why)."""
    index: int            # position in the stored channel records
    target: str           # bone name, object name, or "<Key> (shape keys)"
    path: str             # glTF path: translation, rotation, scale, weights
    data_path: str
    rotation: bool
    source: str           # the reference the curves should play: EXTENSION or FALLBACK
    has_fallback: bool
    ext_fallback: Peak
    ext_blender: Peak | None
    fallback_blender: Peak | None
    notes: list[str] = field(default_factory=list)

    @property
    def unit(self) -> str:
        return "°" if self.rotation else ""

    @property
    def pairs(self) -> dict[str, Peak | None]:
        return dict(zip(PAIRS, (self.ext_fallback, self.ext_blender, self.fallback_blender)))

    @property
    def worst(self) -> float:
        """The largest of the three maxima."""
        return max(p.max for p in self.pairs.values() if p is not None)

    def blender_vs(self, source: str | None = None) -> Peak | None:
        """BLENDER against ``source`` (default: this row's reference), the measure add-keys uses."""
        source = source or self.source
        return self.fallback_blender if source == "FALLBACK" else self.ext_blender


def clip_times(records: Sequence[ChannelRecord], frames_per_second: float,
               per_frame: int = SAMPLES_PER_FRAME) -> np.ndarray:
    """Dense times (seconds) over the clip, 0 to the last key of any stored sampler; a sample
    within SNAP_FRAMES of a key is taken at the key's time itself."""
    keys = np.unique(np.concatenate(
        [np.zeros(1)] + [s.times for r in records for s in (r.sampler, r.fallback) if s is not None]))
    times = dense_times(0.0, float(keys[-1]), frames_per_second, per_frame)
    bounded = np.concatenate([[-np.inf], keys, [np.inf]])
    after = np.searchsorted(bounded, times)
    below, above = bounded[after - 1], bounded[after]
    nearest = np.where(times - below <= above - times, below, above)
    snap = np.abs(nearest - times) * frames_per_second <= SNAP_FRAMES
    times[snap] = nearest[snap]
    return times


def stored_sampler(record: ChannelRecord, source: str = "EXTENSION") -> Sampler:
    """The record's sampler for ``source`` as a core Sampler (glTF values, seconds)."""
    data = record.played(source)
    return Sampler(data.interpolation, data.times, data.values, record.path, data.pointer)


def affine_map(record: ChannelRecord) -> tuple[np.ndarray, np.ndarray]:
    """(matrix (k, k), offset (k,)): Blender value = matrix @ glTF value + offset."""
    return record.matrix, record.offset


def source_values(records: Sequence[ChannelRecord], source: str, times: npt.ArrayLike) -> list[np.ndarray]:
    """Per record, the values ``source`` plays at ``times`` in Blender target space: (T, k),
    rotations normalized (core.sampling.pose_player, batched over the channels)."""
    return PosePlayer.from_records(records, source).over(times)


def peak(a: np.ndarray, b: np.ndarray, rotation: bool, times: np.ndarray, frames_per_second: float) -> Peak:
    """Largest difference of two (T, k) tracks and its time."""
    if rotation:
        difference = quat.angle_between(a[:, _XYZW], b[:, _XYZW])
    elif a.shape[1]:
        difference = np.abs(a - b).max(axis=1)
    else:
        difference = np.zeros(len(times))
    at = int(np.argmax(difference))
    return Peak(float(difference[at]), float(times[at]), float(times[at] * frames_per_second))


def _played(curves, frames, rotation):
    """(values, columns compared) that Blender plays from a record's curves, or why not."""
    if isinstance(curves, str):
        return curves
    played = blender_values(curves, frames, rotation)
    if isinstance(played, str):
        return played
    values, mask = played
    if rotation and not mask.all():
        return "a quaternion component has no F-curve target"
    if not mask.any():
        return "no F-curves"
    return values, slice(None) if rotation else mask


def blender_peak(record: ChannelRecord, curves: Curves | str, source: str, times: np.ndarray,
                 frames_per_second: float) -> Peak | str:
    """BLENDER (``curves``, e.g. keys about to be written) against ``source`` for one record:
    a Peak, or a string saying why they cannot be compared."""
    rotation = record.path == "rotation"
    played = _played(curves, times * frames_per_second, rotation)
    if isinstance(played, str):
        return played
    values, columns = played
    reference = source_values([record], source, times)[0]
    return peak(reference[:, columns], values[:, columns], rotation, times, frames_per_second)


def planned_curves(record: ChannelRecord, keys: Keyframes, frames_per_second: float) -> list[CurveKeys | None]:
    """Per component of ``record``, the CurveKeys Blender stores for ``keys`` (core Keyframes in
    glTF values and seconds): mapped through the record's matrix and offset, frames = t * fps,
    rounded to float32 as Blender keeps them; None where the component has no property."""
    matrix, offset = affine_map(record)
    parts = [(_float32(times * frames_per_second), _float32(values @ matrix.T + offset))
             for times, values in ((keys.times, keys.values), (keys.left_times, keys.left_values),
                                   (keys.right_times, keys.right_values))]
    modes = np.asarray(keys.interpolation)
    return [None if target.index < 0 else CurveKeys(*_columns(parts, c), modes)
            for c, target in enumerate(record.curves)]


def _columns(parts, c) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(co, handle_left, handle_right) (m, 2) of component ``c`` from planned_curves' parts."""
    co, left, right = (np.stack([frames, values[:, c]], axis=1) for frames, values in parts)
    return co, left, right


def _float32(values):
    return as_stored(values, "FLOAT")


def target_name(record: ChannelRecord) -> str:
    """Name what a channel animates, for reports: its bone, its object or its shape keys.

    Parameters
    ----------
    record : ChannelRecord
        The channel; a pose bone's data path names the bone (its escaped characters read back).

    Returns
    -------
    str
        The bone's name for a pose bone's channel; "<id_name> (shape keys)" for morph weights
        (``id_type`` 'Key'); else ``id_name``, the object's.

    Examples
    --------
    >>> from gltf_sqlerp.core.blender_model import ChannelRecord, SamplerRecord
    >>> record = ChannelRecord(0, "rotation", "", "Armature", "Object", "", 'pose.bones["Elbow"].rotation_quaternion',
    ...                        [], np.eye(4), np.zeros(4), "EXTENSION",
    ...                        SamplerRecord("STEP", np.zeros(1), np.zeros((1, 4))))
    >>> target_name(record)
    'Elbow'
    >>> record.path, record.data_path, record.id_name, record.id_type = "weights", "", "Key", "Key"  # morph weights
    >>> target_name(record)
    'Key (shape keys)'
    """
    match = _BONE.match(record.data_path)
    if match:
        return re.sub(r"\\(.)", r"\1", match.group(1))
    return f"{record.id_name} (shape keys)" if record.id_type == "Key" else record.id_name


def channel_deviations(records: Sequence[ChannelRecord], fcurve_keys: Sequence[Curves | str],
                       frames_per_second: float, times: npt.ArrayLike | None = None,
                       source: str | None = None) -> list[ChannelDeviation]:
    """Rows (ChannelDeviation) for every record, worst first: rotations (degrees) before other
    channels (their own units), each group by its largest maximum.

    ``fcurve_keys[i]``: for record i, per component a CurveKeys or None (no property: left out),
    or a string saying why Blender's curves cannot be emulated (the BLENDER pairs are then None).
    ``times``: seconds (default: clip_times, 8 per frame). ``source``: the reference of each row
    (default: each record's own source, what its curves were written to play).
    """
    times = clip_times(records, frames_per_second) if times is None else np.asarray(times, float)
    frames = times * frames_per_second
    extension = source_values(records, "EXTENSION", times)
    fallback = source_values(records, "FALLBACK", times)
    rows = []
    for i, record in enumerate(records):
        rotation = record.path == "rotation"
        has_fallback = record.fallback is not None
        row = ChannelDeviation(i, target_name(record), record.path, record.data_path,
                               rotation, source or record.source, has_fallback,
                               peak(extension[i], fallback[i], rotation, times, frames_per_second),
                               None, None)
        if not has_fallback:
            row.notes.append("no fallback: FALLBACK = EXTENSION")
        row.notes += _jump_notes(record)
        played = _played(fcurve_keys[i], frames, rotation)
        if isinstance(played, str):
            row.notes.append(played)
        else:
            blender, columns = played
            row.ext_blender = peak(extension[i][:, columns], blender[:, columns], rotation,
                                   times, frames_per_second)
            row.fallback_blender = peak(fallback[i][:, columns], blender[:, columns], rotation,
                                        times, frames_per_second)
        rows.append(row)
    rows.sort(key=lambda r: (not r.rotation, -r.worst))
    return rows


def _jump_notes(record):
    """A note naming where the record's CUBICSLERP curve jumps (the formula does, as
    spec "Where the curve is discontinuous" says; the import keys both sides), or none."""
    if record.sampler.interpolation != CUBICSLERP:
        return []
    sampler = stored_sampler(record)
    jumps = jump_times(sampler.times, sampler.values)
    if not len(jumps):
        return []
    shown = ", ".join(f"{t:.4f} s" for t in jumps[:3]) + (f" and {len(jumps) - 3} more" if len(jumps) > 3 else "")
    return [f"CUBICSLERP curve jumps at {shown} (the spec's formula; keyed either side)"]


def format_table(rows: Sequence[ChannelDeviation], limit: int | None = None) -> list[str]:
    """The report as lines of text (a header and one line per row, worst first)."""
    lines = [f"{'target':<20} {'path':<11} {'source':<9} "
             + " ".join(f"{pair:<{_WIDTH}}" for pair in PAIRS).rstrip()]
    for row in rows[:limit]:
        cells = " ".join(f"{_cell(p, row.unit):<{_WIDTH}}" for p in row.pairs.values())
        note = f"  ({'; '.join(row.notes)})" if row.notes else ""
        lines.append(f"{row.target[:20]:<20} {row.path:<11} {row.source:<9} {cells.rstrip()}{note}")
    return lines


def _cell(p, unit):
    if p is None:
        return "-"
    return f"{p.max:.5f}{unit} at {p.time:.3f} s (frame {p.frame:.2f})"
