"""KHR_animation_pointer channels to materials, cameras, lights and texture transforms, made exact.

The bundled importer builds their F-curves with its own conversions (colour sockets, ``lens`` from
``yfov``, light energy from intensity, ...). Before it builds an animation, ``feeds`` hands it the
spec's curve of every such channel sampled densely (core.fitting.pointer_samples; the samples
reach it through bundled_gltf.fed_samplers); ``CurveLog`` notes which F-curves it makes for each
channel; afterwards ``rewrite`` gives each F-curve the fewest LINEAR or Bezier keys that follow its samples
within the tolerance (CONSTANT keys for STEP), on the add-on's time scale (frame = t · fps / fps_base).
Before it does, ``Reference`` keeps what the importer made of the samples (the spec's curve in
Blender units), and ``records`` turns those into the clip record's pointer references
(core.blender_model.PointerRecord), on the action that holds each F-curve.
"""

from __future__ import annotations  # the importer's view: for the type checker only

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import bpy
import numpy as np

from ...core import Animation
from ...core.blender_model import CurveTarget, PointerRecord
from ...core.fitting import pointer_samples as pointer_plan
from ...core.sampling import PointerChannel
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
        # Actions that exist before the animation is built gain no curves from it: only the
        # ones made since are read at each channel (a scene's own actions may hold thousands).
        self._older = {action.as_pointer() for action in bpy.data.actions}
        self._seen = self._new_curves()

    def channel_starts(self, index: int | None) -> None:
        self._close()
        self._current = index

    def finish(self) -> dict[int, list[bpy.types.FCurve]]:
        self._close()
        self._current = None
        return self.curves

    def _close(self) -> None:
        now = self._new_curves()
        if self._current is not None:
            self.curves.setdefault(self._current, []).extend(now[p] for p in now.keys() - self._seen.keys())
        self._seen = now


    def _new_curves(self) -> dict[int, bpy.types.FCurve]:
        return {curve.as_pointer(): curve for action in bpy.data.actions if action.as_pointer() not in self._older
                for curves in fcurves.curve_sets(action) for curve in curves}


@dataclass(frozen=True)
class Reference:
    """One rewritten F-curve: its channel, the samples fed and the values the importer gave them."""
    channel: PointerChannel
    curve: bpy.types.FCurve
    fed: pointer_plan.PointerSamples
    values: np.ndarray  # (n,) float32, Blender units


def rewrite(animation: Animation, samples: Mapping[int, pointer_plan.PointerSamples],
            curves: Mapping[int, list[bpy.types.FCurve]], frames_per_second: float,
            kept: list[Reference] | None = None) -> tuple[int, list[str]]:
    """Reduce the F-curves of every pointer channel that was fed; (channels rewritten, notes on
    those left as the importer made them). ``kept`` gets a Reference per F-curve rewritten."""
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
            values = _reduce(curve, fed, frames_per_second)
            if kept is not None:
                kept.append(Reference(channel, curve, fed, values))
        done += 1
    return done, notes


def _reduce(curve: bpy.types.FCurve, fed: pointer_plan.PointerSamples, frames_per_second: float) -> np.ndarray:
    """Rewrite ``curve``; returns the values the importer gave the samples (float32)."""
    count = len(curve.keyframe_points)
    co = np.empty(2 * count, dtype=np.float32)
    curve.keyframe_points.foreach_get("co", co)
    made = co[1::2].copy()
    keys = pointer_plan.fit_samples(fed, made)
    co, left, right = (_pairs(times * frames_per_second, values[:, 0]) for times, values in
                       ((keys.times, keys.values), (keys.left_times, keys.left_values),
                        (keys.right_times, keys.right_values)))
    fcurves.write_keyframes(curve, co, left, right, fcurves.interpolation_codes(keys.interpolation))
    return made


def _pairs(frames: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Flat float32 (frame, value) pairs, as foreach_set takes them."""
    pairs = np.empty((len(frames), 2), dtype=np.float32)
    pairs[:, 0], pairs[:, 1] = frames, values
    return pairs.reshape(-1)


Stored = dict[int, tuple[bpy.types.Action, list[PointerRecord]]]  # action pointer -> (action, records)


def records(kept: Sequence[Reference], stashed: Sequence[tuple[bpy.types.ID, bpy.types.Action, Any]]) -> Stored:
    """{action pointer: (action, PointerRecords)}: the references grouped per channel and per
    action slot their F-curves are in, on the action that holds them. ``stashed``: the (ID, action,
    slot) the importer stashed, to name the data-block each slot animates."""
    owners = {(action.as_pointer(), getattr(slot, "identifier", "")): data for data, action, slot in stashed}
    slots: dict[int, dict[int, Any]] = {}  # action pointer -> {F-curve pointer: slot}
    grouped: dict[tuple[int, str, int], tuple[bpy.types.Action, Any, list[Reference]]] = {}
    for reference in kept:
        action = reference.curve.id_data
        if action.as_pointer() not in slots:
            slots[action.as_pointer()] = _curve_slots(action)
        slot = slots[action.as_pointer()].get(reference.curve.as_pointer())
        key = (action.as_pointer(), getattr(slot, "identifier", ""), reference.channel.index)
        grouped.setdefault(key, (action, slot, []))[2].append(reference)
    out: Stored = {}
    for (address, identifier, _), (action, slot, references) in grouped.items():
        first = references[0]
        id_type = slot.target_id_type if slot is not None else str(getattr(action, "id_root", ""))
        out.setdefault(address, (action, []))[1].append(PointerRecord(
            first.channel.pointer, first.channel.target, id_type,
            _shown_name(owners.get((address, identifier)), action), identifier,
            "STEP" if first.fed.interpolation == "STEP" else "LINEAR",
            [CurveTarget(r.curve.data_path, int(r.curve.array_index)) for r in references],
            first.fed.times.astype(np.float32), np.stack([r.values for r in references], axis=1)))
    return out


def _curve_slots(action: bpy.types.Action) -> dict[int, Any]:
    """{F-curve pointer: its slot} of a layered action (Blender 4.4+); empty on 4.2."""
    if not fcurves.layered(action) or not action.layers:
        return {}
    found = {}
    for slot in action.slots:
        for strip in action.layers[0].strips:
            bag = strip.channelbag(slot)
            for curve in bag.fcurves if bag is not None else ():
                found[curve.as_pointer()] = slot
    return found


def _shown_name(data: bpy.types.ID | None, action: bpy.types.Action) -> str:
    """The data-block a slot animates, as users know it: a material's node tree by its material."""
    if data is None:
        return action.name
    if isinstance(data, bpy.types.NodeTree):
        for material in bpy.data.materials:
            if material.node_tree is not None and material.node_tree.as_pointer() == data.as_pointer():
                return material.name
    return data.name
