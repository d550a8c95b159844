"""The kernels of core.sampling.pose_player: the segment lookup shared by all channels of a PosePlayer,
then one class per group of channels played together (one-key constants, STEP, LINEAR lerps,
CUBICSPLINE Hermite curves, and slerps: LINEAR and CUBICSLERP rotations), each evaluating its
channels from per-key tables built once.

Each takes many times (over: arrays (channels, T), component-major values, contiguous operands
for the ufuncs) or one time (at: arrays (channels,), the live preview's per-frame call). At ~100
channels numpy's fixed cost per call dominates, so the one-time path counts its calls.
"""

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from . import quaternions as quat
from .interpolation import hermite_coefficients
from ..constants import CUBICSLERP, CUBIC_INTERPOLATIONS

if TYPE_CHECKING:  # pose_player imports this module
    from .pose_player import PlayerChannel

# Lookup keeps every channel's segment for every position in the union of key times when that
# table has at most this many entries per key (4 bytes each, small beside the kernels' tables of
# 100 to 400 bytes per key): channels sampled at shared times, as exporters bake them.
DENSE_PER_KEY = 4
_SMALLEST = np.nextafter(0.0, 1.0)


class Lookup:
    """The segment of every channel at once: one bisection in the union of all key times, then
    one searchsorted in all channels' keys, ranked within that union and offset per channel.

    Ranks are integers, so the per-channel offsets are exact (offsetting float times would round
    queries onto neighbouring keys). Each channel's first key is ranked below every query and its
    last above, so the count of keys below a query is already clamped to the channel's segments:
    it is the flat index of the key that ends the segment (one more than its start, k + 1).

    Where channels share their key times, that count is tabulated for every position in the
    union (``dense``): one row of it replaces the searchsorted, whose binary searches read memory
    one dependent step after another, slow once Blender's evaluation has pushed the ranks out of
    the CPU caches (the preview's case, once per frame).
    """

    def __init__(self, channels: "Sequence[PlayerChannel]") -> None:
        times = np.concatenate([c.times for c in channels])
        self.union = np.unique(times)
        self.union_list = self.union.tolist()
        size = len(self.union) + 3
        counts = np.array([len(c.times) for c in channels])
        starts, lasts = np.cumsum(counts) - counts, np.cumsum(counts) - 1
        base = np.repeat(np.arange(len(channels)) * size + 1, counts)
        self.ranks = np.searchsorted(self.union, times) + base
        self.ranks[starts] = base[starts] - 1
        self.ranks[lasts] = base[lasts] + size - 2
        self.bases = np.arange(len(channels)) * size + 1
        self.dense: npt.NDArray[np.int32] | None = None
        if len(channels) * (len(self.union) + 1) <= DENSE_PER_KEY * len(times):
            positions = np.arange(len(self.union) + 1)[:, None]   # what the bisection returns
            self.dense = self.ranks.searchsorted(positions + self.bases).astype(np.int32)
        # Start time and duration of each segment, at the index of its end key (k + 1; row 0 is
        # no segment's), so the searchsorted result indexes it as it is.
        durations = np.diff(times, append=0.0)
        durations[lasts] = 1.0
        self.segment = np.stack([np.append(0.0, times), np.append(1.0, durations)], axis=1)
        self.end_time = times
        # Times inside every channel's keys: t falls in [0, 1] unclamped (rounding is monotone).
        self.within = (float(times[starts].max()), float(times[lasts].min()))
        self.jumps = bool(np.any(durations == 0.0))

    def at(self, time: float) -> tuple[npt.NDArray[np.integer], npt.NDArray[np.float64]]:
        """For one time: (channels,) arrays, no time axis (the preview's per-frame call)."""
        position = bisect_right(self.union_list, time)
        if self.dense is not None:
            end = self.dense[position]
        else:
            end = self.ranks.searchsorted(self.bases + position)
        return self._segments(end, time, not self.within[0] <= time <= self.within[1])

    def over(self, query: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.integer], npt.NDArray[np.float64]]:
        positions = np.searchsorted(self.union, query, side="right")
        if self.dense is not None:
            return self._segments(self.dense[positions].T, query)
        return self._segments(self.ranks.searchsorted(self.bases[:, None] + positions), query)

    def _segments(self, end, query, clamp=True):
        """From the flat index k + 1 of the key ending each channel's segment (channels, T): that
        index and t in [0, 1], as core.sampling.interpolation._segments computes them, jumps (equal key
        times) included."""
        segment = self.segment[end]
        start, duration = segment[..., 0], segment[..., 1]
        if self.jumps:
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.subtract(query, start)
                t /= duration
            jump = duration == 0.0
            t[jump] = np.broadcast_to(query, t.shape)[jump] >= self.end_time[end[jump]]
        else:
            t = np.subtract(query, start)
            t /= duration
        if clamp:
            np.maximum(t, 0.0, out=t)
            np.minimum(t, 1.0, out=t)
        return end, t


