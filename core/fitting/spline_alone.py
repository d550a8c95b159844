"""A core-spec CUBICSPLINE rotation sampler fitted to the motion itself (no extension).

Where the CUBICSLERP sampler, its fallback and their JSON cost more bytes than a CUBICSPLINE
sampler that holds the same tolerance on its own, the channel is written that way: every viewer
then plays the motion within the tolerance, and the file needs no extension for it (issue 34:
the default file is never larger than the bundled exporter's). On Blender's Bezier keys it needs
about as many keys as CUBICSLERP (normalized Hermite arcs follow slow turns about as well as
squad), 16-bit values where its tangents (per second) lie in [-1, 1], floats where the rotation
turns faster than about two radians a second.

The keys start at the given times (the animator's keys, or a dense range's ends); each round,
every segment still over the tolerance is cut into even pieces, as many as its error says a
cubic needs, and only those pieces are fitted (segments are independent in CUBICSPLINE: a key's
in- and out-tangents are its own values, so a split changes nothing else). Then every other key
is dropped where the segment merged over it, with tangents of its own, still holds.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..gltf import as_stored
from ..sampling import chords
from ..sampling import quaternions as quat
from .hermite_tangents import segment_tangents
from .linear_reduction import LinearKeys

# Rounds of splits: a segment is cut in two at least each round, so 12 rounds reach 1/4096 of it.
MAX_ROUNDS = 12
# A segment over the tolerance is cut into SPLIT_MARGIN x (error / tolerance)^(1/4) even pieces:
# the error of a cubic falls with the fourth power of its length, and is not the same everywhere.
SPLIT_MARGIN = 1.0
# Rounds of thinning: each may drop every other inner key.
THINNING_ROUNDS = 2
# A segment turns at most this much (fallback_fit.MAX_MERGED_TURN_DEG's reason): over a longer
# turn the Hermite path in 4D passes near the origin, where normalizing it swings the rotation
# between the check times and a float32 player (three.js) parts from a float64 one.
MAX_TURN_DEG = 60.0
# The least norm of a segment's Hermite path before its tangents lose their parts along the
# values (_tangents): a float32 player normalizes a short vector with a large relative error.
MIN_NORM = 0.5
# Lawson rounds of the tangent fit (hermite_tangents.REWEIGHTS: 3 for fallbacks): measured on the
# benchmark rigs, 2 wrote the smallest files (a3 244,160 B against 247,296 with 3 and 252,080
# with 1; a5 112,624 against 113,092 and 113,560), a few per cent faster than 3.
REWEIGHTS = 2


@dataclass
class _Motion:
    """What hermite_tangents.segment_tangents fits to: the motion, unit quaternions at any seconds."""
    target: Callable[[np.ndarray], np.ndarray]

    def evaluate(self, times: np.ndarray) -> np.ndarray:
        # Blender's quaternion F-curves need not play unit quaternions (it normalizes them itself).
        return quat.normalize(self.target(np.asarray(times, dtype=np.float64)))


def fit_spline_alone(target: Callable[[np.ndarray], np.ndarray], key_times: np.ndarray,
                     check_times: np.ndarray, expected: np.ndarray, tolerance_deg: float,
                     precision: str, max_keys: int) -> tuple[LinearKeys, str]:
    """(keys, precision written) of a CUBICSPLINE sampler within ``tolerance_deg`` of
    ``expected`` (the motion ``target(seconds)`` at the sorted ``check_times``), as a file
    stores it: float32 times, rows 16-bit when ``precision`` is "SHORT" and every row lies in
    [-1, 1] (else floats). ``keys.values`` holds the (3n, 4) interleaved rows a_i, v_i, b_i.
    ValueError as soon as it needs more than ``max_keys`` keys."""
    times = as_stored(np.unique(np.asarray(key_times, dtype=np.float64)), "FLOAT")
    if len(times) > max_keys:
        raise ValueError(f"CUBICSPLINE keys within {tolerance_deg:g} deg need more than {max_keys} keys")
    spline = _Spline(_Motion(target), np.asarray(check_times, dtype=np.float64), quat.normalize(expected),
                     chords.chord2_limit(tolerance_deg), precision, times)
    for _ in range(MAX_ROUNDS):
        over = (spline.worst > spline.limit) | _long(spline.values[:-1], spline.values[1:])
        if not over.any():
            spline.thin()
            return LinearKeys(spline.times, spline.stored(), spline.error_deg()), spline.written
        spline.split(over)
        if len(spline.times) > max_keys:
            raise ValueError(f"CUBICSPLINE keys within {tolerance_deg:g} deg need more than {max_keys} keys")
    raise ValueError(f"CUBICSPLINE keys do not hold {tolerance_deg:g} deg after {MAX_ROUNDS} rounds")


class _Spline:
    """Keys, their sign-continuous values, and per segment k its out-tangent b_k (``out``), the
    in-tangent a_k+1 of its end (``into``) and its worst squared chord to the motion at the check
    times inside it (``worst``), as the file stores them (``written``)."""

    def __init__(self, motion: _Motion, check: np.ndarray, expected: np.ndarray, limit: float,
                 precision: str, times: np.ndarray):
        self.motion, self.check, self.expected, self.limit = motion, check, expected, limit
        self.precision, self.written = precision, precision
        self.times = times
        self.values = quat.make_continuous(motion.evaluate(times))
        segments = len(times) - 1
        self.out, self.into, self.worst = np.zeros((segments, 4)), np.zeros((segments, 4)), np.zeros(segments)
        self._fit(np.arange(segments))

    def stored(self) -> np.ndarray:
        """(3n, 4) interleaved rows as written: a_i, v_i, b_i; the first a and last b zeros."""
        a = np.concatenate([np.zeros((1, 4)), self.into])
        b = np.concatenate([self.out, np.zeros((1, 4))])
        return as_stored(np.stack([a, self.values, b], axis=1).reshape(-1, 4), self.written)

    def error_deg(self) -> float:
        return float(chords.chord2_to_degrees(self.worst.max(initial=0.0)))

    def _fit(self, segments: np.ndarray) -> None:
        """Tangents and errors of ``segments`` (indices), anew; every error again where the
        written precision changes with them."""
        if not len(segments):
            return
        t, v = self.times, self.values
        self.out[segments], self.into[segments] = _tangents(self.motion, t[segments], t[segments + 1],
                                                             v[segments], v[segments + 1])
        written = self._written()
        if written != self.written:
            self.written, segments = written, np.arange(len(self.worst))
        self.worst[segments] = self._errors(t[segments], t[segments + 1], v[segments], v[segments + 1],
                                            self.out[segments], self.into[segments])

    def _written(self) -> str:
        rows = max(np.abs(self.out).max(initial=0.0), np.abs(self.into).max(initial=0.0))
        return "SHORT" if self.precision == "SHORT" and rows <= 1.0 else "FLOAT"

    def _errors(self, starts, ends, first, last, out, into) -> np.ndarray:
        """Worst squared chord per segment between the spec's CUBICSPLINE (the rows as written)
        and the motion at the check times from each start to its end."""
        low = np.searchsorted(self.check, starts, side="left")
        counts = np.searchsorted(self.check, ends, side="right") - low
        owner = np.repeat(np.arange(len(starts)), counts)
        index = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(low, counts)
        h = (ends - starts)[owner, None]
        s = (self.check[index, None] - starts[owner, None]) / h
        first, out, last, into = (as_stored(x, self.written)[owner] for x in (first, out, last, into))
        p = _hermite(s, h, first, out, last, into)
        squared = chords.chord2(quat.normalize(p), self.expected[index])
        worst = np.zeros(len(starts))
        np.maximum.at(worst, owner, squared)
        return worst

    def split(self, over: np.ndarray) -> None:
        """Every segment in ``over`` cut into even pieces (_splits), the pieces fitted."""
        old_times, keep = self.times, ~over
        times = np.unique(np.concatenate([old_times, _splits(old_times, over, self.worst[over] / self.limit)]))
        values = self.motion.evaluate(times)
        at = np.searchsorted(times, old_times)
        values[at] = self.values  # the old keys keep their values; new ones join their sign
        values = quat.make_continuous(values)
        flip = np.where(np.einsum("ij,ij->i", values[at], self.values) < 0.0, -1.0, 1.0)
        segments = len(times) - 1
        out, into, worst = np.zeros((segments, 4)), np.zeros((segments, 4)), np.zeros(segments)
        kept = at[:-1][keep]  # an unsplit segment starts at its old key, still followed by its end
        out[kept], into[kept] = self.out[keep] * flip[:-1][keep, None], self.into[keep] * flip[:-1][keep, None]
        worst[kept] = self.worst[keep]
        self.times, self.values, self.out, self.into, self.worst = times, values, out, into, worst
        fresh = np.ones(segments, dtype=bool)
        fresh[kept] = False
        self._fit(np.flatnonzero(fresh))

    def thin(self) -> None:
        """THINNING_ROUNDS times, every other inner key dropped where the segment merged over it,
        with tangents of its own, still holds (the others keep theirs). Splits start from the
        animator's keys, and a cubic's error grows with the fourth power of its length: many of
        those keys are not needed (Blender's smooth handles)."""
        for _ in range(THINNING_ROUNDS):
            drop = np.arange(1, len(self.times) - 1, 2)
            if not len(drop):
                return
            t, v = self.times, self.values
            out, into = _tangents(self.motion, t[drop - 1], t[drop + 1], v[drop - 1], v[drop + 1])
            if max(np.abs(out).max(), np.abs(into).max()) > 1.0 and self.written == "SHORT":
                out, into = out[:0], into[:0]  # merged tangents beyond 16 bits: none merged
                drop = drop[:0]
            worst = self._errors(t[drop - 1], t[drop + 1], v[drop - 1], v[drop + 1], out, into)
            merged = (worst <= self.limit) & ~_long(v[drop - 1], v[drop + 1])
            if not merged.any():
                return
            gone = drop[merged]
            self.out[gone - 1], self.into[gone - 1], self.worst[gone - 1] = out[merged], into[merged], worst[merged]
            self.times, self.values = np.delete(t, gone), np.delete(v, gone, axis=0)
            self.out, self.into, self.worst = (np.delete(x, gone, axis=0) for x in (self.out, self.into, self.worst))


def _tangents(motion: _Motion, starts: np.ndarray, ends: np.ndarray, first: np.ndarray,
              last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """hermite_tangents.segment_tangents; in a segment whose Hermite path comes nearer the origin
    than MIN_NORM, without their parts along their keys' values. A unit curve's tangent is
    perpendicular to it; the fit leaves the part along it nearly free (the normalized path barely
    turns with it), which pays off at fine tolerances (the (a1) rig: 170 keys, 328 without it) but
    on coarse fits grew to 23 times the value and took the path near the origin, where a float32
    player (three.js) drifted 1.3e-4 from a float64 one."""
    out, into = segment_tangents(motion, starts, ends, first, last, REWEIGHTS)
    s = np.linspace(0.0, 1.0, 11)[1:-1, None, None]
    p = _hermite(s, (ends - starts)[None, :, None], first, out, last, into)
    low = np.sqrt(np.einsum("ksi,ksi->ks", p, p)).min(axis=0) < MIN_NORM
    out[low] -= np.einsum("ij,ij->i", out[low], first[low])[:, None] * first[low]
    into[low] -= np.einsum("ij,ij->i", into[low], last[low])[:, None] * last[low]
    return out, into


def _hermite(s: np.ndarray, h: np.ndarray, first: np.ndarray, out: np.ndarray, last: np.ndarray,
             into: np.ndarray) -> np.ndarray:
    """The core spec's CUBICSPLINE point before normalizing, at parameters ``s`` of segments of
    ``h`` seconds (arrays that broadcast): its values and per-second tangents b_k, a_k+1."""
    s2, s3 = s * s, s * s * s
    return ((2 * s3 - 3 * s2 + 1) * first + (s3 - 2 * s2 + s) * h * out
            + (-2 * s3 + 3 * s2) * last + (s3 - s2) * h * into)


def _long(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """Whether each segment between sign-continuous keys turns more than MAX_TURN_DEG."""
    return np.einsum("ij,ij->i", first, last) < np.cos(np.radians(MAX_TURN_DEG) / 2.0)


def _splits(times: np.ndarray, over: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """float32 times cutting each segment in ``over`` into even pieces: as many as its error
    (``ratio``: squared chords over the limit's, so the angle ratio squared) says a cubic needs,
    whose error falls with the fourth power of a piece's length, at least two."""
    pieces = np.maximum(np.ceil(SPLIT_MARGIN * np.maximum(ratio, 0.0) ** (1.0 / 8.0)), 2).astype(np.intp)
    start = np.repeat(times[:-1][over], pieces - 1)
    length = np.repeat(np.diff(times)[over], pieces - 1)
    rank = np.arange(len(start)) - np.repeat(np.cumsum(pieces - 1) - (pieces - 1), pieces - 1) + 1
    return as_stored(start + length * rank / np.repeat(pieces, pieces - 1), "FLOAT")
