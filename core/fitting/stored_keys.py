"""Stored CUBICSLERP keys kept as they are: a clip imported with EXT_animation_sqlerp and not
edited since still plays its stored keys, so the export writes those again instead of new ones.

The stored rows are checked at the dense check times against the motion Blender plays, as a
reader reads them (float32 values, rows normalized). Kept keys are written as the spec asks:
values made sign-continuous and tangents put on the side of their key (rules 1 to 3 of
spec "Sign rules for writers": the same rotations), a_1 = v_1 and b_n = v_n
(spec "CUBICSLERP Interpolation"). Keys whose tangents break rule 4 (b_k . a_{k+1} >= 0) are
fitted anew instead, which adds a key in that segment.
"""

import numpy as np

from ..constants import CUBICSLERP
from ..gltf import as_stored
from ..sampling import evaluate
from ..sampling import chords
from ..sampling import quaternions as quat
from .sqlerp_fit import CubicSlerpFit


def kept_fit(stored: tuple[np.ndarray, np.ndarray] | None, check_times: np.ndarray, expected: np.ndarray,
             tolerance_deg: float) -> CubicSlerpFit | None:
    """Keep the stored CUBICSLERP keys where Blender still plays them within the tolerance.

    Parameters
    ----------
    stored : tuple ((n,) float array, (3n, 4) float array) or None
        (times, rows a_i, v_i, b_i) of the keys an import stored with the clip; None: none.
    check_times : (C,) float array
        Sorted seconds of the dense check.
    expected : (C, 4) float array
        The motion Blender plays at ``check_times``.
    tolerance_deg : float
        The bound at every check time, in degrees.

    Returns
    -------
    CubicSlerpFit or None
        The keys as float32 values with their dense check (what they play), or None when there
        are none, they are not a sampler (fewer than two increasing times from 0 on), they miss
        the tolerance (the clip was edited) or they break the 4th sign rule.
    """
    if stored is None:
        return None
    times, values = (as_stored(a, "FLOAT") for a in stored)
    if len(times) < 2 or np.any(np.diff(times) <= 0.0) or times[0] < 0.0:
        return None
    played = evaluate(CUBICSLERP, times, quat.normalize(values), check_times, rotation=True)
    error = chords.max_angle_deg(played, expected)
    if error > tolerance_deg:
        return None
    v = quat.make_continuous(values[1::3])
    a, b = _same_side(values[0::3], v), _same_side(values[2::3], v)
    a[0], b[-1] = v[0], v[-1]  # never used; written as spec "CUBICSLERP Interpolation" says
    if np.any(np.einsum("ij,ij->i", b[:-1], a[1:]) < 0.0):
        return None  # the 4th sign rule fails: fitted anew, with a split key
    return CubicSlerpFit(times, a, v, b, error, check_times, played)


def _same_side(q, v):
    """Tangents flipped to the side of their key (sign rules 2 and 3: the same rotations)."""
    return q * np.where(np.einsum("ij,ij->i", q, v) < 0.0, -1.0, 1.0)[:, None]
