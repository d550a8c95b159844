"""A core-spec CUBICSPLINE rotation sampler fitted to the motion itself (no extension).

Where the CUBICSLERP sampler, its fallback and their JSON cost more bytes than a CUBICSPLINE
sampler that holds the same tolerance on its own, the channel is written that way: every viewer
then plays the motion within the tolerance, and the file needs no extension for it (issue 34:
the default file is never larger than the bundled exporter's). On Blender's Bezier keys it needs
about as many keys as CUBICSLERP (normalized Hermite arcs follow slow turns about as well as
squad), 16-bit values where its tangents (per second) lie in [-1, 1], floats where the rotation
turns faster than about two radians a second.

The keys start at the CUBICSLERP fit's times (which hold the tolerance with squad); each round,
every segment still over the tolerance is split at its middle (a cubic's error falls with the
fourth power of its length), and its tangents are fitted again. Segments are independent in
CUBICSPLINE (a key's in- and out-tangents are its own values), so a split changes nothing else.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..gltf import as_stored
from ..sampling import Evaluator
from ..sampling import quaternions as quat
from .hermite_tangents import hermite_rows
from .linear_reduction import LinearKeys

# Rounds of splits: a segment is cut in two at least each round, so 12 rounds reach 1/4096 of it.
MAX_ROUNDS = 12
# A segment over the tolerance is cut into SPLIT_MARGIN x (error / tolerance)^(1/4) even pieces:
# the error of a cubic falls with the fourth power of its length, and is not the same everywhere.
SPLIT_MARGIN = 1.0
# Rounds of _thinned: each may drop every other inner key.
THINNING_ROUNDS = 2


@dataclass
class _Motion:
    """What hermite_tangents.hermite_rows fits to: the motion, unit quaternions at any seconds."""
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
    fit = _Fit(_Motion(target), check_times, quat.normalize(expected), quat.chord2_limit(tolerance_deg), precision)
    for _ in range(MAX_ROUNDS):
        if len(times) > max_keys:
            raise ValueError(f"CUBICSPLINE keys within {tolerance_deg:g} deg need more than {max_keys} keys")
        stored, written, worst = fit(times)
        over = worst > fit.limit
        if not over.any():
            return _thinned(fit, times, stored, written, worst)
        times = np.unique(np.concatenate([times, _splits(times, over, worst[over] / fit.limit)]))
    raise ValueError(f"CUBICSPLINE keys do not hold {tolerance_deg:g} deg after {MAX_ROUNDS} rounds")


@dataclass
class _Fit:
    """The sampler at given key times: its rows as written and each segment's worst squared chord
    to the motion at the check times."""
    motion: _Motion
    check_times: np.ndarray
    expected: np.ndarray
    limit: float
    precision: str

    def __call__(self, times: np.ndarray) -> tuple[np.ndarray, str, np.ndarray]:
        rows = hermite_rows(self.motion, times, quat.make_continuous(self.motion.evaluate(times)))
        written = "SHORT" if self.precision == "SHORT" and np.abs(rows).max() <= 1.0 else "FLOAT"
        stored = as_stored(rows, written)
        played = Evaluator("CUBICSPLINE", times, stored, rotation=True)(self.check_times)
        chords = quat.chord2(played, self.expected)
        segment = np.clip(np.searchsorted(times, self.check_times, side="right") - 1, 0, len(times) - 2)
        worst = np.zeros(len(times) - 1)
        np.maximum.at(worst, segment, chords)
        return stored, written, worst


def _thinned(fit: _Fit, times: np.ndarray, stored: np.ndarray, written: str,
             worst: np.ndarray) -> tuple[LinearKeys, str]:
    """The keys that hold, fewer: THINNING_ROUNDS times, every other inner key is dropped where
    the segment merged over it, with tangents of its own, still holds (segments are independent:
    the others keep theirs). Splits start from the animator's keys, and a cubic's error grows with
    the fourth power of its length: many of those keys are not needed (Blender's smooth handles)."""
    for _ in range(THINNING_ROUNDS):
        drop = np.arange(1, len(times) - 1, 2)
        if not len(drop):
            break
        trial = np.delete(times, drop)
        _, _, merged = fit(trial)
        dropped = drop[merged[np.searchsorted(trial, times[drop], side="right") - 1] <= fit.limit]
        if not len(dropped):
            break
        thinner = np.delete(times, dropped)
        again = fit(thinner)
        if again[2].max() > fit.limit:  # the precision changed with the merged tangents
            break
        times, (stored, written, worst) = thinner, again
    error = float(quat.chord2_to_degrees(worst.max(initial=0.0)))
    return LinearKeys(times, stored, error), written


def _splits(times: np.ndarray, over: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """float32 times cutting each segment in ``over`` into even pieces: as many as its error
    (``ratio``: squared chords over the limit's, so the angle ratio squared) says a cubic needs,
    whose error falls with the fourth power of a piece's length, at least two."""
    pieces = np.maximum(np.ceil(SPLIT_MARGIN * ratio ** (1.0 / 8.0)), 2).astype(np.intp)
    start = np.repeat(times[:-1][over], pieces - 1)
    length = np.repeat(np.diff(times)[over], pieces - 1)
    rank = np.arange(len(start)) - np.repeat(np.cumsum(pieces - 1) - (pieces - 1), pieces - 1) + 1
    return as_stored(start + length * rank / np.repeat(pieces, pieces - 1), "FLOAT")