class _Group:
    """Channels evaluated together. ``values`` gives component-major (k, channels, T) values, or
    (k, channels) for one time, already in Blender's space when ``premapped``, else mapped here
    after evaluation. ``first_end`` is the flat index of the group's first key plus one, so
    ``end - first_end`` is the group's own index k of the key starting each segment."""
    premapped = True

    def __init__(self, channels, rows, first_end):
        self.count, self.width = len(channels), channels[0].values.shape[1]
        self.rotation = channels[0].path == "rotation"
        self.normalize = self.rotation
        self.rows, self.first_end = rows, first_end
        self.transposed = np.stack([c.matrix.T for c in channels])
        self.offset = np.stack([c.offset for c in channels])[:, None, :]

    def values(self, k, t, query):
        """Component-major values of the group's channels at segments k, parameters t (each kind's)."""
        raise NotImplementedError

    def play(self, end, t, query, samples):
        """Blender values of this group, components last: (channels, samples, k), or for one
        time (``end`` and ``t`` of shape (channels,)) (channels, k); views where possible."""
        values = self.values(end[self.rows] - self.first_end, t[self.rows], query)
        moved = values.transpose((1, 0) if values.ndim == 2 else (1, 2, 0))
        if self.premapped:
            if self.normalize:
                _normalize(values, axis=0)
            return moved
        out = np.matmul(moved.reshape(self.count, -1, self.width), self.transposed)
        out += self.offset
        if self.normalize:
            _normalize(out, axis=-1)
        return out


class _Constant(_Group):
    """One-key channels: the key, mapped (and normalized) once."""

    def __init__(self, channels, rows, first_end):
        super().__init__(channels, rows, first_end)
        keys = np.stack([c.mapped()[1 if c.interpolation in CUBIC_INTERPOLATIONS else 0] for c in channels])
        self.value = quat.normalize(keys)[:, None] if self.rotation else keys[:, None]

    def play(self, k, t, query, samples):
        return np.repeat(self.value, samples, axis=1)


class _Step(_Group):
    """The key at or before the query (the last key once the query reaches it)."""

    def __init__(self, channels, rows, first_end):
        super().__init__(channels, rows, first_end)
        keys = np.concatenate([c.mapped() for c in channels])
        self.keys = quat.normalize(keys) if self.rotation else keys
        self.normalize = False
        self.next_time = np.append(np.concatenate([c.times for c in channels])[1:], np.inf)

    def values(self, k, t, query):
        k += query >= self.next_time.take(k)
        return _gather(self.keys, k)


class _Lerp(_Group):
    """Appendix C linear interpolation of vectors and morph weights."""

    def __init__(self, channels, rows, first_end):
        super().__init__(channels, rows, first_end)
        keys = np.concatenate([c.mapped() for c in channels])
        following = np.append(keys[1:], keys[-1:], axis=0)
        # key, delta, next key: one gather per call gives what a sample needs.
        self.table = np.concatenate([keys, following - keys, following], axis=1)

    def values(self, k, t, query):
        w, table = self.width, _gather(self.table, k)
        out = table[w:2 * w] * t
        out += table[:w]
        np.copyto(out, table[2 * w:], where=t == 1.0)
        return out


