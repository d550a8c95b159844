"""Fewer keys for the KHR_animation_pointer channels the bundled exporter gathered (material, light
and camera properties, with its "Animation Pointer" option on), after the node channels' reduction.

The bundled exporter samples them at every frame, with its sampling interpolation (LINEAR by
default, STEP if asked; 4.2: LINEAR), all on one input accessor. Each channel is reduced as
translations are (core.fitting.vector_reduction: the fewest of its own keys within its tolerance
at its key times and SAMPLES_PER_FRAME times per frame between them; a channel within its
tolerance of one value keeps one STEP key); its tolerance is the property tolerance of its
natural scale (core.fitting.pointer_export.pointer_tolerance). Then
core.fitting.pointer_export.join_key_sets decides which channels share an input accessor, at the
union of their key times, so that the file is not larger for it (an input's JSON estimated by
INPUT_OVERHEAD): channels are reduced again from those keys (split further where a chord through
more keys misses), and a group whose union is every key keeps the bundled samplers as they were.
Every new input is shared by the samplers of the export with the same times; the bundled
accessors are never changed, only no longer used. Bad data never raises: the channel keeps its
sampler and its PropertyOutcome says why.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.fitting import check_counts, join_key_sets, pointer_tolerance, reduce_vectors
from .compaction import PropertyOutcome, SharedInputs, read_times


@dataclass
class _Pointer:
    animation: Any        # the bundled exporter's animation object (untyped)
    sampler: int
    result: PropertyOutcome
    times: np.ndarray
    values: np.ndarray    # (n, d)
    interpolation: str
    tolerance: float
    keys: Any = None      # core.fitting.vector_reduction.VectorKeys once reduced


def compact_pointers(gltf: Any, animations: list[Any], fraction: float, rate: float,
                     properties: list[PropertyOutcome]) -> None:
    """Reduce the pointer channels of ``animations`` (changed in place; ``gltf``:
    bundled_gltf.export_accessors) with the property tolerance ``fraction`` at ``rate`` frames per
    second of the inputs' seconds; a PropertyOutcome per channel is appended to ``properties``."""
    channels = [c for animation in animations for c in _read(gltf, animation, fraction, properties)]
    for channel in channels:
        try:
            channel.keys = reduce_vectors(channel.times, channel.values, channel.tolerance,
                                          channel.interpolation, False, check_counts(channel.times, rate))
        except ValueError as error:
            channel.result.skipped = str(error)
    channels = [c for c in channels if c.keys is not None]
    inputs = SharedInputs(gltf, *animations)
    by_times: dict[bytes, list[_Pointer]] = {}
    for channel in channels:
        by_times.setdefault(channel.times.astype("<f4").tobytes(), []).append(channel)
    spans = _spans(gltf, animations, {(id(c.animation), c.sampler) for c in channels if c.keys.constant})
    for times, group in by_times.items():
        free = _kept_elsewhere(gltf, animations, times, {(id(c.animation), c.sampler) for c in group})
        _write_group(gltf, group, inputs, free, rate, spans)


def _read(gltf, animation, fraction, properties) -> list[_Pointer]:
    """A _Pointer per pointer channel of ``animation`` sampled LINEAR or STEP (one per sampler)."""
    found, seen = [], set()
    for channel in animation.channels:
        pointer = gltf.pointer_target(channel.target)
        if pointer is None or channel.sampler in seen:
            continue
        seen.add(channel.sampler)
        sampler = animation.samplers[channel.sampler]
        result = PropertyOutcome(animation.name, pointer[1], pointer[0], interpolation=sampler.interpolation)
        properties.append(result)
        if sampler.interpolation not in ("LINEAR", "STEP"):
            result.skipped = f"the bundled sampler is {sampler.interpolation}"
            continue
        try:
            times, values = gltf.read(sampler.input), gltf.read(sampler.output)
            if times.ndim != 1 or not len(times) or not values.size or values.size % len(times):
                raise ValueError(f"{values.size} values for {len(times)} keys")
        except (ValueError, AttributeError, KeyError) as error:  # another encoding, or not per key
            result.skipped = f"unreadable sampler: {error}"
            continue
        values = values.reshape(len(times), -1)
        result.keys_before = result.keys_after = len(times)
        result.tolerance = pointer_tolerance(fraction, values)
        found.append(_Pointer(animation, channel.sampler, result, times, values, sampler.interpolation,
                              result.tolerance))
    return found


