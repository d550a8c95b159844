"""Fewer keys for the translation, scale and morph-weight channels the bundled exporter gathered
(its gather_gltf_hook: reduced while the rotations' pass waits for its fits, written after it).

The bundled exporter samples these channels at every frame. Each LINEAR or STEP sampler is
replaced by the fewest keys of the same interpolation, chosen among its own key times, that stay
within the channel's tolerance of its polyline at its key times and SAMPLES_PER_FRAME times per
frame between them (core.fitting.vector_reduction; the tolerances: core.fitting.property_export). A STEP sampler
stays STEP: its jumps between frames have no LINEAR form on its key times. A channel within its
tolerance of one value keeps one key (the bundled exporter's "Optimize Animation Size" keeps two);
it is never removed, as the bundled exporter keeps it, since another animation may move its node.
Only where every channel of an animation would keep one key do those constant channels keep a key
at their end too, so that the animation keeps its length.

Samplers of an animation whose key times are the same share one input accessor, the bundled one
when its times are those. Bad data never raises: the channel keeps its sampler and the outcome
says why.
"""

import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...core.fitting import (
    PATHS, ancestor_scales, chain_budgets, channel_tolerance, model_size, spread_of, total_tolerance
)
from ...core.fitting import ExportOptions, check_counts, reduce_vectors
from ..blender_context import current_scene
from .extent import scene_points
from .timing import Timing

if TYPE_CHECKING:
    from ...bundled_gltf import exported as bundled_exported
    from .outcome import Outcome


@dataclass
class PropertyOutcome:
    animation: str
    target: str           # the node's name; a pointer's material, light or camera
    path: str             # "translation", "scale", "weights" or a pointer ("/materials/{}/emissiveFactor")
    keys_before: int = 0
    keys_after: int = 0
    interpolation: str = ""
    tolerance: float = 0.0  # the channel's bound in its units (scale: the largest component's)
    max_error: float = 0.0  # its largest error over the check times, in tolerances
    constant: bool = False  # one value holds the channel (one key, or two to keep the length)
    skipped: str = ""


def compact(animations: list[Any], exported: "bundled_exported.ExportedScene", options: ExportOptions,
            outcome: "Outcome") -> None:
    """Reduce the channels of ``animations`` (changed in place) and append a PropertyOutcome per
    channel to ``outcome.properties``; never raises: a failure is ``outcome.error``. ``animations``:
    the bundled exporter's animation objects (untyped)."""
    Reductions(animations, exported, options).finish(outcome)


class Reductions:
    """The translation, scale and weights channels of ``animations`` (the bundled exporter's,
    untyped) reduced a channel at a time by ``steps`` (the rotations' pass down the tree takes
    them while it waits for the workers' fits), the
    rest and the writing by ``finish``. Made before the rotations' rewrite, which rescales the
    inputs at the 29.97 preset: reads them there, as that rewrite will leave them
    (export_timing.Timing.fixed); writes nothing before ``finish``. Never raises."""

    def __init__(self, animations: list[Any], exported: "bundled_exported.ExportedScene",
                 options: ExportOptions) -> None:
        self.animations, self.exported = animations, exported
        fraction = getattr(options, "property_tolerance", 0.0)  # 0 (or an older options object): per-frame keys kept
        self.fraction = float(fraction) if fraction and fraction > 0.0 else 0.0
        self.rate = 0.0  # Blender's frames per second
        self.channels: list[_Channel] = []
        self.properties: list[PropertyOutcome] = []
        self.size = 0.0
        self.error = ""
        self._steps: Iterator[bool] = iter(())
        if self.fraction:
            try:  # here, before the rotations' rewrite rescales the inputs (Timing.fixed)
                self._steps = self._reduce(self._read())
            except Exception as error:  # noqa: BLE001 - reported by the operator, never raised in the hook
                self._failed(error)

    def steps(self) -> Iterator[bool]:
        """A channel reduced per step (before them: the model's size, each path's tolerances)."""
        return self._steps

    def finish(self, outcome: "Outcome") -> None:
        """The steps left, then the reduced keys written and their PropertyOutcomes (and the
        animation pointers' reduction) in ``outcome``; a failure is ``outcome.error``."""
        for _ in self._steps:
            pass
        outcome.properties.extend(self.properties)
        if not self.fraction:
            return
        if self.error:  # reading or a step failed
            outcome.error = self.error
            return
        try:
            from ...bundled_gltf import export_accessors as gltf
            for animation in self.animations:
                _write(gltf, animation, [c for c in self.channels if c.animation is animation and c.keys is not None])
            outcome.model_size = self.size
        except Exception as error:  # noqa: BLE001 - reported by the operator, never raised in the hook
            self._failed(error)
            outcome.error = self.error
            return
        try:
            from .pointers import compact_pointers  # it builds on this module
            compact_pointers(gltf, self.animations, self.fraction, self.rate, outcome.properties)
        except Exception as error:  # noqa: BLE001 - reported by the operator, never raised in the hook
            traceback.print_exc()
            outcome.error = f"reducing animation pointer keys: {type(error).__name__}: {error}"

    def _read(self) -> "_Nodes":
        """Every channel's keys (``channels``), their times as the rotations' rewrite will leave
        them; returns the nodes they animate."""
        # Imported here: export_session imports this module also where the exporter's internals moved.
        from ...bundled_gltf import export_accessors as gltf
        render = current_scene().render
        timing = Timing(render.fps, render.fps_base)
        self.rate, nodes = timing.rate, _Nodes(self.exported)
        self.channels = [channel for animation in self.animations
                         for channel in _read_channels(gltf, animation, nodes, self.properties, timing)]
        return nodes

    def _failed(self, error: Exception) -> None:
        traceback.print_exc()
        self.error = f"reducing translation, scale and weights keys: {type(error).__name__}: {error}"

    def _reduce(self, nodes: "_Nodes") -> Iterator[bool]:
        try:
            yield from self._reduced(nodes, self.channels)
        except Exception as error:  # noqa: BLE001 - reported by the operator, never raised in the hook
            self._failed(error)

    def _reduced(self, nodes: "_Nodes", channels: list["_Channel"]) -> Iterator[bool]:
        scales = ancestor_scales(nodes.parents, nodes.largest_scales(channels))
        points, origins = scene_points(self.exported)
        yield True
        translations = [c.values for c in channels if c.result.path == "translation"]
        self.size = size = model_size(points, np.concatenate([origins, *translations]))
        budgets = {}
        for path in PATHS:
            budgets[path] = _budgets(channels, nodes, scales, path, total_tolerance(path, self.fraction, size))
            yield True
        for channel in channels:
            path = channel.result.path
            tolerance, norm = channel_tolerance(path, channel.values, budgets[path][channel.node],
                                                scales[channel.node])
            channel.result.tolerance = float(np.max(tolerance))
            try:
                channel.keys = reduce_vectors(channel.times, channel.values, tolerance, channel.interpolation,
                                              norm, check_counts(channel.times, self.rate))
            except ValueError as error:
                channel.result.skipped = str(error)
            yield True


