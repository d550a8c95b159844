"""CUBICSLERP channels refined together (keyframes_batch): their keys laid end to end on one time
line, each channel shifted to start one second after the previous one ends, the segment between
two channels CONSTANT and never probed. Everything keyframes._rotation_keyframes does per channel
(jumps, sign-continuous keys, closed-form end slopes, refine rounds) then runs once for all, which
is what makes a clip of many short channels (the exporter writes a key where the animator set
one) cheap: numpy's per-call overhead is paid per round, not per channel and round.

A channel whose curve jumps takes keyframes_for's own path (its extra keys and CONSTANT gap).
"""

from collections.abc import Sequence
from typing import cast

import numpy as np

from ..sampling import quaternions as quat
from ..sampling import Sampler
from .curve_slopes import sqlerp_end_slopes
from .keyframes import Keyframes, RefineStart, gap_modes, with_handles, chord2_limits, keyframes_for, refine
from ..sampling import jump_times
from ..constants import CUBICSLERP


def cubicslerp_channels(samplers: Sequence[Sampler], tolerances: Sequence[float],
                        frames_per_second: float = 24.0) -> list[Keyframes]:
    """[keyframes_for(sampler, tolerance, frames_per_second) for each pair] of CUBICSLERP samplers
    with strictly increasing key times."""
    line = _Line(samplers)
    jumping = line.channels_at(jump_times(line.times, line.rows))
    if jumping:  # rare: those channels alone, the others joined again without them
        smooth = [c for c in range(len(samplers)) if c not in jumping]
        out: list[Keyframes | None] = [None] * len(samplers)
        for c in jumping:
            out[c] = keyframes_for(samplers[c], tolerances[c], frames_per_second=frames_per_second)
        if smooth:
            for c, keys in zip(smooth, _refined(_Line([samplers[c] for c in smooth]),
                                                [tolerances[c] for c in smooth])):
                out[c] = keys
        return cast(list[Keyframes], out)  # every channel is jumping or smooth: all filled
    return _refined(line, tolerances)


class _Line:
    """The samplers' keys on one time line: ``times`` (shifted), interleaved ``rows``, per
    channel its first key index ``first`` and its ``shift``; ``sampler`` plays all of them."""

    def __init__(self, samplers):
        own = [np.asarray(s.times, dtype=np.float64).reshape(-1) for s in samplers]
        counts = np.array([len(t) for t in own])
        self.first = np.cumsum(counts) - counts
        self.channel = np.repeat(np.arange(len(samplers)), counts)
        spans = np.array([(t[0], t[-1]) for t in own])
        # Each channel starts one second after the previous one ends (the first keeps its times).
        self.shift = np.concatenate([[0.0], np.cumsum(spans[:-1, 1] - spans[1:, 0] + 1.0)])
        self.own_times = own
        self.times = np.concatenate(own) + self.shift[self.channel]
        rows = [np.array(s.values, dtype=np.float64) for s in samplers]
        for r in rows:  # b_n and a_1 serve only the segment between two channels: keep it smooth
            r[0], r[-1] = r[1], r[-2]
        self.rows = np.concatenate(rows)
        self.sampler = Sampler(CUBICSLERP, self.times, self.rows, "rotation", "")
        self.inside = np.ones(len(self.times) - 1, dtype=bool)  # segments within one channel
        self.inside[self.first[1:] - 1] = False

    def channels_at(self, times):
        """The channels whose own segments hold ``times`` (a jump between channels is none)."""
        index = np.clip(np.searchsorted(self.times, times, "right") - 1, 0, len(self.inside) - 1)
        return {int(self.channel[i]) for i in index[self.inside[index]]}

    def start(self):
        """keyframes.rotation_start for every channel at once (no jumps)."""
        keys = self.rows[1::3]
        continuous = continuous_runs(keys, self.first, self.channel)
        flip = np.where(quat.dot(continuous, keys) < 0.0, -1.0, 1.0)[:, None]
        arriving, leaving = np.zeros_like(keys), np.zeros_like(keys)
        s = np.flatnonzero(self.inside)
        out, into = sqlerp_end_slopes(self.rows[2::3][s], self.rows[0::3][s + 1], keys[s], keys[s + 1],
                                      self.times[s + 1] - self.times[s])
        leaving[s], arriving[s + 1] = out * flip[s], into * flip[s + 1]
        return RefineStart(self.times, continuous, arriving, leaving, self.inside.copy(),
                           ~self.inside, np.zeros(0))


def _refined(line, tolerances):
    limits = np.array([chord2_limits(t) for t in tolerances]).T  # (2, channels): sure, limit
    starts = line.times[line.first]

    def per_segment(times, segments):
        return limits[:, np.searchsorted(starts, times[segments], "right") - 1]

    times, values, arriving, leaving, gaps = refine(line.sampler, line.start(), per_segment)
    bounds = np.append(np.searchsorted(times, starts), len(times))
    out = []
    for c, own in enumerate(line.own_times):
        i, j = bounds[c], bounds[c + 1]
        # refine() chains signs along the whole line; each channel starts in its first key's sign.
        sign = -1.0 if float(np.dot(values[i], line.rows[3 * line.first[c] + 1])) < 0.0 else 1.0
        keys = with_handles(_restored(times[i:j] - line.shift[c], own), sign * values[i:j],
                             sign * arriving[i:j], sign * leaving[i:j], gap_modes(gaps[i:j - 1]))
        keys.jumps = np.zeros(0)
        out.append(keys)
    return out


def continuous_runs(q: np.ndarray, first: np.ndarray, channel: np.ndarray) -> np.ndarray:
    """quaternions.make_continuous on each channel's run of keys: signs chained within a run, the
    first key of each run as stored."""
    steps = np.where(np.einsum("ij,ij->i", q[:-1], q[1:]) < 0.0, -1.0, 1.0)
    signs = np.concatenate([[1.0], np.cumprod(steps)])
    return q * (signs * signs[first][channel])[:, None]


def _restored(times, original):
    """A channel's key times back on its own time line: the file's keys exactly (shifting there and
    back may round the last bit), the keys refine() added as computed."""
    times = times.copy()
    times[np.searchsorted(times, original - 1e-9)] = original
    return times
