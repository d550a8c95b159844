"""The keys and per-segment tangents of a CUBICSLERP fit in progress (core.fitting.sqlerp_fit).

A segment's curve depends only on v_k, v_{k+1}, b_k and a_{k+1}, so the tangents are held per
segment (out-tangent b_k and in-tangent a_{k+1}) and each segment is fitted on its own: from the
C1 control points, kept where their probes follow the motion, else the least-squares tangents of
``sqlerp_tangents.Probes.fit``. A split inserts a key on the motion and refits both halves; the
rows a_k, v_k, b_k come out as a file writes them (``written``), which the dense check plays.
"""

import numpy as np

from ..gltf import as_stored
from ..sampling import quaternions as quat
from .sqlerp_tangents import Probes, unit as _unit

# Probe errors (first order in the error of s: within 0.5 % of the exact angle) above this share of
# the tolerance make a C1 segment refitted and a fitted segment go through Lawson rounds; below it,
# the dense check passes anyway (0.8 x 1.13 < 1).
SCREEN_AT = 0.8
MAX_ROUNDS = 64
# The probes' first-order errors have a floor of about 1e-6 degrees (the square root of float64
# rounding in 1 - x^2 - y^2): only errors above the tolerance by more than this split a segment
# before the dense check, which alone decides at tolerances near the floor.
PROBE_FLOOR_DEG = 1e-5


class Segments:
    """Keys (times, values) and per-segment tangents b (out of key k) and a (into key k + 1).

    Tangents start at the C1 control points; segments whose probes miss by more than SCREEN_AT x
    tolerance are fitted at once (the probes serve both, one target evaluation).
    """

    def __init__(self, times, values, target, tolerance_deg, written, sample):
        self.times, self.values = times, values
        self.target, self.tolerance_deg, self.written = target, tolerance_deg, written
        self.sample = sample  # sqlerp_tangents.Probes' target samples
        control = quat.control_points(times, values)
        self.b, self.a = control[:-1].copy(), control[1:].copy()
        self.parents = np.arange(len(times) - 1)  # segment index before the last split
        probes = Probes(times, values, self.parents, self.sample)
        self.probe_error = probes.errors(self.b, self.a)  # per segment, degrees
        self.refined = self.probe_error > SCREEN_AT * tolerance_deg
        if self.refined.any():
            fitted = probes.fit(tolerance_deg, self.refined)
            self.b[self.refined], self.a[self.refined], self.probe_error[self.refined] = fitted

    def refit(self, which):
        """Fitted tangents for the segments in the mask ``which``."""
        if which.any():
            probes = Probes(self.times, self.values, np.flatnonzero(which), self.sample)
            self.b[which], self.a[which], self.probe_error[which] = probes.fit(self.tolerance_deg)
            self.refined |= which

    def presplit(self, tolerance_deg, max_keys):
        """Cut the segments whose fitted probes already miss ``tolerance_deg`` (the dense check
        would fail them), before any dense check, which then runs once over everything and once
        more over the pieces of the few segments it finds instead of once per round of cutting. A
        segment missing by e is cut into about k = (e / tolerance)^(1/4) equal pieces (each misses
        by about e / k^4), one cut per round, a k-th off the start: thirds where halving twice
        would make quarters, fewer keys on turns near 100 degrees between keys (CHANGELOG)."""
        for _ in range(MAX_ROUNDS):
            doomed = self.probe_error > tolerance_deg + PROBE_FLOOR_DEG
            if not doomed.any() or len(self.times) + np.count_nonzero(doomed) > max_keys:
                return
            # k equal pieces miss by about error / k^4 each: the first is cut off now, the rest later.
            pieces = np.maximum(2.0, np.ceil((self.probe_error / tolerance_deg) ** 0.25))
            cuts = self.times[:-1] + (self.times[1:] - self.times[:-1]) / pieces
            self.split(doomed, cuts[doomed], np.zeros_like(doomed))

    def split(self, which, split_times, refit):
        """Insert a key (value = target there) in each segment of the mask ``which``, then fit both
        halves and the segments of the mask ``refit``; returns the mask of the changed segments."""
        if self.written is not None:
            which, split_times = self._float32_splits(which, split_times)
        index = np.flatnonzero(which)
        self.parents = np.repeat(np.arange(len(which)), np.where(which, 2, 1))
        if len(index):
            new_values = _unit(self.target(split_times))
            self.times = np.insert(self.times, index + 1, split_times)
            self.values = quat.make_continuous(np.insert(self.values, index + 1, new_values, 0))
            self.b, self.a = self.b[self.parents], self.a[self.parents]
            self.refined, self.probe_error = self.refined[self.parents], self.probe_error[self.parents]
        changed = (which | refit)[self.parents]
        self.refit(changed)
        return changed

    def _float32_splits(self, which, split_times):
        """Split times as written (float32: the check plays them), and the mask without the
        segments too short for a float32 time strictly inside (left as they are)."""
        rounded = as_stored(split_times, "FLOAT")
        index = np.flatnonzero(which)
        inside = (rounded > self.times[index]) & (rounded < self.times[index + 1])
        which = which.copy()
        which[index[~inside]] = False
        return which, rounded[inside]

    def fix_signs(self):
        """Conventions' 2nd and 3rd sign rules by flipping tangents (same rotations)."""
        self.b *= np.where(quat.dot(self.values[:-1], self.b) < 0.0, -1.0, 1.0)[:, None]
        self.a *= np.where(quat.dot(self.values[1:], self.a) < 0.0, -1.0, 1.0)[:, None]

    def key_rows(self) -> np.ndarray:
        """(n, 3, 4) rows a_k, v_k, b_k of every key, with a_1 = v_1 and b_n = v_n
        (spec "CUBICSLERP Interpolation"), as written."""
        return self._rows(np.arange(len(self.times)))

    def sampler_of(self, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(times, normalized interleaved rows) of a CUBICSLERP sampler of the given segments' end
        keys, as written. Each of those segments has the same keys and tangents there, so it plays
        the same numbers; segments bridging the gaps between them are never queried. Setting up
        only the few segments a round changed is what keeps the later rounds cheap."""
        keys = np.union1d(segments, segments + 1)
        return self.times[keys], quat.normalize(self._rows(keys).reshape(-1, 4))

    def _rows(self, keys):
        """(len(keys), 3, 4) rows a_k, v_k, b_k of the given keys, as written."""
        a = self.a[np.maximum(keys - 1, 0)]
        a[keys == 0] = self.values[0]
        b = self.b[np.minimum(keys, len(self.b) - 1)]
        b[keys == len(self.times) - 1] = self.values[-1]
        rows = np.stack([a, self.values[keys], b], axis=1)
        return rows if self.written is None else as_stored(rows, self.written)
