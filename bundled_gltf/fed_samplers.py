"""What the bundled importer reads for the samplers our hooks rewrite, while one animation is built.

Two kinds of sampler are fed instead of read:

- **Placeholders.** Samplers played by node channels only (TRS and weights, KHR_animation_pointer
  ones to a node's TRS included): our hook rewrites their keys anyway, and the importer converts
  every key with mathutils in Python (most of its import time on dense clips). One key of data
  makes it build the same actions, slots, F-curves and NLA tracks at almost no cost.
- **Dense samples.** Samplers of KHR_animation_pointer channels to other properties (materials,
  cameras, lights): the importer converts values with its own rules, some of them not linear, so it
  is handed the spec's curve sampled densely (core.fitting.pointer_samples), converts each sample,
  and our hook keeps the fewest of them.

Either data only suits its sampler, and accessors are often shared (inputs between samplers, an
output between a node channel's sampler and a pointer's). So each fed sampler gets **private
accessors** for the time of its animation: copies of its input and output accessor objects,
appended to the importer's list, which the sampler points at; the accessor cache (Blender 4.2 to
5.1) or the decode hook (5.2+, versions: decode_accessor_hook) answers for those copies only.
``restore`` puts the samplers back and drops the copies, so nothing fed outlives the animation.
A sampler that any other channel plays is read as it is.

The importer decodes an accessor afresh on every read, and some of its pointer code converts the
list it gets in place (a spot light's outer cone angle is doubled, then read again for the inner
cone's blend): the cache answers each read of a fed accessor with a fresh copy, as decoding would.
"""

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.gltf import node_target

_WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
_READ = ("LINEAR", "STEP", "CUBICSPLINE", None)  # what the importer reads; None: LINEAR by default
_NODE_PATHS = ("translation", "rotation", "scale", "weights")

# sampler index -> (times (n,), values (n, k), interpolation to play them with)
DenseFeeds = Mapping[int, tuple[np.ndarray, np.ndarray, str]]


class FedAnimation:
    """The fed samplers of animation ``anim_idx`` of the importer's ``gltf``."""

    def __init__(self, gltf: Any, anim_idx: int, dense: DenseFeeds):
        self._gltf = gltf
        self._animation = gltf.data.animations[anim_idx]
        self._dense = dense
        self._saved: list[tuple[Any, int, int, Any]] = []  # (sampler, input, output, interpolation)
        self._accessor_count = len(gltf.data.accessors)
        self.answers: dict[int, np.ndarray] = {}  # id(accessor copy) -> data, for the decode hook

    def apply(self, by_hook: bool) -> None:
        """Point every fed sampler at private accessors holding its data."""
        if not by_hook:
            self._gltf.accessor_cache = _FreshCopies(self._gltf.accessor_cache, self._accessor_count)
        kinds = _sampler_kinds(self._animation, self._dense)
        for s, sampler in enumerate(self._animation.samplers):
            data = self._data(s, sampler, kinds.get(s))
            if data is None:
                continue
            times, values, interpolation = data
            self._saved.append((sampler, sampler.input, sampler.output, sampler.interpolation))
            sampler.input = self._private(sampler.input, times.reshape(-1, 1), by_hook)
            sampler.output = self._private(sampler.output, values, by_hook)
            sampler.interpolation = interpolation

    def restore(self) -> None:
        """Put the samplers back as the file has them and drop the private accessors."""
        for sampler, input_index, output_index, interpolation in self._saved:
            sampler.input, sampler.output, sampler.interpolation = input_index, output_index, interpolation
        accessors = self._gltf.data.accessors
        cache = getattr(self._gltf, "accessor_cache", None)
        if isinstance(cache, _FreshCopies):  # the importer's own entries, ours left out
            self._gltf.accessor_cache = {k: v for k, v in cache.items() if k < self._accessor_count}
        del accessors[self._accessor_count:]
        self._saved.clear()
        self.answers.clear()

    def _data(self, s, sampler, kind):
        if kind == "dense":
            times, values, interpolation = self._dense[s]
            return np.asarray(times, dtype=np.float64), np.asarray(values, dtype=np.float64), interpolation
        if kind == "node" and sampler.interpolation in _READ:
            return _one_key(self._gltf.data, sampler)
        return None

    def _private(self, index, data, by_hook):
        accessors = self._gltf.data.accessors
        accessors.append(copy.copy(accessors[index]))
        if by_hook:
            self.answers[id(accessors[-1])] = data
        else:
            self._gltf.accessor_cache[len(accessors) - 1] = data.tolist()
        return len(accessors) - 1


class _FreshCopies(dict):
    """The accessor cache while an animation is fed: a fresh copy of the rows of a fed accessor
    (index ``first`` and later) on every read; the importer's own entries as they are."""

    def __init__(self, entries: dict, first: int):
        super().__init__(entries)
        self.first = first

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        if isinstance(key, int) and key >= self.first:
            return [list(row) for row in value]
        return value


def _sampler_kinds(animation: Any, dense: DenseFeeds) -> dict[int, str]:
    """Per sampler: "dense" (a pointer channel we make exact plays it: every channel that plays
    it gets the spec's samples), "node" (node channels only) or "kept" (another channel plays it)."""
    kinds: dict[int, str] = {}
    for channel in animation.channels:
        s = channel.sampler
        if s is None:
            continue
        if s in dense:
            kinds[s] = "dense"
        elif not _is_node_channel(channel.target):
            kinds[s] = "kept"
        else:
            kinds.setdefault(s, "node")
    return kinds


def _is_node_channel(target: Any) -> bool:
    if target.path == "pointer":
        return node_target({"path": "pointer", "extensions": target.extensions}) is not None
    return target.node is not None and target.path in _NODE_PATHS


def _one_key(data: Any, sampler: Any) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """One key's data for a node channel's sampler; None for a broken one (read as it is)."""
    try:
        inputs, outputs = data.accessors[sampler.input], data.accessors[sampler.output]
        rows = max(outputs.count // max(inputs.count, 1), 1)
        return np.zeros(1), np.zeros((rows, _WIDTH[outputs.type])), sampler.interpolation
    except (IndexError, KeyError, TypeError):
        return None