def summary_clause(properties: Sequence[PropertyOutcome]) -> str:
    """The part of export_session.summary about these channels ("" when there are none)."""
    text = ""
    for kind, chosen in (("translation/scale/weights", [p for p in properties if not is_pointer(p)]),
                         ("animation pointer", [p for p in properties if is_pointer(p)])):
        reduced = [p for p in chosen if not p.skipped]
        if reduced:
            text += (f"; {len(reduced)} {kind} channels: {sum(p.keys_before for p in reduced)}"
                     f" -> {sum(p.keys_after for p in reduced)} keys")
            skipped = [p for p in chosen if p.skipped]
            text += f" ({len(skipped)} kept: {skipped[0].target}: {skipped[0].skipped})" if skipped else ""
    return text


def is_pointer(result: PropertyOutcome) -> bool:
    """A KHR_animation_pointer channel's outcome: its path is the pointer ("/materials/{}/...")."""
    return result.path.startswith("/")


class _ReducedKeys(Protocol):
    """core.fitting.vector_reduction.VectorKeys (not on the core's surface), as written here."""
    @property
    def times(self) -> np.ndarray: ...
    @property
    def values(self) -> np.ndarray: ...
    @property
    def interpolation(self) -> str: ...
    @property
    def max_error(self) -> float: ...
    @property
    def constant(self) -> bool: ...


@dataclass
class _Channel:
    animation: Any        # the bundled exporter's animation object (untyped)
    sampler: int
    node: int             # index into _Nodes
    result: PropertyOutcome
    times: np.ndarray
    values: np.ndarray    # (n, d)
    interpolation: str
    keys: _ReducedKeys | None = None   # once reduced


def _budgets(channels: list[_Channel], nodes: "_Nodes", scales: np.ndarray, path: str, total: float) -> np.ndarray:
    """Per node, its ``path`` channels' part of ``total``: split along chains for translations
    and scales, whole for weights (a mesh's weights move no other node)."""
    if path == "weights":
        return np.full(len(nodes.parents), total)
    spread = np.full(len(nodes.parents), np.nan)
    for channel in channels:
        if channel.result.path == path:
            own = spread_of(path, channel.values, scales[channel.node])
            spread[channel.node] = np.fmax(spread[channel.node], own)
    return chain_budgets(nodes.parents, spread, total)


def _read_channels(gltf, animation, nodes, properties, timing) -> list[_Channel]:
    """_Channel of every translation, scale and weights channel of ``animation`` sampled LINEAR
    or STEP (one per sampler), its times as the rotations' rewrite leaves them (``timing``), with
    a PropertyOutcome in ``properties``."""
    found, seen = [], set()
    for channel in animation.channels:
        target = channel.target
        if target.path not in PATHS or target.node is None or channel.sampler in seen:
            continue
        seen.add(channel.sampler)
        sampler = animation.samplers[channel.sampler]
        result = PropertyOutcome(animation.name, getattr(target.node, "name", None) or "?", target.path,
                                 interpolation=sampler.interpolation)
        properties.append(result)
        if sampler.interpolation not in ("LINEAR", "STEP"):
            result.skipped = f"the bundled sampler is {sampler.interpolation}"
            continue
        try:
            times, values = _keys(gltf, sampler, target.path, timing)
        except ValueError as error:  # another encoding, or a count that is not per key
            result.skipped = f"unreadable sampler: {error}"
            continue
        result.keys_before = result.keys_after = len(times)
        found.append(_Channel(animation, channel.sampler, nodes.index(target.node), result, times, values,
                              sampler.interpolation))
    return found


