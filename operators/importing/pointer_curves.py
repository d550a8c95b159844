"""KHR_animation_pointer channels to materials, cameras, lights and texture transforms, made exact.

The bundled importer builds their F-curves with its own conversions (colour sockets, ``lens`` from
``yfov``, light energy from intensity, ...). Before it builds an animation, ``feeds`` hands it the
spec's curve of every such channel sampled densely (core.fitting.pointer_samples; the samples
reach it through bundled_gltf.fed_samplers); ``CurveLog`` notes which F-curves it makes for each
channel; afterwards ``rewrite`` gives each F-curve the fewest LINEAR or Bezier keys that follow its samples
within the tolerance (CONSTANT keys for STEP), on the add-on's time scale (frame = t · fps / fps_base).
"""

from __future__ import annotations  # the importer's view: for the type checker only

from collections.abc import Mapping
from typing import TYPE_CHECKING

import bpy
import numpy as np

from ...core import Animation
from ...core.fitting import pointer_samples as pointer_plan
from .. import fcurves

if TYPE_CHECKING:  # the bundled importer's view imports the operators
    from ...bundled_gltf import imported


def feeds(animation: Animation, frames_per_second: float) -> dict[int, pointer_plan.PointerSamples]:
    """{sampler index: PointerSamples} of the animation's pointer channels to other properties."""
    return {channel.sampler_index: pointer_plan.dense_samples(channel.sampler, frames_per_second)
            for channel in animation.pointer_channels}


def as_fed(samples: Mapping[int, pointer_plan.PointerSamples]) -> imported.DenseFeeds:
    """The samples as the importer's view takes them."""
    return {s: (p.times, p.values, p.interpolation) for s, p in samples.items()}


class CurveLog:
    """Which F-curves the importer makes for each pointer channel of one animation: the curves
    that appear between the start of one pointer channel and the next (or the animation's end)."""

    def __init__(self) -> None:
        self.curves: dict[int, list[bpy.types.FCurve]] = {}
        self._current: int | None = None
        self._seen = _all_curves()

    def channel_starts(self, index: int | None) -> None:
        self._close()
        self._current = index

    def finish(self) -> dict[int, list[bpy.types.FCurve]]:
        self._close()
        self._current = None
        return self.curves

    def _close(self) -> None:
        now = _all_curves()
        if self._current is not None:
            self.curves.setdefault(self._current, []).extend(now[p] for p in now.keys() - self._seen.keys())
        self._seen = now


def _all_curves() -> dict[int, bpy.types.FCurve]:
    return {curve.as_pointer(): curve for action in bpy.data.actions
            for curves in fcurves.curve_sets(action) for curve in curves}


def rewrite(animation: Animation, samples: Mapping[int, pointer_plan.PointerSamples],
            curves: Mapping[int, list[bpy.types.FCurve]], frames_per_second: float) -> tuple[int, list[str]]:
    """Reduce the F-curves of every pointer channel that was fed; (channels rewritten, notes on
    those left as the importer made them)."""
    done, notes = 0, []
    for channel in animation.pointer_channels:
        fed = samples.get(channel.sampler_index)
        made = curves.get(channel.index, [])
        if fed is None or not made:
            continue
        if any(len(curve.keyframe_points) != len(fed.times) for curve in made):
            notes.append(f"{channel.pointer} ({channel.target}): the importer did not key every sample")
            continue
        for curve in made:
            _reduce(curve, fed, frames_per_second)
        done += 1
    return done, notes


def _reduce(curve: bpy.types.FCurve, fed: pointer_plan.PointerSamples, frames_per_second: float) -> None:
    count = len(curve.keyframe_points)
    co = np.empty(2 * count, dtype=np.float32)
    curve.keyframe_points.foreach_get("co", co)
    keys = pointer_plan.fit_samples(fed, co[1::2])
    co, left, right = (_pairs(times * frames_per_second, values[:, 0]) for times, values in
                       ((keys.times, keys.values), (keys.left_times, keys.left_values),
                        (keys.right_times, keys.right_values)))
    fcurves.write_keyframes(curve, co, left, right, fcurves.interpolation_codes(keys.interpolation))


def _pairs(frames: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Flat float32 (frame, value) pairs, as foreach_set takes them."""
    pairs = np.empty((len(frames), 2), dtype=np.float32)
    pairs[:, 0], pairs[:, 1] = frames, values
    return pairs.reshape(-1)
