"""One rotation channel to export, as plain data: the motion Blender plays (from its F-curve keys),
its map into glTF space and its frame range, and the fit of core.fitting.rotation_export on it.

operators/export_motion reads these from Blender and operators/export_rotations measures the map;
nothing here touches Blender, so a ChannelTask can be fitted in a thread or, pickled, in another
process (fit_workers.processes): its F-curves travel as keys and are set up again on arrival.
"""

from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np
import numpy.typing as npt

from ..sampling import chords
from ..sampling import quaternions as quat
from ..blender_model import rotation_modes
from ..gltf import as_stored
from ..blender_model import BlenderCurves, CurveKeys
from ..sampling import nearest_index
from ..sampling import SAMPLES_PER_FRAME
from .played_keys import Player, keys_player
from .channel_keys import ChannelKeys
from .rotation_export import ExportOptions, check_grid, export_keys, new_fallback, stepped_keys
from .sampled_motion import SampledMotion
from .world_correction import CorrectedTarget, WorldCorrection

# Blender's own samples of a channel (the bundled exporter's: float32 values of float32 matrices)
# agree with the emulated motion within this, else Blender plays something else than the keys.
AGREEMENT_DEG = 0.005
# A sample's frame, from float32 seconds, is a check frame when this close to it, relative to
# the frame (float32 keeps 2^-24 of it; four of those, and 1e-6 near 0).
_ON_GRID = 4.0 * 2.0 ** -24
# A channel whose keys are at most this many frames apart (the median spacing), with at least
# DENSE_MIN_KEYS of them, is dense: samples of a motion (capture, baking, an imported clip), whose
# key times the export chooses freely (core.fitting.rotation_export). Animators key every 3 frames or more.
DENSE_SPACING = 2.0
DENSE_MIN_KEYS = 6


@dataclass
class RotationMotion:
    """Rotation of one target as its F-curves play it (core.blender_model's emulation).

    ``at(frames)`` gives (T, 4) unit quaternions (x, y, z, w) of the target's own (basis)
    rotation. Pickled, it travels as its keys; the emulation is set up again on arrival.

    Attributes
    ----------
    mode : str
        Blender's rotation mode: "QUATERNION", "AXIS_ANGLE" or an Euler order such as "XYZ".
    key_frames : (K,) float array
        The frames of the animator's rotation keys.
    curves : list of CurveKeys
        The rotation F-curves' keys, one per component.
    prepared : BlenderCurves or str
        The curves set up for evaluation, or why Blender's curves cannot be emulated (``at``
        then raises ValueError with it).
    """
    mode: str
    key_frames: np.ndarray
    curves: list[CurveKeys]
    prepared: BlenderCurves | str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Set up once: the fit asks for many sets of frames.
        self.prepared = BlenderCurves.of(self.curves)

    def __getstate__(self) -> dict[str, str | np.ndarray | list[CurveKeys]]:
        # The set-up is several times the size of the keys: it is redone where the task lands.
        return {"mode": self.mode, "key_frames": self.key_frames, "curves": self.curves}

    def __setstate__(self, state: dict[str, str | np.ndarray | list[CurveKeys]]) -> None:
        self.__dict__.update(state)
        self.__post_init__()

    def stepped(self) -> bool:
        """Whether every key holds its value until the next (constant interpolation)."""
        return all(np.all(np.asarray(curve.interpolation) == "CONSTANT") for curve in self.curves)

    def at(self, frames: npt.ArrayLike) -> np.ndarray:
        """(T, 4) basis rotations at ``frames``; ValueError where the curves cannot be emulated."""
        if isinstance(self.prepared, str):
            raise ValueError(self.prepared)
        played = self.prepared.values(np.asarray(frames, dtype=np.float64), rotation=False)
        return rotation_modes.to_quaternions(self.mode, played[0])


@dataclass
class ChannelTarget:
    """One channel's motion in glTF space: q = a · q_basis(frame) · b, frame = seconds · rate + slide.

    Called with seconds, it gives (T, 4) unit quaternions (x, y, z, w).

    Attributes
    ----------
    motion : RotationMotion or SampledMotion
        The target's basis rotation q_basis as a function of frames.
    a : (4,) float array
        The constant rotation on the left, as the bundled exporter writes a · q · b for the
        rotation q Blender keys (a bone's rest in its parent's rest; an object's parent inverse
        and delta rotation, after the axis change).
    b : (4,) float array
        The constant rotation on the right (the identity for a bone; the axis change back for
        an object, Y up).
    slide : float
        The frame at 0 seconds.
    rate : float
        Frames per second.
    """
    motion: "RotationMotion | SampledMotion"
    a: np.ndarray
    b: np.ndarray
    slide: float
    rate: float

    def frames(self, seconds: npt.ArrayLike) -> np.ndarray:
        """The frames at ``seconds``."""
        return np.asarray(seconds, dtype=np.float64) * self.rate + self.slide

    def __call__(self, seconds: npt.ArrayLike) -> np.ndarray:
        return self.at_frames(self.frames(seconds))

    def at_frames(self, frames: npt.ArrayLike) -> np.ndarray:
        """(T, 4) glTF rotations at ``frames``."""
        return quat.sandwich(self.a, self.motion.at(frames), self.b)


