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

# Rounds of splits: a segment halved each round, so 12 rounds reach 1/4096 of the first ones.
MAX_ROUNDS = 12


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
    motion = _Motion(target)
    expected = quat.normalize(expected)
    limit = quat.chord2_limit(tolerance_deg)
    for _ in range(MAX_ROUNDS):
        if len(times) > max_keys:
            raise ValueError(f"CUBICSPLINE keys within {tolerance_deg:g} deg need more than {max_keys} keys")
        rows = hermite_rows(motion, times, quat.make_continuous(motion.evaluate(times)))
        written = "SHORT" if precision == "SHORT" and np.abs(rows).max() <= 1.0 else "FLOAT"
        stored = as_stored(rows, written)
        played = Evaluator("CUBICSPLINE", times, stored, rotation=True)(check_times)
        chords = quat.chord2(played, expected)
        segment = np.clip(np.searchsorted(times, check_times, side="right") - 1, 0, len(times) - 2)
        worst = np.zeros(len(times) - 1)
        np.maximum.at(worst, segment, chords)
        over = worst > limit
        if not over.any():
            error = float(quat.chord2_to_degrees(worst.max(initial=0.0)))
            return LinearKeys(times, stored, error), written
        middles = as_stored((times[:-1][over] + times[1:][over]) / 2.0, "FLOAT")
        times = np.unique(np.concatenate([times, middles]))
    raise ValueError(f"CUBICSPLINE keys do not hold {tolerance_deg:g} deg after {MAX_ROUNDS} rounds")
