"""Where a CUBICSLERP curve jumps (spec "Where the curve is discontinuous": "The curve can jump").

Segment k plays slerp(p(t), s(t), 2t(1-t)) with p(t) = slerp(v_k, v_k+1, t) and s(t) =
slerp(b_k, a_k+1, t). Both inner slerps are continuous in t (their short path is chosen once, from
their end keys), so d(t) = p(t) · s(t) is too; the outer slerp takes the short path, so where d
changes sign inside a segment it turns the other way from one instant to the next and the curve
jumps (the blend weight 2t(1-t) is positive inside). The spec's sign rules for writers make d >= 0
at both ends of every segment, not inside it; files from other writers need not even do that.

``jump_times`` samples d at SAMPLES per segment and bisects every sign change to float64
resolution; two sign changes closer than a segment / SAMPLES (a jump and its way back within
1/64 of a segment) may go unseen. ``brackets`` gives the key times an importer sets either side:
Blender plays a CONSTANT segment between them, so only the instants inside that 0.02-frame gap
on the far side of the jump play the near side's rotation.
"""

import numpy as np
import numpy.typing as npt

from . import quaternions as quat

SAMPLES = 64
BISECTIONS = 60  # halvings of a sample interval: below float64 resolution of any key time
# An importer's keys either side of a jump are this many frames apart: Blender merges keys closer
# than 0.01 frames (its key search threshold; measured: keys 0.0002 frames apart became one).
GAP_FRAMES = 0.02