class _Hermite(_Group):
    """Appendix C cubic Hermite spline. Rotations are normalized in glTF space, as the spec
    says, so they are mapped after evaluation; other paths are mapped with their keys."""

    def __init__(self, channels, rows, first_end):
        super().__init__(channels, rows, first_end)
        self.premapped = not self.rotation
        times = np.concatenate([c.times for c in channels])
        values = np.concatenate([c.values if self.rotation else c.mapped() for c in channels])
        keys = values[1::3]
        coeffs = hermite_coefficients(times, values)                       # (n - 1, 4, k)
        coeffs = np.concatenate([coeffs, coeffs[-1:]]).reshape(len(keys), -1)
        following = np.append(keys[1:], keys[-1:], axis=0)
        self.table = np.concatenate([coeffs, following], axis=1)

    def values(self, k, t, query):
        w, table = self.width, _gather(self.table, k)
        out = table[3 * w:4 * w] * t
        out += table[2 * w:3 * w]
        out *= t
        out += table[w:2 * w]
        out *= t
        out += table[:w]
        if self.rotation:
            _normalize(out, axis=0)
        np.copyto(out, table[:w], where=t == 0.0)
        np.copyto(out, table[4 * w:], where=t == 1.0)
        return out


class _Slerp(_Group):
    """Rotations by Appendix C slerp (LINEAR) and CUBICSLERP (spec "CUBICSLERP Interpolation"): every
    channel slerps its keys; the CUBICSLERP channels (the first ``cubic`` rows) also slerp their
    tangents b_k -> a_{k+1} and join both with the outer slerp of parameter 2t(1 - t).

    Arcs are set up once per segment with both ends, as core.sampling.interpolation._Arcs: index 2k + 1
    starts at the segment's end, so a sample's phase u = min(t, 1 - t) is at most 1/2. The key
    and tangent arcs of a segment end share one table row and one slerp_from_basis call (LINEAR
    channels carry a copy of their key arc as tangent arc, never read).
    """

    def __init__(self, channels, rows, first_end):
        super().__init__(channels, rows, first_end)
        scales = [c.rotation_scale() for c in channels]
        self.premapped = None not in scales
        values = [c.mapped(c.matrix / s) if self.premapped else c.values
                  for c, s in zip(channels, scales)]
        self.cubic = sum(c.interpolation == CUBICSLERP for c in channels)
        keys = np.concatenate([v[1::3] if c.interpolation in CUBIC_INTERPOLATIONS else v
                               for c, v in zip(channels, values)])
        following = np.append(keys[1:], keys[-1:], axis=0)
        arcs = quat.slerp_ends(keys, following)          # starts, e (2, n, 4); angle, tiny (2, n)
        tangent_arcs = arcs
        if self.cubic:
            cubic = np.concatenate(values[:self.cubic])
            b, a = cubic[2::3], cubic[0::3]
            tangent_arcs = [np.concatenate([x, y[:, len(b):]], axis=1) for x, y in
                            zip(quat.slerp_ends(b, np.append(a[1:], a[-1:], axis=0)), arcs)]
        real = np.ones(len(keys), dtype=bool)
        real[np.cumsum([len(c.times) for c in channels]) - 1] = False
        self.any_tiny = bool(arcs[3][:, real].any() or tangent_arcs[3][:, real].any())
        # Per arc end (row 2k + end): start and e as (component, arc) pairs, angle and tiny per
        # arc (arc 0 the keys', 1 the tangents'), then the key at that end.
        table = np.empty((len(keys), 2, 24))
        pairs = table[:, :, :20].reshape(len(keys), 2, 10, 2)
        for arc, (starts, e, angle, tiny) in enumerate((arcs, tangent_arcs)):
            pairs[:, :, 0:4, arc] = starts.transpose(1, 0, 2)
            pairs[:, :, 4:8, arc] = e.transpose(1, 0, 2)
            pairs[:, :, 8, arc] = angle.T
            pairs[:, :, 9, arc] = tiny.T
        table[:, 0, 20:], table[:, 1, 20:] = keys, following
        self.table = table.reshape(2 * len(keys), 24)
        self.segments = table.reshape(len(keys), 48)  # both ends of segment k: one gather

    def values(self, k, t, query):
        if k.ndim == 1:
            return self._one(k, t)
        j = k + k
        j += t > 0.5
        rest = 1.0 - t
        u = np.minimum(rest, t)
        table = _gather(self.table, j)                                  # (24, channels, T)
        # Tiny arcs take the nlerp branch (quaternions.slerp_from_basis); a scalar False spares
        # its mask work when none of the rows gathered has one, as at most times.
        flags = table[18:20]
        tiny = flags != 0.0 if self.any_tiny and flags.any() else np.False_
        both = quat.slerp_from_basis(table[0:8].reshape(4, 2, *j.shape),
                                     table[8:16].reshape(4, 2, *j.shape), table[16:18], tiny, u,
                                     axis=0)                            # (4, arc, channels, T)
        p = both[:, 0]
        m = self.cubic
        if m:
            h = rest[:m] * t[:m]
            h *= 2.0
            start = p[:, :m]
            e, angle, tiny = quat.slerp_basis(start, both[:, 1, :m], axis=0)
            p[:, :m] = quat.slerp_from_basis(start, e, angle, tiny, h, axis=0)
        np.copyto(p, table[20:24], where=u == 0.0)  # stored keys at key times and when clamped
        return p

    def _one(self, k, t):
        """values() at one time in fewer numpy calls (their count is the cost at ~100 channels):
        every arc from its start with parameter t, instead of choosing the nearer end, so with
        np.cos beside np.sin (quaternions' cos from the sine is exact to phases of pi/4 only);
        the same slerp to rounding. Stored keys where t is 0 or 1, as values() gives them."""
        row = _gather(self.segments, k)                                 # (48, channels)
        arcs = 2 if self.cubic else 1  # LINEAR alone: the key arcs only
        flags = row[18:18 + arcs]
        tiny = flags != 0.0 if self.any_tiny and flags.any() else None
        phase = row[16:16 + arcs] * t
        s, c = np.sin(phase), np.cos(phase)
        if tiny is not None:  # quaternions.slerp_from_basis: normalize(a + t e)
            c, s = np.where(tiny, 1.0, c), np.where(tiny, t, s)
        both = row[0:8].reshape(4, 2, -1)[:, :arcs] * c                # (4, arc, channels)
        both += row[8:16].reshape(4, 2, -1)[:, :arcs] * s
        if tiny is not None:
            both = np.where(tiny, quat.normalize(both, axis=0), both)
        p = both[:, 0]
        m = self.cubic
        if m:
            h = 1.0 - t[:m]
            h *= t[:m]
            h *= 2.0
            p[:, :m] = _outer_slerp(p[:, :m], both[:, 1, :m], h)
        np.copyto(p, row[20:24], where=t == 0.0)
        np.copyto(p, row[44:48], where=t == 1.0)
        return p