def _keys(gltf, sampler, path, timing):
    """(times (n,), values (n, d)) of a sampler, its times as ``timing`` fixes them; ValueError
    unless it holds a value per key (three components for translations and scales)."""
    times, values = timing.fixed(gltf.read(sampler.input)), gltf.read(sampler.output)
    if times.ndim != 1 or not len(times) or values.size % len(times) or not values.size:
        raise ValueError(f"{values.size} values for {len(times)} keys")
    values = values.reshape(len(times), -1)
    if path != "weights" and values.shape[1] != 3:
        raise ValueError(f"{values.shape[1]} components, not 3")
    return times, values


class _Nodes:
    """The glTF nodes of the export with their parents (from the exporter's tree, nodes it does
    not write skipped), and any other node a channel targets, as a root."""

    def __init__(self, exported):
        written = exported.written()
        position = {node.uuid: i for i, node in enumerate(written)}
        self.objects = [node.node for node in written]
        self.parents = [position.get(exported.written_parent(node.uuid), -1) for node in written]
        self._by_id = {id(node): i for i, node in enumerate(self.objects)}

    def index(self, node):
        if id(node) not in self._by_id:
            self._by_id[id(node)] = len(self.objects)
            self.objects.append(node)
            self.parents.append(-1)
        return self._by_id[id(node)]

    def largest_scales(self, channels):
        """Per node, the largest scale magnitude it has: static, or in any scale channel."""
        largest = np.array([_static_scale(node) for node in self.objects])
        for channel in channels:
            if channel.result.path == "scale" and channel.values.size:
                largest[channel.node] = max(largest[channel.node], float(np.abs(channel.values).max()))
        return largest


def _static_scale(node):
    scale = getattr(node, "scale", None)
    try:
        return float(np.abs(np.asarray(scale, dtype=np.float64)).max()) if scale else 1.0
    except (TypeError, ValueError):
        return 1.0


def _write(gltf, animation, channels):
    """Each reduced channel's keys in a new sampler at its index, with shared inputs."""
    inputs = SharedInputs(gltf, animation)
    covered = _covered_span(gltf, animation, channels)
    for channel in channels:
        keys, result = channel.keys, channel.result
        times, values, interpolation = keys.times, keys.values, keys.interpolation
        if keys.constant:
            interpolation = "STEP"  # as the bundled exporter writes a still channel
            span = channel.times[[0, -1]]
            if span[0] < covered[0] or span[1] > covered[1]:  # the animation would end sooner
                times, values = span, np.repeat(values, 2, axis=0)
                covered = (min(covered[0], span[0]), max(covered[1], span[1]))
        result.max_error, result.constant = keys.max_error, keys.constant
        if len(times) >= len(channel.times):
            continue  # nothing saved: the bundled sampler stays
        output = gltf.accessor(values.reshape(-1) if channel.result.path == "weights" else values)
        animation.samplers[channel.sampler] = gltf.sampler(inputs.get(times), output, interpolation)
        result.keys_after, result.interpolation = len(times), interpolation


def _covered_span(gltf, animation, channels):
    """(first, last) key time of the animation's samplers that keep both their ends: every one
    but the constant channels' (reduced non-constant channels keep their first and last keys)."""
    constant = {c.sampler for c in channels if c.keys.constant}
    times = [read_times(gltf, s.input) for i, s in enumerate(animation.samplers) if i not in constant]
    times = [t for t in times if t is not None and len(t)]
    if not times:
        return (np.inf, -np.inf)
    return (min(t[0] for t in times), max(t[-1] for t in times))


def read_times(gltf: Any, accessor: Any) -> np.ndarray | None:
    """The times of an input accessor, or None when it cannot be read as float times."""
    try:
        return gltf.read(accessor)
    except (ValueError, AttributeError, TypeError):  # not a float input: its span is unknown
        return None


class SharedInputs:
    """Input accessors of some animations by their float32 times: the existing ones first."""

    def __init__(self, gltf: Any, *animations: Any):
        self.gltf, self.known = gltf, {}
        for animation in animations:
            for sampler in animation.samplers:
                times = read_times(gltf, sampler.input)
                if times is not None and times.ndim == 1:
                    self.known.setdefault(times.astype("<f4").tobytes(), sampler.input)

    def get(self, times: np.ndarray) -> Any:
        """The input accessor of these (float32) times, made when none has them."""
        key = np.asarray(times, dtype="<f4").tobytes()
        if key not in self.known:
            self.known[key] = self.gltf.accessor(np.asarray(times, dtype=np.float64), bounds=True)
        return self.known[key]
