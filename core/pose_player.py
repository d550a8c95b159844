"""Every animated channel of a clip evaluated together at one time, in Blender's values.

The live preview poses a whole rig on each frame change: with ~100 channels numpy's fixed cost per
call dominates, not the arithmetic. ``PosePlayer`` sets every channel up once (per-segment arcs and
Hermite coefficients, as core.interpolation) and evaluates all of them in a few dozen numpy calls:
one segment lookup for all channels (``_Lookup``), then one gather and one kernel per group of
channels sharing an interpolation and width (LINEAR lerps, CUBICSPLINE Hermite curves, STEP keys,
and all rotations played by slerp: LINEAR and CUBICSLERP share the key arcs' slerp call, then
CUBICSLERP adds its tangent arcs and outer slerp, with quaternions.slerp_* as core.interpolation).

Blender value = matrix @ glTF value + offset, applied to the keys once where it commutes with the
interpolation: for lerp, Hermite and STEP always (affine maps keep affine combinations; tangents,
as differences, take no offset), for slerp and CUBICSLERP when the matrix is a rotation of R^4
times a scale (it keeps dot products and angles), as Blender's pose maps are. Other rotation maps,
and CUBICSPLINE rotations (normalized in glTF space by the spec), are mapped after evaluation.
The results equal ``Sampler.evaluate`` mapped through matrix/offset to rounding: clamped outside
the keys, stored key values at key times, one-key channels constant; rotations normalized after
the map.
"""

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from . import quaternions as quat
from .interpolation import INTERPOLATIONS, _hermite_coefficients

SOURCES = ("EXTENSION", "FALLBACK")
CUBIC = ("CUBICSPLINE", "CUBICSLERP")
# over() evaluates blocks of times: channels x block stays near core.interpolation.CHUNK samples.
SAMPLES_PER_BLOCK = 16384
# A rotation map M is a rotation times a scale s when M^T M = s^2 I to this relative tolerance
# (float64 rounding of products of float32 quaternions' matrices stays near 1e-16).
CONFORMAL_TOLERANCE = 1e-12


@dataclass(eq=False)  # arrays have no single truth value: channels compare by identity
class PlayerChannel:
    """One channel: a glTF sampler (values as core.interpolation takes them: (n, k), or (3n, k)
    rows a_i, v_i, b_i for CUBICSPLINE/CUBICSLERP) and its map to the Blender property."""
    interpolation: str
    times: np.ndarray
    values: np.ndarray
    path: str
    matrix: np.ndarray
    offset: np.ndarray

    def __post_init__(self):
        self.times = np.asarray(self.times, dtype=np.float64).reshape(-1)
        values = np.asarray(self.values, dtype=np.float64)
        self.values = values.reshape(len(values), -1)          # scalar outputs: (n,) -> (n, 1)
        width = self.values.shape[1]
        self.matrix = np.asarray(self.matrix, dtype=np.float64).reshape(width, width)
        self.offset = np.asarray(self.offset, dtype=np.float64).reshape(width)
        if self.interpolation not in INTERPOLATIONS:
            raise ValueError(f"unknown interpolation {self.interpolation!r}")
        n = len(self.times)
        rows = 3 * n if self.interpolation in CUBIC else n
        if n == 0 or self.values.shape[0] != rows:
            raise ValueError(f"{self.interpolation} with {n} keys needs {rows} value rows, "
                             f"got {self.values.shape}")
        if (self.path == "rotation" or self.interpolation == "CUBICSLERP") and (
                self.path != "rotation" or width != 4):
            raise ValueError(f"CUBICSLERP and rotations need (x, y, z, w) quaternions on the "
                             f"rotation path, got {self.path} with {width} components")

    @property
    def keys(self):
        return self.values[1::3] if self.interpolation in CUBIC else self.values

    def mapped(self, matrix=None):
        """The sampler's values in Blender's space: keys through matrix and offset, tangents
        (derivatives) through the matrix only. ``matrix`` replaces the channel's (for rotations:
        the rotation without its scale, which normalization removes anyway)."""
        values = self.values @ (self.matrix if matrix is None else matrix).T
        if matrix is None:
            values[slice(1, None, 3) if self.interpolation in CUBIC else slice(None)] += self.offset
        return values

    def rotation_scale(self):
        """s when the map is s times a rotation of R^4 with no offset, else None."""
        gram = self.matrix.T @ self.matrix
        scale = np.trace(gram) / len(gram)
        if scale > 0.0 and not self.offset.any() and np.allclose(
                gram, scale * np.eye(len(gram)), rtol=0.0, atol=CONFORMAL_TOLERANCE * scale):
            return float(np.sqrt(scale))
        return None


