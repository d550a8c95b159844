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
    """One F-curve's keys as ``keyframe_points.foreach_get`` reads them.

    Attributes
    ----------
    co : (m, 2) float array
        Each key's (frame, value).
    handle_left : (m, 2) float array
        Each key's left handle, (frame, value).
    handle_right : (m, 2) float array
        Each key's right handle, (frame, value).
    interpolation : (m,) str array
        Each key's interpolation name ('CONSTANT', 'LINEAR', 'BEZIER', ...): the mode of the
        segment it starts.
    """
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
    """Play one channel's F-curves at action frames as Blender does.

    Parameters
    ----------
    curves : sequence of k CurveKeys or None
        Per component, its F-curve's keys; None where the component has no property (left out:
        it plays 0 and is not in the mask).
    frames : (T,) float array
        Action frames, evaluated as float32 frames as Blender does.
    rotation : bool
        The k == 4 components are a quaternion: normalized, as Blender does when it builds the pose.

    Returns
    -------
    ((T, k) float64 array, (k,) bool array) or str
        The values played and the mask of components that have an F-curve; or a string saying
        which interpolation the keys use that is not emulated.

    Examples
    --------
    >>> co = np.array([[0.0, 0.0], [10.0, 2.0]])  # (frame, value): 0 at frame 0, 2 at frame 10
    >>> linear = CurveKeys(co, co, co, np.array(["LINEAR", "LINEAR"]))
    >>> values, played = blender_values([linear, None], [-5.0, 5.0, 15.0], rotation=False)
    >>> values.tolist(), played.tolist()  # held before the first key and after the last
    ([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], [True, False])
    >>> blender_values([CurveKeys(co, co, co, np.array(["ELASTIC"] * 2))], [0.0], False)
    'Blender keys use ELASTIC interpolation (not emulated)'
    """
    prepared = BlenderCurves.of(curves)
    return prepared if isinstance(prepared, str) else prepared.values(frames, rotation)


class BlenderCurves:
    """One channel's per-component CurveKeys, set up once for many blender_values() calls.

    F-curves with the same key and handle frames and modes (a rotation's curves usually) form a
    group, played in one vectorized call.

    Attributes
    ----------
    count : int
        The channel's components, k.
    played : (k,) bool array
        Which components have an F-curve.
    groups : list of (list of int, fcurves.Prepared)
        Per group of curves sharing their key timing: its components and their keys set up to play.

    Examples
    --------
    >>> curves = BlenderCurves.of([CurveKeys.constant(3.0), None])  # a value without F-curve, no property
    >>> values, played = curves.values([0.0, 7.5], rotation=False)
    >>> values.tolist(), played.tolist()
    ([[3.0, 0.0], [3.0, 0.0]], [True, False])
    """

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
