"""``keyframes_for`` for every channel of an animation at once.

A character's clip has dozens of short channels (RiggedFigure: 57 channels of 40 keys), where the
cost of ``keyframes_for`` is numpy's per-call overhead, not the keys: about 40 numpy calls for
each slerp channel, whose fixed cost outweighs the work on 40 keys. Slerp (LINEAR rotation)
channels are therefore fitted together, as one concatenation of their keys, with the closed form
of ``keyframes._slerp_keyframes`` applied per segment and no segment crossing from one channel to
the next (measured: docs/manual/benchmarks.md, "Kernel choices"); every other channel goes
through ``keyframes_for``. The keys are the same as channel by channel
(tests/core/test_keyframes_batch.py compares them).
"""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..sampling import Sampler
from ..sampling import quaternions as quat
from .curve_slopes import arc_slope
from .keyframes import ARC_ERROR_DEG, BEZIER, MIN_TOLERANCE_DEG, SPLIT_AT, Keyframes, keyframes_for
from .keyframes_joined import continuous_runs, cubicslerp_channels
from ..constants import CUBICSLERP


# CUBICSLERP channels of at most this many keys are refined together. Each round of refine()
# rebuilds its whole key set, so a long channel is better refined alone: it stops when its own
# segments pass, not when the slowest channel's do. Channels of a few dozen keys, as keyed rigs
# export them, are refined many times faster together; channels of 1,000 keys gain nothing from
# it (measured: docs/manual/benchmarks.md, "Kernel choices").
JOINED_KEYS = 200


def keyframes_for_channels(samplers: Sequence[Sampler], tolerances_deg: Sequence[float],
                           bake_times: npt.ArrayLike | None = None,
                           frames_per_second: float = 24.0) -> list[Keyframes]:
    """[keyframes_for(sampler, tolerance, bake_times, frames_per_second) for each pair], with the
    slerp channels fitted in one pass and the CUBICSLERP ones refined together."""
    if any(not t > 0.0 for t in tolerances_deg):  # as keyframes_for says, before any channel is fitted
        raise ValueError(f"tolerances must be positive, got {list(tolerances_deg)!r}")
    out: list[Keyframes | None] = [None] * len(samplers)
    tolerances = [max(float(t), MIN_TOLERANCE_DEG) for t in tolerances_deg]
    for kind, fit in (("LINEAR", _slerp_channels), (CUBICSLERP, cubicslerp_channels)):
        batch = [i for i, s in enumerate(samplers) if bake_times is None and _batched(s, kind)]
        if batch:
            fitted = fit([samplers[i] for i in batch], [tolerances[i] for i in batch], frames_per_second)
            for i, keys in zip(batch, fitted):
                out[i] = keys
    return [keys if keys is not None else
            keyframes_for(sampler, tolerances_deg[i], bake_times=bake_times, frames_per_second=frames_per_second)
            for i, (sampler, keys) in enumerate(zip(samplers, out))]


def _batched(sampler, interpolation):
    """A rotation of ``interpolation`` with two or more strictly increasing key times (equal
    times take keyframes_for's own path)."""
    if sampler.interpolation != interpolation or (interpolation == "LINEAR" and sampler.path != "rotation"):
        return False
    times = np.asarray(sampler.times).reshape(-1)
    if interpolation == CUBICSLERP and len(times) > JOINED_KEYS:
        return False
    return len(times) > 1 and bool((times[1:] > times[:-1]).all())


def _slerp_channels(samplers, tolerances, frames_per_second=None):
    """Keyframes of each slerp sampler: keyframes._slerp_keyframes over the concatenation."""
    counts = np.array([len(s.times) for s in samplers])
    first = np.cumsum(counts) - counts          # each channel's first key in the concatenation
    last = first + counts - 1
    channel = np.repeat(np.arange(len(samplers)), counts)
    times = np.concatenate([np.asarray(s.times, dtype=np.float64).reshape(-1) for s in samplers])
    v = continuous_runs(np.concatenate([np.asarray(s.values, dtype=np.float64) for s in samplers]),
                         first, channel)
    inside = np.ones(len(times) - 1, dtype=bool)  # segment i joins keys i and i + 1
    inside[last[:-1]] = False
    starts = np.flatnonzero(inside)
    h = times[starts + 1] - times[starts]
    a_, b_ = v[starts], v[starts + 1]
    phi = 2.0 * np.arctan2(np.linalg.norm(b_ - a_, axis=1), np.linalg.norm(b_ + a_, axis=1))
    budget = np.asarray(tolerances)[channel[starts]] * SPLIT_AT
    pieces = np.maximum(np.ceil((ARC_ERROR_DEG * phi ** 5 / budget) ** 0.2 - 1e-9), 1).astype(int)
    # Rows out: every piece of every segment, and each channel's last key after its pieces.
    emitted = np.zeros(len(times), dtype=int)
    emitted[starts], emitted[last] = pieces, 1
    source = np.repeat(np.arange(len(times)), emitted)
    row_start = np.cumsum(emitted) - emitted
    step = np.arange(len(source)) - row_start[source]
    is_piece = np.ones(len(source), dtype=bool)
    is_piece[row_start[last]] = False
    piece_rows = np.flatnonzero(is_piece)
    segment = np.searchsorted(starts, source[piece_rows])  # index into starts/pieces/phi/h
    count = pieces[segment]
    start, end = step[piece_rows] / count, (step[piece_rows] + 1) / count
    a, b, angle, duration = a_[segment], b_[segment], phi[segment], h[segment]
    values = v[source]  # the file's keys, as stored, where a segment starts and at the end
    inner = step[piece_rows] > 0
    if inner.any():
        values[piece_rows[inner]] = quat.slerp(a[inner], b[inner], start[inner])
    new_times = times[source].copy()
    new_times[piece_rows] += start * duration
    leave, arrive = np.zeros_like(values), np.zeros_like(values)
    leave[piece_rows] = arc_slope(a, b, angle, start) / duration[:, None]
    arrive[piece_rows + 1] = arc_slope(a, b, angle, end) / duration[:, None]
    rows = np.append(row_start[first], len(source))
    return _split_with_handles(new_times, values, arrive, leave, rows)


def _split_with_handles(times, values, arriving, leaving, rows):
    """keyframes.with_handles for each channel's rows[k]:rows[k + 1], computed once for all:
    handles a third of the adjacent segment away, the ends mirroring their inner side."""
    third = np.append(np.diff(times), 0.0) / 3.0
    before, after = np.roll(third, 1), third.copy()
    heads, tails = rows[:-1], rows[1:] - 1
    before[heads], after[tails] = third[heads], third[tails - 1]
    arriving[heads], leaving[tails] = leaving[heads], arriving[tails]
    left_values = values - before[:, None] * arriving
    right_values = values + after[:, None] * leaving
    left_times, right_times = times - before, times + after
    modes = np.full(len(times), BEZIER)
    return [Keyframes(times[i:j], values[i:j], left_times[i:j], left_values[i:j], right_times[i:j],
                      right_values[i:j], modes[i:j]) for i, j in zip(heads, rows[1:])]