def _kept_elsewhere(gltf, animations, times, own) -> bool:
    """Whether a sampler other than ``own`` ((id(animation), index) pairs) has an input with
    ``times`` (float32 bytes): then that input stays in the file whatever these channels do."""
    for animation in animations:
        for index, sampler in enumerate(animation.samplers):
            if (id(animation), index) in own:
                continue
            found = read_times(gltf, sampler.input)
            if found is not None and found.astype("<f4").tobytes() == times:
                return True
    return False


def _spans(gltf, animations, constant):
    """id(animation) -> (first, last) key time of its samplers but the ``constant`` ones
    ((id(animation), index) pairs): the reduced others keep their first and last keys."""
    spans = {}
    for animation in animations:
        found = [read_times(gltf, s.input) for i, s in enumerate(animation.samplers)
                 if (id(animation), i) not in constant]
        found = [t for t in found if t is not None and t.ndim == 1 and len(t)]
        spans[id(animation)] = (min(t[0] for t in found), max(t[-1] for t in found)) if found else None
    return spans


def _write_group(gltf, channels, inputs, free, rate, spans):
    """Channels with the same sampled times: joined by input, reduced again, written."""
    count = len(channels[0].times)
    own = [_own_keys(c, count, spans) for c in channels]
    widths = [c.values.shape[1] for c in channels]
    for union, members in join_key_sets(own, widths, count, full_is_free=free):
        group = [(channels[m], own[m]) for m in members]
        union = _common_keys(group, union, rate)
        for channel, _ in group:
            _write(gltf, channel, union, count, inputs)


def _own_keys(channel, count, spans):
    """The keys ``channel`` needs on its own: its reduction's, or for a constant channel its first
    (and its last where the other samplers of its animation would end sooner)."""
    if not channel.keys.constant:
        return channel.keys.indices
    span = spans.get(id(channel.animation))
    ends = channel.times[[0, -1]]
    covered = span is not None and span[0] <= ends[0] and span[1] >= ends[1]
    return np.array([0]) if covered or count == 1 else np.array([0, count - 1])


def _common_keys(group, union, rate):
    """The union of the keys of ``group`` ((channel, its own keys) pairs), grown until each
    channel holds its tolerance there; a channel whose own keys are the union keeps them."""
    for _ in range(len(group[0][0].times)):  # bounded: the union only grows
        grown = union
        for channel, own in group:
            if np.array_equal(own, union):
                continue
            channel.keys = reduce_vectors(channel.times, channel.values, channel.tolerance,
                                          channel.interpolation, False, check_counts(channel.times, rate),
                                          start=grown)
            grown = np.union1d(grown, channel.keys.indices)
        if len(grown) == len(union):
            return union
        union = grown
    return union


def _write(gltf, channel, union, count, inputs):
    """The channel's keys at ``union`` in a new sampler at its index (its bundled one kept when
    ``union`` is every key)."""
    keys, result = channel.keys, channel.result
    result.max_error, result.constant = keys.max_error, keys.constant and len(union) <= 2
    if len(union) >= count:
        result.max_error, result.constant = 0.0, False
        return  # every key: the bundled sampler stays
    if keys.constant and len(keys.indices) == 1 and len(union) <= 2:
        times = channel.times[union].astype(np.float64)
        values, interpolation = np.repeat(keys.values, len(union), axis=0), "STEP"
    else:
        times, values, interpolation = keys.times, keys.values, keys.interpolation
    output = gltf.accessor(values.reshape(-1) if values.shape[1] == 1 else values)
    channel.animation.samplers[channel.sampler] = gltf.sampler(inputs.get(times), output, interpolation)
    result.keys_after, result.interpolation = len(times), interpolation