class PosePlayer:
    def __init__(self, channels):
        self.channels = list(channels)
        batches = {}
        for index, channel in enumerate(self.channels):
            batches.setdefault(_batch(channel), []).append(index)
        for members in batches.values():  # CUBICSLERP first: their tangents extend the slerps
            members.sort(key=lambda i: self.channels[i].interpolation != "CUBICSLERP")
        played = [i for batch, m in batches.items() if batch[0] != "CONSTANT" for i in m]
        self._lookup = _Lookup([self.channels[i] for i in played]) if played else None
        self._groups, grouped, row, key = [], [], 0, 0
        for (kind, *_), members in batches.items():
            chosen = [self.channels[i] for i in members]
            self._groups.append(_KINDS[kind](chosen, slice(row, row + len(members)), key))
            if kind != "CONSTANT":
                row += len(members)
                key += sum(len(c.times) for c in chosen)
            grouped += members
        position = {channel: at for at, channel in enumerate(grouped)}
        self._order = [position[i] for i in range(len(self.channels))]

    @classmethod
    def from_records(cls, records, source):
        """From stored channel records (operators/action_data.py): 'EXTENSION' plays each
        record's sampler, 'FALLBACK' its fallback where it has one, else its sampler."""
        if source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
        channels = []
        for record in records:
            sampler = record["sampler"]
            if source == "FALLBACK" and record.get("fallback") is not None:
                sampler = record["fallback"]
            values = np.asarray(sampler["values"], dtype=np.float64).reshape(
                -1, int(sampler["width"]))
            channels.append(PlayerChannel(sampler["interpolation"], sampler["times"], values,
                                          record["path"], record["matrix"], record["offset"]))
        return cls(channels)

    def at(self, time):
        """Each channel's Blender value at ``time`` (seconds): a list of (k,) arrays."""
        time = float(time)
        k, t = self._lookup.at(time) if self._lookup is not None else (None, None)
        rows = []
        for group in self._groups:
            rows.extend(group.play(k, t, time, 1)[:, 0])
        return [rows[i] for i in self._order]

    def over(self, times):
        """Each channel's Blender values at many times: a list of (len(times), k) arrays."""
        query = np.asarray(times, dtype=np.float64).reshape(-1)
        outs = [np.empty((g.count, len(query), g.width)) for g in self._groups]
        block = max(1, SAMPLES_PER_BLOCK // max(1, len(self.channels)))
        for start in range(0, len(query), block):
            q = query[start:start + block]
            k, t = self._lookup.over(q) if self._lookup is not None else (None, None)
            for group, out in zip(self._groups, outs):
                out[:, start:start + len(q)] = group.play(k, t, q, len(q))
        rows = [channel for out in outs for channel in out]
        return [rows[i] for i in self._order]


def _batch(channel):
    """Channels played by one kernel: same kind and width, and for slerps the same map form."""
    rotation = channel.path == "rotation"
    kind = "CONSTANT" if len(channel.times) == 1 else "SLERP" if rotation and \
        channel.interpolation in ("LINEAR", "CUBICSLERP") else channel.interpolation
    premapped = kind != "SLERP" or channel.rotation_scale() is not None
    return kind, channel.values.shape[1], rotation, premapped


class _Lookup:
    """The segment of every channel at once: one bisection in the union of all key times, then
    one searchsorted in all channels' keys, ranked within that union and offset per channel.

    Ranks are integers, so the per-channel offsets are exact (offsetting float times would round
    queries onto neighbouring keys). Each channel's first key is ranked below every query and its
    last above, so the count of keys below a query is already clamped to the channel's segments.
    """

    def __init__(self, channels):
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
        self.bases = (np.arange(len(channels)) * size + 1)[:, None]
        # Start time and duration of the segment at each key (a channel's last key: none).
        durations = np.diff(times, append=0.0)
        durations[lasts] = 1.0
        self.segment = np.stack([times, durations], axis=1)   # one cache line per segment
        self.next_time = np.append(times[1:], np.inf)
        self.jumps = bool(np.any(durations == 0.0))

    def at(self, time):
        return self._segments(self.bases + bisect_right(self.union_list, time), time)

    def over(self, query):
        return self._segments(self.bases + np.searchsorted(self.union, query, side="right"), query)

    def _segments(self, coded, query):
        """Flat key index k of each channel's segment start (channels, T) and t in [0, 1], as
        core.interpolation._segments computes them, jumps (equal key times) included."""
        k = self.ranks.searchsorted(coded)
        k -= 1
        segment = self.segment.take(k, axis=0)
        start, duration = segment[..., 0], segment[..., 1]
        if self.jumps:
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.subtract(query, start)
                t /= duration
            jump = duration == 0.0
            t[jump] = np.broadcast_to(query, t.shape)[jump] >= self.next_time[k[jump]]
        else:
            t = np.subtract(query, start)
            t /= duration
        np.maximum(t, 0.0, out=t)
        np.minimum(t, 1.0, out=t)
        return k, t


class _Group:
    """Channels evaluated together. ``values`` gives component-major (k, channels, T) values,
    already in Blender's space when ``premapped``, else mapped here after evaluation."""
    premapped = True

    def __init__(self, channels, rows, first_key):
        self.count, self.width = len(channels), channels[0].values.shape[1]
        self.rotation = channels[0].path == "rotation"
        self.normalize = self.rotation
        self.rows, self.first_key = rows, first_key
        self.transposed = np.stack([c.matrix.T for c in channels])
        self.offset = np.stack([c.offset for c in channels])[:, None, :]

    def play(self, k, t, query, samples):
        """(channels, samples, k) Blender values of this group."""
        values = self.values(k[self.rows] - self.first_key, t[self.rows], query)
        if self.premapped:
            if self.normalize:
                _normalize(values, axis=0)
            return np.ascontiguousarray(values.transpose(1, 2, 0))
        out = np.matmul(values.transpose(1, 2, 0), self.transposed)
        out += self.offset
        if self.normalize:
            _normalize(out, axis=-1)
        return out


class _Constant(_Group):
    """One-key channels: the key, mapped (and normalized) once."""

    def __init__(self, channels, rows, first_key):
        super().__init__(channels, rows, first_key)
        keys = np.stack([c.mapped()[1 if c.interpolation in CUBIC else 0] for c in channels])
        self.value = quat.normalize(keys)[:, None] if self.rotation else keys[:, None]

    def play(self, k, t, query, samples):
        return np.repeat(self.value, samples, axis=1)


class _Step(_Group):
    """The key at or before the query (the last key once the query reaches it)."""

    def __init__(self, channels, rows, first_key):
        super().__init__(channels, rows, first_key)
        keys = np.concatenate([c.mapped() for c in channels])
        self.keys = quat.normalize(keys) if self.rotation else keys
        self.normalize = False
        self.next_time = np.append(np.concatenate([c.times for c in channels])[1:], np.inf)

    def values(self, k, t, query):
        k += query >= self.next_time.take(k)
        return _gather(self.keys, k)


class _Lerp(_Group):
    """Appendix C linear interpolation of vectors and morph weights."""

    def __init__(self, channels, rows, first_key):
        super().__init__(channels, rows, first_key)
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

    def __init__(self, channels, rows, first_key):
        super().__init__(channels, rows, first_key)
        self.premapped = not self.rotation
        times = np.concatenate([c.times for c in channels])
        values = np.concatenate([c.values if self.rotation else c.mapped() for c in channels])
        keys = values[1::3]
        coeffs = _hermite_coefficients(times, values)                       # (n - 1, 4, k)
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
    """Rotations by Appendix C slerp (LINEAR) and CUBICSLERP (conventions section 1): every
    channel slerps its keys; the CUBICSLERP channels (the first ``cubic`` rows) also slerp their
    tangents b_k -> a_{k+1} and join both with the outer slerp of parameter 2t(1 - t).

    Arcs are set up once per segment with both ends, as core.interpolation._Arcs: index 2k + 1
    starts at the segment's end, so a sample's phase u = min(t, 1 - t) is at most 1/2. The key
    and tangent arcs of a segment end share one table row and one slerp_from_basis call (LINEAR
    channels carry a copy of their key arc as tangent arc, never read).
    """

    def __init__(self, channels, rows, first_key):
        super().__init__(channels, rows, first_key)
        scales = [c.rotation_scale() for c in channels]
        self.premapped = None not in scales
        values = [c.mapped(c.matrix / s) if self.premapped else c.values
                  for c, s in zip(channels, scales)]
        self.cubic = sum(c.interpolation == "CUBICSLERP" for c in channels)
        keys = np.concatenate([v[1::3] if c.interpolation in CUBIC else v
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

    def values(self, k, t, query):
        j = k + k
        j += t > 0.5
        rest = 1.0 - t
        u = np.minimum(rest, t)
        table = _gather(self.table, j)                                  # (24, channels, T)
        tiny = table[18:20] != 0.0 if self.any_tiny else np.False_
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


def _gather(table, index):
    """Rows of a per-key table (n, m) at index (channels, T), component-major (m, channels, T).
    Each key's row is contiguous, so a gather touches one or two cache lines per sample; the copy
    gives the ufuncs that follow contiguous operands (numpy iterates strided ones element-wise)."""
    return np.ascontiguousarray(table.take(index, axis=0).transpose(2, 0, 1))


def _normalize(q, axis):
    """In place; a zero quaternion stays zero, as in quaternions.normalize."""
    scale = np.einsum("...i,...i->..." if axis == -1 else "i...,i...->...", q, q)
    np.sqrt(scale, out=scale)
    np.divide(1.0, scale, out=scale, where=scale > 0.0)
    q *= scale[..., None] if axis == -1 else scale[None]


_KINDS = {"CONSTANT": _Constant, "STEP": _Step, "LINEAR": _Lerp, "CUBICSPLINE": _Hermite,
          "SLERP": _Slerp}
