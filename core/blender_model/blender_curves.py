"""What Blender plays from one channel's F-curve keys, in numpy.

The Blender layer reads each F-curve's keys with ``keyframe_points.foreach_get`` (CurveKeys);
this module plays them with core.blender_model.fcurves' exact emulation, for the deviation report
(core.blender_model.deviation), the pointer table (core.blender_model.pointer_reference) and the
exporter's measure of what Blender plays (core.fitting.channel_motion).
"""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..sampling import quaternions as quat
from .fcurves import MODES, Prepared, work_arrays
from .keyframes import Keyframes


@dataclass(frozen=True)
class CurveKeys:
    """One F-curve's keys as ``keyframe_points.foreach_get`` reads them: ``co``,
    ``handle_left``, ``handle_right`` (m, 2) (frame, value) and ``interpolation`` (m,) names."""
    co: np.ndarray
    handle_left: np.ndarray
    handle_right: np.ndarray
    interpolation: np.ndarray

    @classmethod
    def constant(cls, value: float) -> "CurveKeys":
        """What Blender plays for a property without an F-curve: its current value."""
        point = np.array([[0.0, float(value)]])
        return cls(point, point, point, np.array(["CONSTANT"]))

    def keyframes(self) -> Keyframes:
        """The keys as core Keyframes (times in frames) for fcurves.play."""
        co, left, right = (np.asarray(a, dtype=np.float64).reshape(-1, 2)
                           for a in (self.co, self.handle_left, self.handle_right))
        return Keyframes(co[:, 0], co[:, 1:], left[:, 0], left[:, 1:], right[:, 0], right[:, 1:],
                         np.asarray(self.interpolation))


# Per component of a channel, its F-curve's keys, or None where it has no property (left out).
Curves = Sequence[CurveKeys | None]


def blender_values(curves: Curves, frames: npt.ArrayLike, rotation: bool) -> tuple[np.ndarray, np.ndarray] | str:
    """What Blender plays at ``frames`` from per-component CurveKeys (None: no property, left
    out): ((T, k) values, (k,) mask of played components), or a reason string where the keys
    use a mode that is not emulated."""
    prepared = BlenderCurves.of(curves)
    return prepared if isinstance(prepared, str) else prepared.values(frames, rotation)


class BlenderCurves:
    """Per-component CurveKeys set up once for many blender_values() calls: the groups of curves
    sharing their key timing (fcurves.Prepared each)."""

    def __init__(self, curves: Curves):
        self.count = len(curves)
        self.played = np.array([keys is not None for keys in curves], dtype=bool)
        self.groups = [(components, Prepared(keys))
                       for components, keys in _shared_timing(curves, self.played)]

    @classmethod
    def of(cls, curves: Curves) -> "BlenderCurves | str":
        """BlenderCurves of ``curves``, or a string saying which interpolation is not emulated."""
        for keys in curves:
            if keys is not None:
                unknown = _unknown_modes(keys.interpolation)
                if unknown:
                    return f"Blender keys use {', '.join(unknown)} interpolation (not emulated)"
        return cls(curves)

    def values(self, frames: npt.ArrayLike, rotation: bool) -> tuple[np.ndarray, np.ndarray]:
        """blender_values() at ``frames``."""
        # Blender evaluates animation at a float32 frame, as it stores key frames: a sample at a
        # key's time then lands on that key, as in Blender (in float64 a step could land just
        # before it).
        frames = _float32_work(frames)
        # Component-major, so that each component's track is contiguous (returned transposed).
        values = np.empty((self.count, len(frames)))
        values[~self.played] = 0.0
        for components, prepared in self.groups:  # one vectorized play per group
            if components[-1] - components[0] == len(components) - 1:  # a run: play straight into it
                prepared.play(frames, out=values[components[0]:components[-1] + 1])
            else:
                values[components] = prepared.play(frames)
        return (quat.normalize(values.T) if rotation else values.T), self.played


def _unknown_modes(interpolation):
    """Sorted interpolation names that fcurves does not emulate (none: an empty list)."""
    modes = np.asarray(interpolation)
    known = np.zeros(modes.shape, dtype=bool)
    for mode in MODES:  # a comparison per mode: cheaper than a set of per-key names
        known |= modes == mode
    return [] if known.all() else sorted(set(modes[~known].tolist()))


def _float32_work(frames):
    """``frames`` rounded to float32, in a work array of fcurves' (valid until the next call
    here): a fresh array costs more in page faults than the conversion."""
    frames = np.asarray(frames).reshape(-1)
    wide, narrow = work_arrays("blender_values", 2, len(frames))
    np.copyto(narrow.view(np.float32)[:len(frames)], frames, casting="unsafe")
    np.copyto(wide, narrow.view(np.float32)[:len(frames)])
    return wide


def _shared_timing(curves: Curves, played: np.ndarray) -> Iterator[tuple[list[int], Keyframes]]:
    """(component indices, Keyframes with their values side by side) per group of F-curves with
    the same key and handle frames and modes: Blender's curves of one rotation usually share
    them, and the time solve of their Bezier segments is then done once for the group."""
    groups = {}
    for component in np.flatnonzero(played):
        keys = curves[component]
        timing = (np.asarray(keys.co)[:, 0].tobytes(), np.asarray(keys.handle_left)[:, 0].tobytes(),
                  np.asarray(keys.handle_right)[:, 0].tobytes(), np.asarray(keys.interpolation).tobytes())
        groups.setdefault(timing, []).append(component)
    for components in groups.values():
        parts = [curves[c].keyframes() for c in components]
        first = parts[0]
        yield components, Keyframes(first.times, np.hstack([k.values for k in parts]), first.left_times,
                                    np.hstack([k.left_values for k in parts]), first.right_times,
                                    np.hstack([k.right_values for k in parts]), first.interpolation)