def jump_times(times: npt.ArrayLike, values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Find the times where a CUBICSLERP curve jumps (spec "Where the curve is discontinuous").

    d = p · s is sampled SAMPLES times per segment and every sign change is bisected to float64
    resolution; two sign changes within 1/SAMPLES of a segment of each other may go unseen.

    Parameters
    ----------
    times : (n,) float array
        Key times in seconds, strictly increasing.
    values : (3n, 4) float array
        Rows (a_i, v_i, b_i) per key, interleaved: quaternions (x, y, z, w), normalized here.

    Returns
    -------
    (J,) float64 array
        The jump times in seconds, sorted; empty when the curve is continuous or has one key.

    Examples
    --------
    >>> import numpy as np
    >>> z = lambda degrees: [0.0, 0.0, np.sin(np.radians(degrees) / 2), np.cos(np.radians(degrees) / 2)]
    >>> rows = [z(0), z(0), z(120), z(240), z(0), z(0)]  # p(t) = 1; s(t) turns 120 to 240 deg about Z
    >>> jump_times([0.0, 2.0], rows).round(6).tolist()  # p . s = cos(60 + 60 t/2 deg) = 0 at t/2 = 1/2
    [1.0]
    """
    times = np.asarray(times, dtype=np.float64)
    found = _crossings(times, values)
    if found is None:
        return np.zeros(0)
    inner, segment, low, high, low_negative = found
    for _ in range(BISECTIONS):
        middle = 0.5 * (low + high)
        same = np.signbit(inner(segment, middle)) == low_negative
        low, high = np.where(same, middle, low), np.where(same, high, middle)
    span = times[segment + 1] - times[segment]
    return np.sort(times[segment] + span * 0.5 * (low + high))


def jumping_segments(times: npt.ArrayLike, values: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Tell which segments of a CUBICSLERP curve jump, as ``jump_times`` finds them.

    What a writer checks (spec "Where the curve is discontinuous": p . s keeps its sign across
    every segment it writes).

    Parameters
    ----------
    times : (n,) float array
        Key times in seconds, strictly increasing.
    values : (3n, 4) float array
        Rows (a_i, v_i, b_i) per key, interleaved: quaternions (x, y, z, w), normalized here.

    Returns
    -------
    (n - 1,) bool array
        Whether the curve jumps inside each segment (empty for one key).

    Examples
    --------
    >>> import numpy as np
    >>> z = lambda degrees: [0.0, 0.0, np.sin(np.radians(degrees) / 2), np.cos(np.radians(degrees) / 2)]
    >>> rows = [z(0), z(0), z(120), z(240), z(0), z(0), z(0), z(0), z(0)]  # as jump_times's, then still
    >>> jumping_segments([0.0, 2.0, 3.0], rows).tolist()
    [True, False]
    """
    times = np.asarray(times, dtype=np.float64)
    jumping = np.zeros(max(len(times) - 1, 0), dtype=bool)
    found = _crossings(times, values)
    if found is not None:
        jumping[found[1]] = True
    return jumping


def _crossings(times, values):
    """Where d changes sign between two of its SAMPLES per segment: (d, the crossing's segment,
    the ends of its sample interval, whether d is negative at the first), or None for none."""
    if len(times) < 2:
        return None
    rows = quat.normalize(np.asarray(values, dtype=np.float64)).reshape(len(times), 3, 4)
    inner = _InnerDot(rows[:-1, 1], rows[1:, 1], rows[:-1, 2], rows[1:, 0])
    segments = np.flatnonzero(inner.may_turn())  # elsewhere d >= 0 throughout: no jump
    if not len(segments):
        return None
    u = np.arange(SAMPLES + 1) / SAMPLES
    d = inner(segments[:, None], u[None, :])
    row, start = np.nonzero(np.signbit(d[:, :-1]) != np.signbit(d[:, 1:]))
    if not len(row):
        return None
    return inner, segments[row], u[start], u[start + 1], np.signbit(d[row, start])


class _InnerDot:
    """d(t) = p(t) · s(t) per segment in closed form: with each inner slerp written as
    alpha(t) x + beta(t) y (its second key on the short side, as the spec's slerp takes it),
    d is a sum of four scalar products of the keys, weighted by the slerps' coefficients, which
    are >= 0 on [0, 1]. Only signs matter, so the slerps' common positive divisor is left out."""

    def __init__(self, v0, v1, b0, a1):
        v1 = v1 * np.where(quat.dot(v0, v1) < 0.0, -1.0, 1.0)[:, None]
        a1 = a1 * np.where(quat.dot(b0, a1) < 0.0, -1.0, 1.0)[:, None]
        self.dots = np.stack([quat.dot(v0, b0), quat.dot(v0, a1), quat.dot(v1, b0), quat.dot(v1, a1)], axis=1)
        self.angles = np.stack([np.arccos(np.clip(quat.dot(v0, v1), -1.0, 1.0)),
                                np.arccos(np.clip(quat.dot(b0, a1), -1.0, 1.0))], axis=1)

    def may_turn(self):
        """Per segment: whether d can be negative inside (one of the four products is)."""
        return (self.dots < 0.0).any(axis=1)

    def __call__(self, segments, t):
        p0, p1 = _weights(self.angles[segments, 0], t)
        s0, s1 = _weights(self.angles[segments, 1], t)
        dots = self.dots[segments]
        return p0 * s0 * dots[..., 0] + p0 * s1 * dots[..., 1] + p1 * s0 * dots[..., 2] + p1 * s1 * dots[..., 3]


def _weights(angle, t):
    """(alpha, beta) of a slerp over ``angle`` at t, times sin(angle) (lerp's where it is tiny)."""
    tiny = angle < 1e-6
    return (np.where(tiny, 1.0 - t, np.sin((1.0 - t) * angle)), np.where(tiny, t, np.sin(t * angle)))


def brackets(jumps: npt.ArrayLike, frames_per_second: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Place an importer's two key times either side of each jump, GAP_FRAMES apart around it.

    Blender plays a CONSTANT segment between the two keys. Where a whole or half frame lies
    within the gap, the gap starts or ends on it, so that every frame and half frame plays the
    side of the jump it is on.

    Parameters
    ----------
    jumps : (J,) float array
        Jump times in seconds (``jump_times``).
    frames_per_second : float
        The scene's frame rate.

    Returns
    -------
    before, after : (J,) float64 arrays
        The key times in seconds before and after each jump.

    Examples
    --------
    >>> before, after = brackets([2.3, 10.005, 9.995], frames_per_second=1.0)  # 1 fps: frames = seconds
    >>> before.round(6).tolist(), after.round(6).tolist()  # +-0.01, then starting, then ending on frame 10
    ([2.29, 10.0, 9.98], [2.31, 10.02, 10.0])
    """
    frames = np.asarray(jumps, dtype=np.float64) * frames_per_second
    half = 0.5 * GAP_FRAMES
    below, above = np.floor(2.0 * frames) / 2.0, np.ceil(2.0 * frames) / 2.0
    before, after = frames - half, frames + half
    start_on = (below > before) & (below < frames)
    end_on = ~start_on & (above < after) & (above > frames)
    before = np.where(start_on, below, np.where(end_on, above - GAP_FRAMES, before))
    after = np.where(start_on, below + GAP_FRAMES, np.where(end_on, above, after))
    return before / frames_per_second, after / frames_per_second
