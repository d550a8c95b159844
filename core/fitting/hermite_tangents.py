"""CUBICSPLINE tangents fitted to a rotation curve, segment by segment (core spec Hermite, normalized).

A glTF CUBICSPLINE rotation sampler plays normalize(Hermite(v_k, h b_k, h a_k+1, v_k+1)) between
its keys; each segment's two tangents are free (a key's in- and out-tangents are its own values),
so they are fitted per segment, all segments at once: the fallback of a CUBICSLERP curve
(core.fitting.fallback_fit) and a sampler fitted to the motion itself (core.fitting.spline_alone).
"""

from typing import Protocol

import numpy as np

# Interior probes per segment for the CUBICSPLINE tangent fit (fixed cost per segment): 8 unknowns,
# 27 equations; 16 probes gave the same errors (measured on 1,000-key tracks) at 1.3 times the cost.
PROBES = 9
# Reweighting rounds of the CUBICSPLINE fit: the first turns |perpendicular part of p| into the
# angle error (divided by |p|), the later ones are Lawson rounds towards the smallest maximum (15 %
# lower maximum error than plain least squares on the same tracks).
REWEIGHTS = 3


class HasEvaluate(Protocol):
    """A rotation curve: (T, 4) unit quaternions at any seconds (a CubicSlerpFit, a motion)."""
    def evaluate(self, times: np.ndarray) -> np.ndarray: ...