def disagreement(worst_deg: float) -> str:
    """Explain why a channel is not fitted when Blender's samples are off its emulated motion.

    Parameters
    ----------
    worst_deg : float
        The largest angle in degrees between Blender's samples and the emulated motion.

    Returns
    -------
    str
        The reason the export reports (ChannelKeys.skipped), the angle to 3 significant digits.

    Examples
    --------
    >>> disagreement(0.012345)
    "Blender plays something else than its keys (0.0123 deg off: constraints, drivers, NLA or a parent's motion)"
    """
    return (f"Blender plays something else than its keys ({worst_deg:.3g} deg off: constraints, "
            "drivers, NLA or a parent's motion)")


@dataclass
class ChannelTask:
    """A channel's fit: its target over a frame range, and what the fit must respect.

    Plain data: it can be fitted in a thread or, pickled, in another process (``fit``).

    Attributes
    ----------
    target : ChannelTarget
        The motion in glTF space.
    start : float
        The range's first frame.
    end : float
        Its last frame.
    stored : tuple ((n,) float array, (3n, 4) float array) or None
        (times, rows) of the CUBICSLERP keys the channel was imported with, kept while they still
        play the motion.
    samples : tuple ((m,) float array, (m, 4) float array) or None
        (frames, values): Blender's own samples of the channel in glTF space, which the target
        must play (``refusal``).
    correction : WorldCorrection or None
        What the written curves above the channel play off the exact ones
        (core.fitting.world_correction): the channel is fitted to its target corrected by it, so
        that its node's world rotation is right.
    fallback_share : float
        The fraction of the fallback tolerance the channel may use, so that the fallbacks' errors
        added up along a chain stay within it (core.fitting.world_error).
    extension : ChannelKeys or None
        CUBICSLERP ChannelKeys fitted before, kept as they are while only the fallback is fitted
        again.
    precision : str
        The values' precision in place of the options' ("" keeps theirs; "FLOAT" for STEP keys
        whose 16-bit rounding would add to the world error of a parent they cannot follow).
    grid : (G,) float array or None
        Seconds of the world pass's grid, where the fit also plays its keys and the exact motion
        (ChannelKeys.on_grid), in the worker that fits it.
    """
    target: ChannelTarget
    start: float
    end: float
    stored: tuple[np.ndarray, np.ndarray] | None = None
    samples: tuple[np.ndarray, np.ndarray] | None = None
    correction: WorldCorrection | None = None
    fallback_share: float = 1.0
    extension: ChannelKeys | None = None
    precision: str = ""
    grid: np.ndarray | None = None

    def fit(self, options: ExportOptions) -> ChannelKeys:
        """core.fitting.channel_keys.ChannelKeys for ExportOptions ``options``: keys at the animator's
        keys in the range (and its ends), checked at SAMPLES_PER_FRAME per frame; or, when the
        samples are more than AGREEMENT_DEG off the target, ChannelKeys that only say so. With a
        ``grid`` (seconds), the keys' ``on_grid``: the exact motion and what they play there."""
        key_frames, check_frames = self.frames()
        expected = self.target.at_frames(check_frames)
        keys = self._keys(options, key_frames, check_frames, expected)
        if self.grid is not None and not keys.skipped:
            keys.on_grid = (self.exact_at(self.grid, (check_frames, expected)),
                            cast(Player, keys_player(keys, False))(self.grid))
        return keys

    def exact_at(self, seconds: np.ndarray, known: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """(T, 4): the target at ``seconds``, held at the range's ends; ``known``: (frames,
        values) of it already played, taken where a frame is one of them (the world grid and the
        check grid share most of theirs, so a refit evaluates the target at the others only)."""
        frames = np.clip(seconds * self.target.rate + self.target.slide, self.start, self.end)
        return self._played_at(frames, known)

    def _played_at(self, frames: np.ndarray, known: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        """(T, 4): the target at ``frames``, each taken from ``known`` ((frames, values) played
        before, None: none) where it is one of those frames, else evaluated."""
        played = np.empty((len(frames), 4))
        on = np.zeros(len(frames), dtype=bool)
        if known is not None:
            index = nearest_index(known[0], frames)
            on = np.abs(known[0][index] - frames) <= _ON_GRID * np.maximum(np.abs(frames), 4.0)
            played[on] = known[1][index[on]]
        if not on.all():
            played[~on] = self.target.at_frames(frames[~on])
        return played

    def _keys(self, options, key_frames, check_frames, expected):
        target = self.target
        refused = self.refusal(check_frames, expected)
        if refused:
            return ChannelKeys(None, "", skipped=refused)
        if self.correction is not None:
            target = CorrectedTarget(target, self.correction)
            expected = target.corrected(check_frames, expected)
        key_times = as_stored((key_frames - target.slide) / target.rate, "FLOAT")  # as written
        check_times = (check_frames - target.slide) / target.rate
        frame_times = as_stored((self.sample_frames() - target.slide) / target.rate, "FLOAT")
        if self.precision:
            options = replace(options, precision=self.precision)
        if self.fallback_share < 1.0:
            options = replace(options, fallback_tolerance_deg=options.fallback_tolerance_deg * self.fallback_share)
        if self.extension is not None:
            return new_fallback(self.extension, check_times, options, frame_times)
        if target.motion.stepped():
            keys = stepped_keys(key_times, target.at_frames(key_frames), check_times, expected, options)
            if keys is not None:
                return keys
        return export_keys(target, key_times, check_times, expected, options, stored=self.stored,
                           dense=is_dense(key_frames), frame_times=frame_times)

    def sample_frames(self) -> np.ndarray:
        """The frames of the bundled exporter's per-frame keys: its samples' where the task has
        them, else every whole frame of the range and its ends."""
        if self.samples is not None and len(self.samples[0]):
            return np.unique(np.asarray(self.samples[0], dtype=np.float64))
        whole = np.arange(np.ceil(self.start), np.floor(self.end) + 1.0)
        return np.unique(np.concatenate([[self.start, self.end], whole]))

    def frames(self) -> tuple[np.ndarray, np.ndarray]:
        """(key frames, check frames): the animator's keys in the range and its ends, sorted,
        and the dense check's frames (core.fitting.rotation_export.check_grid)."""
        keys = self.target.motion.key_frames
        inside = keys[(keys > self.start) & (keys < self.end)]
        key_frames = np.unique(np.concatenate([[self.start, self.end], inside]))
        return key_frames, check_grid(self.start, self.end, key_frames)

    def refusal(self, check_frames: np.ndarray | None = None, expected: np.ndarray | None = None) -> str:
        """Why Blender's samples refuse the target ('' when they agree within AGREEMENT_DEG).
        With the dense check's ``check_frames`` and their ``expected`` values, a sample on a check
        frame (whole frames are) takes its value there; any other sample, or every sample without
        them (keys a task without samples fitted, fits_like this one), is evaluated at its frame."""
        if self.samples is None or not len(self.samples[0]):
            return ""
        frames, values = (np.asarray(a, dtype=np.float64) for a in self.samples)
        known = (check_frames, expected) if check_frames is not None and expected is not None else None
        worst = chords.max_angle_deg(self._played_at(frames, known), values)
        return disagreement(worst) if worst > AGREEMENT_DEG else ""

    def fits_like(self, other: "ChannelTask") -> bool:
        """Whether ``other`` is fitted to the same keys: the same motion (object), map, range,
        stored keys, fallback share and precision, neither corrected; the samples aside (``refusal`` checks
        them apart)."""
        mine, theirs = self.target, other.target
        return (mine.motion is theirs.motion and np.array_equal(mine.a, theirs.a)
                and np.array_equal(mine.b, theirs.b) and (mine.slide, mine.rate) == (theirs.slide, theirs.rate)
                and (self.start, self.end) == (other.start, other.end) and _same(self.stored, other.stored)
                and self.fallback_share == other.fallback_share and self.precision == other.precision
                and all(x is None for x in (self.correction, other.correction, self.extension, other.extension)))

    def check_count(self) -> float:
        """About how many check times the fit evaluates, as a float (its cost grows with them)."""
        return max(0.0, (self.end - self.start) * SAMPLES_PER_FRAME)


def is_dense(key_frames: npt.ArrayLike) -> bool:
    """Whether sorted key frames are samples of a motion rather than an animator's keys."""
    frames = np.asarray(key_frames, dtype=np.float64)
    return len(frames) >= DENSE_MIN_KEYS and float(np.median(np.diff(frames))) <= DENSE_SPACING


@dataclass
class SampleCheck:
    """Blender's samples checked against keys fitted before they existed (ChannelTask.refusal).

    Sent where a task would go (a worker): ``fit`` gives ChannelKeys that only say why the
    samples refuse the task's target (``skipped``, '' when they agree).

    Attributes
    ----------
    task : ChannelTask
        The task fitted before, now with Blender's samples.
    """
    task: ChannelTask

    def fit(self, options: ExportOptions) -> ChannelKeys:
        """ChannelKeys that only say why the samples refuse the target ('' when they agree)."""
        return ChannelKeys(None, "", skipped=self.task.refusal())


def _same(stored, other):
    if stored is None or other is None:
        return stored is other
    return all(np.array_equal(mine, theirs) for mine, theirs in zip(stored, other))
