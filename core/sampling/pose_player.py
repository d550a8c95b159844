"""Every animated channel of a clip evaluated together at one time, in Blender's values.

The live preview poses a whole rig on each frame change: with ~100 channels numpy's fixed cost per
call dominates, not the arithmetic. ``PosePlayer`` sets every channel up once (per-segment arcs and
Hermite coefficients, as core.sampling.interpolation) and evaluates all of them in a few dozen numpy calls
(core.sampling.pose_kernels): one segment lookup for all channels, then one gather and one kernel per group
of channels sharing an interpolation and width (LINEAR lerps, CUBICSPLINE Hermite curves, STEP
keys, and all rotations played by slerp: LINEAR and CUBICSLERP share the key arcs' slerp call,
then CUBICSLERP adds its tangent arcs and outer slerp, with quaternions.slerp_* as
core.sampling.interpolation).

Blender value = matrix @ glTF value + offset, applied to the keys once where it commutes with the
interpolation: for lerp, Hermite and STEP always (affine maps keep affine combinations; tangents,
as differences, take no offset), for slerp and CUBICSLERP when the matrix is a rotation of R^4
times a scale (it keeps dot products and angles), as Blender's pose maps are. Other rotation maps,
and CUBICSPLINE rotations (normalized in glTF space by the spec), are mapped after evaluation.
The results equal ``Sampler.evaluate`` mapped through matrix/offset to rounding: clamped outside
the keys, stored key values at key times, one-key channels constant; rotations normalized after
the map.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, Self

import numpy as np
import numpy.typing as npt

from .interpolation import INTERPOLATIONS
from .pose_kernels import KINDS, Lookup
from ..constants import CUBICSLERP, CUBIC_INTERPOLATIONS

SOURCES = ("EXTENSION", "FALLBACK")
# over() evaluates blocks of times: channels x block stays near core.sampling.interpolation.CHUNK samples.
SAMPLES_PER_BLOCK = 16384
# A rotation map M is a rotation times a scale s when M^T M = s^2 I to this relative tolerance
# (float64 rounding of products of float32 quaternions' matrices stays near 1e-16).
CONFORMAL_TOLERANCE = 1e-12


class PlayedSampler(Protocol):
    """What a record plays (core.blender_model.clip_record.SamplerRecord)."""

    @property
    def interpolation(self) -> str: ...
    @property
    def times(self) -> np.ndarray: ...
    @property
    def values(self) -> np.ndarray: ...


class ChannelSource(Protocol):
    """A stored channel record (core.blender_model.clip_record.ChannelRecord)."""

    @property
    def path(self) -> str: ...
    @property
    def matrix(self) -> np.ndarray: ...
    @property
    def offset(self) -> np.ndarray: ...
    def played(self, source: str) -> PlayedSampler: ...


@dataclass(eq=False)  # arrays have no single truth value: channels compare by identity
class PlayerChannel:
    """One channel: a glTF sampler (values as core.sampling.interpolation takes them: (n, k), or (3n, k)
    rows a_i, v_i, b_i for CUBICSPLINE/CUBICSLERP) and its map to the Blender property."""
    interpolation: str
    times: npt.NDArray[np.float64]   # (n,) seconds
    values: npt.NDArray[np.float64]  # (n, k) or (3n, k)
    path: str
    matrix: npt.NDArray[np.float64]  # (k, k): Blender value = matrix @ glTF value + offset
    offset: npt.NDArray[np.float64]  # (k,)

    def __post_init__(self) -> None:
        self.times = np.asarray(self.times, dtype=np.float64).reshape(-1)
        values = np.asarray(self.values, dtype=np.float64)
        self.values = values.reshape(len(values), -1)          # scalar outputs: (n,) -> (n, 1)
        width = self.values.shape[1]
        self.matrix = np.asarray(self.matrix, dtype=np.float64).reshape(width, width)
        self.offset = np.asarray(self.offset, dtype=np.float64).reshape(width)
        if self.interpolation not in INTERPOLATIONS:
            raise ValueError(f"unknown interpolation {self.interpolation!r}")
        n = len(self.times)
        rows = 3 * n if self.interpolation in CUBIC_INTERPOLATIONS else n
        if n == 0 or self.values.shape[0] != rows:
            raise ValueError(f"{self.interpolation} with {n} keys needs {rows} value rows, "
                             f"got {self.values.shape}")
        if (self.path == "rotation" or self.interpolation == CUBICSLERP) and (
                self.path != "rotation" or width != 4):
            raise ValueError(f"CUBICSLERP and rotations need (x, y, z, w) quaternions on the "
                             f"rotation path, got {self.path} with {width} components")

    @property
    def keys(self) -> npt.NDArray[np.float64]:
        return self.values[1::3] if self.interpolation in CUBIC_INTERPOLATIONS else self.values

    def mapped(self, matrix: npt.NDArray[np.float64] | None = None) -> npt.NDArray[np.float64]:
        """Map the sampler's values into Blender's space: (n, k) or (3n, k) as ``values``.

        Keys go through matrix and offset, tangents (derivatives) through the matrix only.
        ``matrix`` replaces the channel's (for rotations: the rotation without its scale, which
        normalization removes anyway) and then no offset is added."""
        values = self.values @ (self.matrix if matrix is None else matrix).T
        if matrix is None:
            values[slice(1, None, 3) if self.interpolation in CUBIC_INTERPOLATIONS else slice(None)] += self.offset
        return values

    def rotation_scale(self) -> float | None:
        """Return s when the map is s times a rotation of R^4 with no offset, else None."""
        gram = self.matrix.T @ self.matrix
        scale = np.trace(gram) / len(gram)
        if scale > 0.0 and not self.offset.any() and np.allclose(
                gram, scale * np.eye(len(gram)), rtol=0.0, atol=CONFORMAL_TOLERANCE * scale):
            return float(np.sqrt(scale))
        return None


class PosePlayer:
    """Every channel of a clip, set up once to be evaluated together in Blender's values.

    Each result equals the channel's ``Sampler.evaluate`` mapped through its matrix and offset, to
    rounding (the module docstring says how). ``at`` and ``flat_at`` serve the live preview, one
    time per frame change; ``over`` evaluates many times at once.

    Attributes
    ----------
    channels : list of PlayerChannel
        The channels, in the order every result lists them.

    Examples
    --------
    >>> import numpy as np
    >>> lift = PlayerChannel("LINEAR", [0.0, 1.0], [[0.0], [2.0]], "location", [[1.0]], [0.5])  # Blender: + 0.5
    >>> spin = PlayerChannel("LINEAR", [0.0, 2.0], [[0, 0, 0, 1], [0, 0, 1, 0]], "rotation", np.eye(4), np.zeros(4))
    >>> PosePlayer([lift, spin]).flat_at(0.5).round(6).tolist()  # 1 + 0.5; a quarter of 180 deg about Z
    [1.5, 0.0, 0.0, 0.382683, 0.92388]
    """

    def __init__(self, channels: Iterable[PlayerChannel]) -> None:
        self.channels = list(channels)
        batches = {}
        for index, channel in enumerate(self.channels):
            batches.setdefault(_batch(channel), []).append(index)
        for members in batches.values():  # CUBICSLERP first: their tangents extend the slerps
            members.sort(key=lambda i: self.channels[i].interpolation != CUBICSLERP)
        played = [i for batch, m in batches.items() if batch[0] != "CONSTANT" for i in m]
        self._lookup = Lookup([self.channels[i] for i in played]) if played else None
        self._groups, grouped, row, key = [], [], 0, 0
        for (kind, *_), members in batches.items():
            chosen = [self.channels[i] for i in members]
            self._groups.append(KINDS[kind](chosen, slice(row, row + len(members)), key + 1))
            if kind != "CONSTANT":
                row += len(members)
                key += sum(len(c.times) for c in chosen)
            grouped += members
        position = {channel: at for at, channel in enumerate(grouped)}
        self._order = [position[i] for i in range(len(self.channels))]
        # flat_at's layout: the groups' rows one after the other, then (unless that already is
        # the channels' order) one take into channel order; at() slices it per channel.
        widths = np.array([c.values.shape[1] for c in self.channels], dtype=np.intp)
        starts = np.zeros(len(grouped), dtype=np.intp)
        starts[grouped] = np.cumsum(widths[grouped]) - widths[grouped]
        order = np.concatenate([np.arange(w) + s for s, w in zip(starts, widths)] or [starts])
        self._flat_order = None if np.array_equal(order, np.arange(len(order))) else order
        ends = np.cumsum(widths).tolist()
        self._bounds = list(zip([0] + ends[:-1], ends))

    @classmethod
    def from_records(cls, records: Iterable[ChannelSource], source: str) -> Self:
        """Build a player from stored channel records (core.blender_model.clip_record.ChannelRecord).

        Parameters
        ----------
        records : iterable of ChannelSource
            The channels, each with its path, matrix and offset.
        source : str
            'EXTENSION' plays each record's sampler, 'FALLBACK' its fallback where it has one,
            else its sampler.

        Returns
        -------
        PosePlayer

        Raises
        ------
        ValueError
            For another ``source``, or a record whose sampler a PlayerChannel refuses.
        """
        if source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
        channels = []
        for record in records:
            sampler = record.played(source)
            channels.append(PlayerChannel(sampler.interpolation, sampler.times, sampler.values,
                                          record.path, record.matrix, record.offset))
        return cls(channels)

    def at(self, time: float) -> list[npt.NDArray[np.float64]]:
        """Evaluate every channel at one time, in Blender's values.

        Parameters
        ----------
        time : float
            Seconds, clamped to each channel's keys.

        Returns
        -------
        list of (k,) float64 arrays
            One per channel, views into ``flat_at(time)``.
        """
        flat = self.flat_at(time)
        return [flat[start:stop] for start, stop in self._bounds]

    def flat_at(self, time: float) -> npt.NDArray[np.float64]:
        """Evaluate every channel at one time into one flat array, channel after channel.

        The live preview calls this per frame: one array and no per-channel Python objects (each
        numpy call counts at ~100 channels).

        Parameters
        ----------
        time : float
            Seconds, clamped to each channel's keys.

        Returns
        -------
        (sum of k,) float64 array
            ``np.concatenate(at(time))``.
        """
        time = float(time)
        end, t = self._lookup.at(time) if self._lookup is not None else (None, None)
        parts = [group.play(end, t, time, 1).reshape(-1) for group in self._groups]
        grouped = parts[0] if len(parts) == 1 else np.concatenate(parts or [np.empty(0)])
        return grouped if self._flat_order is None else grouped[self._flat_order]

    def over(self, times: npt.ArrayLike) -> list[npt.NDArray[np.float64]]:
        """Evaluate every channel at many times, in Blender's values.

        Parameters
        ----------
        times : (T,) float array
            Seconds, clamped to each channel's keys.

        Returns
        -------
        list of (T, k) float64 arrays
            One per channel.
        """
        query = np.asarray(times, dtype=np.float64).reshape(-1)
        outs = [np.empty((g.count, len(query), g.width)) for g in self._groups]
        block = max(1, SAMPLES_PER_BLOCK // max(1, len(self.channels)))
        for start in range(0, len(query), block):
            q = query[start:start + block]
            end, t = self._lookup.over(q) if self._lookup is not None else (None, None)
            for group, out in zip(self._groups, outs):
                out[:, start:start + len(q)] = group.play(end, t, q, len(q))
        rows = [channel for out in outs for channel in out]
        return [rows[i] for i in self._order]


def _batch(channel):
    """Channels played by one kernel: same kind and width, and for slerps the same map form."""
    rotation = channel.path == "rotation"
    kind = "CONSTANT" if len(channel.times) == 1 else "SLERP" if rotation and \
        channel.interpolation in ("LINEAR", CUBICSLERP) else channel.interpolation
    premapped = kind != "SLERP" or channel.rotation_scale() is not None
    return kind, channel.values.shape[1], rotation, premapped