def hermite_rows(curve: HasEvaluate, times: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(3n, 4) interleaved CUBICSPLINE rows (a_i, v_i, b_i) through sign-continuous ``values``
    at ``times``, tangents fitted per segment to ``curve.evaluate(seconds)`` (_hermite_tangents);
    the first in-tangent and the last out-tangent are zeros (core spec)."""
    out_tangents, in_tangents = _hermite_tangents(curve, times, values)
    a = np.concatenate([np.zeros((1, 4)), in_tangents])
    b = np.concatenate([out_tangents, np.zeros((1, 4))])
    return np.stack([a, values, b], axis=1).reshape(-1, 4)


def _hermite_tangents(fit, times, values):
    """Per segment between consecutive ``times``: segment_tangents."""
    return segment_tangents(fit, times[:-1], times[1:], values[:-1], values[1:])


def segment_tangents(curve: HasEvaluate, starts: np.ndarray, ends: np.ndarray, first: np.ndarray,
                     last: np.ndarray, reweights: int = REWEIGHTS) -> tuple[np.ndarray, np.ndarray]:
    """(out-tangents b_k, in-tangents a_k+1), (S, 4) per second, of S segments from ``starts`` to
    ``ends`` between sign-continuous values ``first`` and ``last``: the Hermite tangents
    (h b_k, h a_{k+1} divided back by h) minimizing the part of p(t_j) perpendicular to the
    curve's q_j at PROBES interior parameters.

    p(t) = c(t) + h10(t) m0 + h11(t) m1 with c the value terms and m0 = h b_k, m1 = h a_{k+1}, so
    P_j p(t_j) (P_j = I - q_j q_j^T, sign-free) is linear in (m0, m1): an 8x8 normal system per
    segment, solved for all segments at once. Its residual over |p| is the sine of the angle
    error, hence the reweighting by 1 / |p|^2, then Lawson rounds towards the smallest maximum.
    """
    durations = np.asarray(ends, dtype=np.float64) - starts
    probe_times = (starts[:, None] + durations[:, None] * _PROBE_T).reshape(-1)
    q = curve.evaluate(probe_times).reshape(len(durations), PROBES, 4)
    c = _H00[:, None] * first[:, None] + _H01[:, None] * last[:, None]  # (S, M, 4)
    c_perp = _perpendicular(q, c)
    system = _NormalSystem(q, c_perp)
    weights, lawson = np.ones(q.shape[:2]), np.ones(q.shape[:2])
    best, best_error = np.empty(0), np.empty(0)  # set in round 0
    for round_ in range(reweights + 1):
        m = system.solve(weights)
        p = c + np.matmul(_BASIS, m)
        norm2 = np.einsum("smi,smi->sm", p, p)
        perp = _perpendicular(q, p)
        error = np.sqrt(np.einsum("smi,smi->sm", perp, perp) / norm2)
        worst = error.max(axis=1)
        if not round_:
            best, best_error = m, worst
        else:  # a Lawson round may overshoot on a segment: keep its best tangents
            better = worst < best_error
            best[better], best_error[better] = m[better], worst[better]
        if round_:
            lawson *= error / np.maximum(worst, 1e-300)[:, None] + 1e-3
        weights = lawson / norm2
    return best[:, 0] / durations[:, None], best[:, 1] / durations[:, None]


def _perpendicular(q, x):
    """x - q (q.x): the part of x perpendicular to unit q, (S, M, 4)."""
    return x - q * np.einsum("smi,smi->sm", q, x)[..., None]


class _NormalSystem:
    """The normal equations of the tangents m, (S, 2, 4), minimizing
    sum_j weights_j |P_j (c_j + basis_j . m)|^2 for any weights, from what stays the same
    between reweighting rounds: the outer products q_j q_j^T and P_j c_j."""

    def __init__(self, q: np.ndarray, c_perp: np.ndarray):
        self.outer = (q[..., :, None] * q[..., None, :]).reshape(*q.shape[:2], 16)  # (S, M, 16)
        self.c_perp = c_perp

    def solve(self, weights: np.ndarray) -> np.ndarray:
        """Blocks sum_j w_j basis_jk basis_jl P_j = (sum ...) I - sum_j (...) q_j q_j^T, the three
        (k, l) pairs in one batched matmul; the right-hand side -sum_j w_j basis_jk P_j c_j."""
        segments = len(weights)
        coef = weights[..., None] * _PAIRS                                     # (S, M, 3)
        gram = np.matmul(coef.transpose(0, 2, 1), self.outer).reshape(segments, 3, 4, 4)
        matrix = np.empty((segments, 8, 8))
        matrix[:, :4, :4], matrix[:, 4:, 4:] = -gram[:, 0], -gram[:, 2]
        matrix[:, :4, 4:] = matrix[:, 4:, :4] = -gram[:, 1]
        sums = coef.sum(axis=1)                                                # (S, 3)
        matrix[:, _DIAGONAL, _DIAGONAL] += sums[:, _DIAGONAL_PAIR]
        matrix[:, _UPPER, _UPPER + 4] += sums[:, 1:2]
        matrix[:, _UPPER + 4, _UPPER] += sums[:, 1:2]
        # A tiny ridge keeps a segment with all q_j equal (no motion: m along q is free) solvable.
        matrix[:, _DIAGONAL, _DIAGONAL] += 1e-12 * np.trace(matrix, axis1=1, axis2=2)[:, None]
        rhs = -np.matmul((weights[..., None] * _BASIS).transpose(0, 2, 1), self.c_perp).reshape(-1, 8)
        return solve_spd(matrix, rhs).reshape(-1, 2, 4)


def solve_spd(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """x with matrix x = rhs for (S, n, n) symmetric positive definite matrices: batched Cholesky
    and substitutions over the n rows. numpy's batched solve (a LAPACK call each) is as fast on
    one BLAS thread, faster on a few systems and several times slower on several threads, as
    Blender's numpy runs it (measured: docs/manual/benchmarks.md, "Kernel choices"); but its
    results change with the BLAS library's thread count, and a fit must write the same keys in a
    worker process (fit_workers: one thread) as in Blender's."""
    lower = np.linalg.cholesky(matrix)
    n = rhs.shape[1]
    y = np.empty_like(rhs)
    for i in range(n):  # a loop over the 8 unknowns, never over segments
        y[:, i] = (rhs[:, i] - np.einsum("sj,sj->s", lower[:, i, :i], y[:, :i])) / lower[:, i, i]
    x = np.empty_like(rhs)
    for i in reversed(range(n)):
        later = np.einsum("sj,sj->s", lower[:, i + 1:, i], x[:, i + 1:])
        x[:, i] = (y[:, i] - later) / lower[:, i, i]
    return x


# The probes' parameters, Hermite basis functions and the basis products of the normal blocks
# (h10 h10, h10 h11, h11 h11), the same for every segment.
_PROBE_T = np.arange(1, PROBES + 1) / (PROBES + 1)
_BASIS = np.stack([_PROBE_T**3 - 2 * _PROBE_T**2 + _PROBE_T, _PROBE_T**3 - _PROBE_T**2], axis=1)  # (M, 2)
_H00, _H01 = 2 * _PROBE_T**3 - 3 * _PROBE_T**2 + 1, -2 * _PROBE_T**3 + 3 * _PROBE_T**2
_PAIRS = np.stack([_BASIS[:, 0] ** 2, _BASIS[:, 0] * _BASIS[:, 1], _BASIS[:, 1] ** 2], axis=1)  # (M, 3)
_DIAGONAL = np.arange(8)
_DIAGONAL_PAIR = np.array([0, 0, 0, 0, 2, 2, 2, 2])  # h10 h10 on m0's rows, h11 h11 on m1's
_UPPER = np.arange(4)