def _outer_slerp(a, b, u):
    """quat.slerp_from_basis(a, *quat.slerp_basis(a, b, axis=0), u, axis=0) for u <= 1/2 and
    component-major (4, m), the same formulas to rounding in fewer numpy calls (CUBICSLERP's outer
    slerp, per frame at one time); where an arc is tiny, quaternions' own nlerp branch."""
    d = np.add.reduce(a * b, axis=0)
    ortho = a * d
    np.subtract(b, ortho, out=ortho)                 # sign(d) x the part of b' orthogonal to a
    length = np.sqrt(np.add.reduce(ortho * ortho, axis=0))
    angle = np.arctan2(length, np.abs(d))
    if angle.min() < quat.NLERP_BELOW:
        return quat.slerp_from_basis(a, *quat.slerp_basis(a, b, axis=0), u, axis=0)
    phase = angle * u
    scale = np.sin(phase)
    scale /= length
    np.negative(scale, out=scale, where=d < 0.0)     # not copysign: a dot of -0.0 counts as +1
    out = a * np.cos(phase)
    out += ortho * scale
    return out


def _gather(table, index):
    """Rows of a per-key table (n, m) at index (channels, T), component-major (m, channels, T).
    Each key's row is contiguous, so a gather touches one or two cache lines per sample; the copy
    gives the ufuncs that follow contiguous operands (numpy iterates strided ones element-wise).
    For one time, index (channels,): (m, channels)."""
    if index.ndim == 1:
        return np.ascontiguousarray(table[index].T)
    return np.ascontiguousarray(table.take(index, axis=0).transpose(2, 0, 1))


def _normalize(q, axis):
    """In place; a zero quaternion stays zero, as in quaternions.normalize (0 / the smallest
    positive float is 0; a masked divide or einsum costs more at ~100 quaternions)."""
    scale = np.add.reduce(q * q, axis=axis, keepdims=True)
    np.sqrt(scale, out=scale)
    np.maximum(scale, _SMALLEST, out=scale)
    q /= scale


KINDS = {"CONSTANT": _Constant, "STEP": _Step, "LINEAR": _Lerp, "CUBICSPLINE": _Hermite,
          "SLERP": _Slerp}
