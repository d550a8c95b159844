"""How closely an export's KHR_animation_pointer channels (material, light and camera properties)
follow the bundled exporter's per-frame samples, and which of them share key times.

Tolerance: the export's property tolerance (ExportOptions.property_tolerance, default 1e-4) is a
fraction of the property's natural scale, per component, in the property's own units: 1 for
colours, factors and texture-transform offsets and scales (which mostly span 0 to 1) and for angles
in radians (a camera's yfov, a spot light's cone angles: 1e-4 rad is 0.0057 degrees), or the
largest magnitude the channel takes over the clip where that is larger (a light's intensity in
candela or lux, an emissive strength, a camera's clip distances): an error of that fraction of
its size. So ``fraction x max(1, max |value|)``.

Key times: the bundled exporter writes every pointer sampler of an export on one input accessor
(a key per frame). Each channel reduced on its own would need an input accessor of its own (its
bytes and, in the JSON, an accessor and a buffer view: about INPUT_OVERHEAD bytes), which can
cost more than the keys save; join_key_sets decides which channels share one input, at the union
of their key times, by the bytes written.
"""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

INPUT_OVERHEAD = 240  # bytes of JSON of one more input accessor and its buffer view (GLB ~150, .gltf ~240)
FLOAT_BYTES = 4


def pointer_tolerance(fraction: float, values: npt.ArrayLike) -> float:
    """The error bound of a pointer channel whose keys hold ``values`` ((n, d), the property's
    units): ``fraction`` x max(1, largest magnitude), per component (see the module's text)."""
    values = np.asarray(values, dtype=np.float64)
    largest = float(np.abs(values).max()) if values.size else 0.0
    return float(fraction) * max(1.0, largest if np.isfinite(largest) else 1.0)


def input_bytes(count: int) -> int:
    """Bytes one more input accessor of ``count`` float times adds to a file (estimated)."""
    return FLOAT_BYTES * int(count) + INPUT_OVERHEAD


def join_key_sets(key_sets: Sequence[npt.ArrayLike], widths: Sequence[int], count: int,
                  full_is_free: bool = False) -> list[tuple[np.ndarray, list[int]]]:
    """Channels grouped by the input accessor they share: [(key indices of the group, positions
    of its channels in ``key_sets``)], groups in order of their first channel.

    ``key_sets``: per channel the indices (into the ``count`` keys of the sampled input) it needs;
    ``widths``: its components per key. A group's channels are written at the union of their key
    sets; its bytes are its input's (input_bytes; nothing when the union is every key and
    ``full_is_free``: the sampled input stays in the file anyway) and each channel's 4 x width per
    key. Starting from a group per distinct key set, the two groups whose merging saves the most
    bytes are merged while any merge saves bytes (about n^2 pairs a round, n the channels)."""
    members: dict[bytes, list[int]] = {}
    masks: list[np.ndarray] = []
    for position, keys in enumerate(key_sets):
        mask = np.zeros(count, dtype=bool)
        mask[np.asarray(keys, dtype=np.intp)] = True
        members.setdefault(mask.tobytes(), []).append(position)
        if len(members[mask.tobytes()]) == 1:
            masks.append(mask)
    groups = [members[mask.tobytes()] for mask in masks]
    width = np.array([sum(widths[p] for p in group) for group in groups], dtype=np.float64)
    sets = np.array(masks, dtype=np.float64).reshape(len(masks), count)
    while len(groups) > 1:
        sizes = sets.sum(axis=1)
        union = sizes[:, None] + sizes[None, :] - sets @ sets.T
        before = _cost(sizes, width, count, full_is_free)
        after = _cost(union, width[:, None] + width[None, :], count, full_is_free)
        saving = before[:, None] + before[None, :] - after
        np.fill_diagonal(saving, -np.inf)
        a, b = np.unravel_index(np.argmax(saving), saving.shape)
        if saving[a, b] <= 0.0:
            break
        a, b = min(a, b), max(a, b)
        sets[a] = np.maximum(sets[a], sets[b])
        width[a] += width[b]
        groups[a] = sorted(groups[a] + groups[b])
        sets, width = np.delete(sets, b, axis=0), np.delete(width, b)
        del groups[b]
    return [(np.flatnonzero(row), group) for row, group in zip(sets, groups)]


def _cost(sizes, width, count, full_is_free):
    """Bytes of groups with ``sizes`` keys and ``width`` output components per key in all."""
    inputs = FLOAT_BYTES * sizes + INPUT_OVERHEAD
    if full_is_free:
        inputs = np.where(sizes >= count, 0.0, inputs)
    return inputs + FLOAT_BYTES * width * sizes
