"""Derivatives of glTF rotation curves, for the keys and handles that keyframes.py writes: the
arc of a slerp, one-sided derivatives at the ends of a segment (finite differences of any
sampler, closed form for CUBICSLERP) and central ones inside it.
"""

import numpy as np

from ..sampling import Sampler
from ..sampling import quaternions as quat

# Finite-difference step as a fraction of the segment: the 4th-order stencils below then err by
# about 1e-12 (truncation ~STEP**4, rounding ~1e-16 / STEP), far below any angle we resolve.
STEP = 1e-3
_FORWARD = np.array([-25.0, 48.0, -36.0, 16.0, -3.0]) / 12.0  # f'(0) d from f(0), f(d), ... f(4d)
_CENTRAL = np.array([1.0, -8.0, 8.0, -1.0]) / 12.0  # f'(0) d from f(-2d), f(-d), f(d), f(2d)


def arc_slope(a: np.ndarray, b: np.ndarray, angle: np.ndarray, s: float | np.ndarray) -> np.ndarray:
    """d/ds of slerp(a, b, s) along the arc (a.b >= 0): angle·(cos(s·angle)·b − cos((1−s)·angle)·a)
    / sin(angle); the chord b − a for arcs too short to divide by sin."""
    sin = np.sin(angle)
    safe = sin > 1e-12
    scale = np.where(safe, angle / np.where(safe, sin, 1.0), 1.0)[:, None]
    wa = np.where(safe, np.cos((1.0 - s) * angle), 1.0)[:, None]
    wb = np.where(safe, np.cos(s * angle), 1.0)[:, None]
    return scale * (wb * b - wa * a)


def end_slopes(sampler: Sampler, start: np.ndarray, end: np.ndarray, at_start: np.ndarray,
               at_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One-sided derivatives (per second) of the curve inside each segment [start, end]: leaving
    ``at_start`` and arriving at ``at_end``, each in the sign of that key. The curve's samples
    take whichever sign the evaluator gives, so each is first aligned with its own key."""
    delta = STEP * (end - start)
    steps = np.arange(1, 5) * delta[:, None]
    query = np.concatenate([(start[:, None] + steps).ravel(), (end[:, None] - steps).ravel()])
    samples = sampler.evaluate(query).reshape(2, len(start), 4, -1)
    first, last = quat.normalize(at_start), quat.normalize(at_end)
    forward = align(samples[0], first[:, None])
    backward = align(samples[1], last[:, None])
    leaving = _FORWARD[0] * first + np.einsum("j,sjc->sc", _FORWARD[1:], forward)
    arriving = _FORWARD[0] * last + np.einsum("j,sjc->sc", _FORWARD[1:], backward)
    return leaving / delta[:, None], -arriving / delta[:, None]


def sqlerp_end_slopes(b0: np.ndarray, a1: np.ndarray, v0: np.ndarray, v1: np.ndarray,
                      duration: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """end_slopes of CUBICSLERP segments in closed form. With p(u) = slerp(v0, v1, u),
    s(u) = slerp(b0, a1, u) and h = 2u(1 - u), q = slerp(p, s, h) has h = 0 at both ends, so
    q'(0) = p'(0) + 2 d/dh slerp(v0, b0, h) at 0 and q'(1) = p'(1) - 2 d/dh slerp(v1, a1, h) at
    0, each slerp taking the shortest path as the evaluator does (Appendix C, sign(0) = +1)."""
    v1_ = v1 * _sign(v0, v1)               # p(1): v1 on v0's side
    a1_ = a1 * _sign(b0, a1)               # s(1): a1 on b0's side
    leaving = _slope(v0, v1_, 0.0) + 2.0 * _slope(v0, b0 * _sign(v0, b0), 0.0)
    arriving = _slope(v0, v1_, 1.0) - 2.0 * _slope(v1_, a1_ * _sign(v1_, a1_), 0.0)
    arriving *= _sign(v0, v1)              # in the sign of v1 as given
    return leaving / duration[:, None], arriving / duration[:, None]


def _sign(a, b):
    return np.where(quat.dot(a, b) < 0.0, -1.0, 1.0)[:, None]


def _slope(a, b, s):
    """d/ds slerp(a, b, s) for unit a, b with a.b >= 0 (arc_slope with the arc's angle)."""
    angle = 2.0 * np.arctan2(np.linalg.norm(b - a, axis=1), np.linalg.norm(b + a, axis=1))
    return arc_slope(a, b, angle, s)


def value_and_slope(sampler: Sampler, middle: np.ndarray, duration: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The curve's value at each time in ``middle`` and its central derivative there (per
    second), in the value's sign; one evaluation for both."""
    delta = STEP * duration
    steps = np.array([0.0, -2.0, -1.0, 1.0, 2.0]) * delta[:, None]
    samples = sampler.evaluate((middle[:, None] + steps).ravel()).reshape(len(middle), 5, -1)
    value = samples[:, 0]
    around = align(samples[:, 1:], value[:, None])
    return value, np.einsum("j,sjc->sc", _CENTRAL, around) / delta[:, None]


def align(q: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """q with each quaternion's sign chosen so that its dot with ``reference`` is >= 0."""
    return np.where((quat.dot(q, reference) < 0.0)[..., None], -q, q)
