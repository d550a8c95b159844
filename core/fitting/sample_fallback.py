"""The LINEAR fallback of the project's sample (tools/make_sample.py): slerp keys that follow a
rotation curve within a tolerance, the animator's keys kept, segments split where a probe misses.

Only the sample is made this way (spec "Channel forms": a fallback stays within the user's tolerance of
the CUBICSLERP curve); exports and the converter fit theirs with core.fitting.rotation_export and
core.fitting.fallback_fit.
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..sampling import evaluate
from ..sampling import angle_between, make_continuous

PROBES_PER_SEGMENT = 16
MAX_ROUNDS = 24


def linear_rotation_keys(curve: Callable[[np.ndarray], np.ndarray], key_times: npt.ArrayLike, tolerance_deg: float,
                         probes: int = PROBES_PER_SEGMENT) -> tuple[np.ndarray, np.ndarray]:
    """LINEAR (slerp) keys that follow ``curve`` within ``tolerance_deg`` degrees.

    ``curve(times) -> (T, 4)`` is the motion to follow; ``key_times`` are kept (the animator's
    keys). Segments whose densest probe misses by more than the tolerance are split at their
    midpoint, all such segments at once per round, so the work is vectorized per round.
    Returns (times, values) with signs made continuous (every slerp takes the short way).
    """
    times = np.unique(np.asarray(key_times, dtype=np.float64))
    fractions = np.arange(1, probes) / probes
    for _ in range(MAX_ROUNDS):
        values = make_continuous(curve(times))
        probe_times = (times[:-1, None] + np.diff(times)[:, None] * fractions).ravel()
        linear = evaluate("LINEAR", times, values, probe_times, rotation=True)
        error = angle_between(linear, curve(probe_times)).reshape(len(times) - 1, -1).max(axis=1)
        split = error > tolerance_deg
        if not split.any():
            break
        midpoints = 0.5 * (times[:-1][split] + times[1:][split])
        times = np.sort(np.concatenate([times, midpoints]))
    return times, make_continuous(curve(times))
