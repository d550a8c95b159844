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
    """Bound a pointer channel's error: ``fraction`` x max(1, its largest magnitude).

    The bound holds per component, in the property's own units (see the module's text).

    Parameters
    ----------
    fraction : float
        The export's property tolerance (ExportOptions.property_tolerance).
    values : (n, d) float array
        The channel's keys, in the property's units (a non-finite largest magnitude counts as 1).

    Returns
    -------
    float
        The error bound.

    Examples
    --------
    >>> pointer_tolerance(1e-4, [[0.2, 0.5, 1.0]])  # a colour: a fraction of 1
    0.0001
    >>> round(pointer_tolerance(1e-4, [[800.0], [650.0]]), 6)  # a light's intensity: of 800 cd
    0.08
    """
    values = np.asarray(values, dtype=np.float64)
    largest = float(np.abs(values).max()) if values.size else 0.0
    return float(fraction) * max(1.0, largest if np.isfinite(largest) else 1.0)


def input_bytes(count: int) -> int:
    """Estimate the bytes one more input accessor of float times adds to a file.

    Parameters
    ----------
    count : int
        Its key times.

    Returns
    -------
    int
        4 bytes a time and INPUT_OVERHEAD of JSON (the accessor and its buffer view).

    Examples
    --------
    >>> input_bytes(100)  # 4 x 100 bytes of times, 240 of JSON
    640
    """
    return FLOAT_BYTES * int(count) + INPUT_OVERHEAD


def join_key_sets(key_sets: Sequence[npt.ArrayLike], widths: Sequence[int], count: int,
                  full_is_free: bool = False) -> list[tuple[np.ndarray, list[int]]]:
    """Group channels by the input accessor they share, by the bytes written.

    A group's channels are written at the union of their key sets; its bytes are its input's
    (input_bytes; nothing when the union is every key and ``full_is_free``) and each channel's
    4 x width per key. Starting from a group per distinct key set, the two groups whose merging
    saves the most bytes are merged while any merge saves bytes (about n^2 pairs a round, n the
    channels).

    Parameters
    ----------
    key_sets : sequence of (k,) int arrays
        Per channel, the indices (into the ``count`` keys of the sampled input) it needs.
    widths : sequence of int
        Per channel, its components per key.
    count : int
        The keys of the sampled input.
    full_is_free : bool
        The sampled input stays in the file anyway: a group at every key costs no input.

    Returns
    -------
    list of ((m,) int array, list of int)
        Per group, its key indices and the positions of its channels in ``key_sets``; groups in
        order of their first channel.

    Examples
    --------
    Apart, a 2-key and a 3-key channel of 3 floats write 2 inputs (2 x 240 + 20 bytes) and 60
    bytes of values; together one input (252) and 72: they share it.

    >>> groups = join_key_sets([[0, 9], [0, 5, 9]], [3, 3], count=10)
    >>> [(keys.tolist(), channels) for keys, channels in groups]
    [([0, 5, 9], [0, 1])]
    """
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
