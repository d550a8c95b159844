"""Tangents of CUBICSLERP segments fitted to a motion (core.fitting.sqlerp_fit's per-segment step).

Each segment k is slerp(p(t), s(t), 2t(1-t)) with p(t) = slerp(v_k, v_{k+1}, t) and
s(t) = slerp(b_k, a_{k+1}, t) (spec "CUBICSLERP Interpolation"), so its two tangents only shape the great
circle s(t). Given target samples at a few interior parameters, the points that s must pass
through follow in closed form, and fitting the tangents becomes fitting a uniformly parametrized
great circle to points: a weighted least-squares problem, solved for all segments at once.
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..sampling import quaternions as quat

# Interior probes per segment for the tangent fit, even in the segment parameter (or at the check
# times nearest those, core.fitting.sqlerp_fit._Check.probes); an odd count puts one at t = 1/2, where the
# tangents weigh most. A fixed count keeps the cost per segment fixed
# whatever the check density. On 1,000-key tracks 9 probes (27 equations for 6 unknowns) needed no
# more extra keys than 11, 13 or 17, and between them the dense error stayed within 1.13 times the
# probes' largest (measured at 64 samples per segment).
PROBES = 9
EVEN_PROBES = np.arange(1, PROBES + 1) / (PROBES + 1)  # their parameters, where the target allows
# A fitted segment whose probes miss by more than this share of the tolerance goes through Lawson
# rounds; below it, the dense check passes anyway (the dense error stays within 1.13 x the probes').
LAWSON_ABOVE = 0.8
# ... and by less than this share: Lawson rounds lower a segment's largest error by about 15 %, so
# one missing by more gets a key anyway (58 % of the first fits of 1,000-key tracks do).
LAWSON_BELOW = 2.5
# Lawson rounds (each probe's weight times its share of the segment's largest error, towards the
# smallest maximum); weights keep at least LAWSON_FLOOR so no probe is ever dropped.
LAWSON_ROUNDS = 2
LAWSON_FLOOR = 1e-3
PLANE_STEPS = 2  # subspace-iteration steps per great-circle fit
# sample(start, duration) -> (t, q): per segment (starts and durations (S,)), the probes'
# parameters (S, PROBES) and the target there (S, PROBES, 4) (Probes).
ProbeSampler = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
# A motion to follow: target(seconds) -> (T, 4) unit quaternions (x, y, z, w), any sign per row.
Target = Callable[[np.ndarray], np.ndarray]


def unit(q: npt.ArrayLike) -> np.ndarray:
    """(T, 4) target rows at unit length: the chord error measure assumes it. Most targets are unit
    already (every core evaluator normalizes), and checking costs less than dividing (measured:
    docs/manual/benchmarks.md, "Kernel choices")."""
    q = np.asarray(q, dtype=np.float64).reshape(-1, 4)
    norm2 = np.einsum("ij,ij->i", q, q)
    if len(q) and np.abs(norm2 - 1.0).max() <= 1e-15:
        return q
    return q / np.sqrt(norm2)[:, None]


class Probes:
    """Target samples at PROBES interior parameters of some segments, and the tangent fit there.

    With p(t) = slerp(v_k, v_{k+1}, t) and w = 2t(1-t), the segment is slerp(p(t), s(t), w) with
    s(t) = slerp(b_k, a_{k+1}, t). A probe's target q* is hit exactly by s* = slerp(p, q*, 1/w) (on
    the geodesic from p through q*, extrapolated), so fitting the tangents is fitting a great circle
    s(t), uniformly parametrized, to the points s* at the probes' t. An error of s moves q by about
    w times it, so the fit weighs probes by w^2 and rates them by w |s - s*|.

    ``sample(start, duration) -> (t, q)``: per segment, the probes' parameters (S, PROBES) and the
    target there (S, PROBES, 4) (uniform_probes(target), or a caller's that has the target at
    times of its own).
    """

    def __init__(self, times: np.ndarray, values: np.ndarray, index: np.ndarray, sample: ProbeSampler):
        start, duration = times[index], times[index + 1] - times[index]
        self.t, q = sample(start, duration)
        self.w = 2.0 * self.t * (1.0 - self.t)
        s = _extrapolate(_arc_points(values[index], values[index + 1], self.t), q, 1.0 / self.w)
        # One sign for all the points of a segment (their great circle is sign-free, the angles
        # along it are not): the side of the middle probe.
        s *= np.where(np.einsum("smi,si->sm", s, s[:, PROBES // 2]) < 0.0, -1.0, 1.0)[..., None]
        self.s = s

    def errors(self, b: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Largest probe error (degrees, first order in the error of s) per segment for (S, 4)
        tangents b, a."""
        fitted = _arc_points(b, a, self.t)
        fitted *= np.where(np.einsum("smi,smi->sm", fitted, self.s) < 0.0, -1.0, 1.0)[..., None]
        fitted -= self.s
        return _degrees(np.sqrt(np.einsum("smi,smi->sm", fitted, fitted)), self.w).max(axis=1)

    def fit(self, tolerance_deg: float,
            select: slice | np.ndarray = slice(None)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(S, 4) tangents b, a for the probes' segments (or those picked by ``select``) and their
        largest probe errors (S,): weighted least squares, then Lawson rounds for those still off
        by more than LAWSON_ABOVE and less than LAWSON_BELOW x tolerance."""
        s, t, w = self.s[select], self.t[select], self.w[select]
        weights = w ** 2
        b, a, plane, residual = _great_circle(s, t, weights, _initial_plane(s))
        errors = _degrees(residual, w)
        worst = errors.max(axis=1)
        for _ in range(LAWSON_ROUNDS):
            rows = np.flatnonzero((worst > LAWSON_ABOVE * tolerance_deg)
                                  & (worst < LAWSON_BELOW * tolerance_deg))
            if not len(rows):
                break
            weights[rows] *= errors[rows] / worst[rows, None] + LAWSON_FLOOR
            nb, na, nplane, residual = _great_circle(s[rows], t[rows], weights[rows], plane[rows],
                                                     steps=1)
            new_errors = _degrees(residual, w[rows])
            better = new_errors.max(axis=1) < worst[rows]
            keep = rows[better]
            b[keep], a[keep], plane[keep] = nb[better], na[better], nplane[better]
            errors[keep] = new_errors[better]
            worst[keep] = errors[keep].max(axis=1)
        return b, a, worst


def uniform_probes(target: Target) -> ProbeSampler:
    """A probe sampler for Probes: PROBES parameters evenly inside each segment, the target
    ``target(times) -> (T, 4)`` evaluated there."""
    def sample(start, duration):
        times = (start[:, None] + duration[:, None] * EVEN_PROBES).reshape(-1)
        t = np.tile(EVEN_PROBES, (len(start), 1))
        return t, unit(target(times)).reshape(len(start), PROBES, 4)
    return sample


def _degrees(residual, w):
    """A probe's error in degrees from its great-circle residual (Probes)."""
    return np.degrees(2.0 * w * residual)


def _arc_points(a, b, t):
    """slerp(a, b, t) for (S, 4) ends and (S, M) parameters: (S, M, 4).

    Each point is a combination of a and e (quaternions.slerp_basis), formed by a batched
    (M, 2) @ (2, 4) matmul: numpy is slow at broadcasting over a trailing axis of 4 (measured:
    docs/manual/benchmarks.md, "Kernel choices").
    """
    e, angle, tiny = quat.slerp_basis(a, b)
    phase = angle[:, None] * t
    weights = np.stack([np.cos(phase), np.sin(phase)], axis=2)
    if tiny.any():  # Appendix C: lerp and normalize (e = b' - a there)
        lerp = np.stack([np.ones_like(phase), t], axis=2)
        weights = np.where(tiny[:, None, None], lerp, weights)
    points = np.matmul(weights, np.stack([a, e], axis=1))
    if tiny.any():
        points[tiny] /= np.linalg.norm(points[tiny], axis=2)[..., None]
    return points


def _extrapolate(p, q, u):
    """slerp(p, q, u) along the shorter arc for (S, M, 4) p, q and (S, M) parameters u >= 1.

    With d = p.q, q' = sign(d) q and r = q' - |d| p (length sin of the angle phi), the point is
    p cos(u phi) + r sin(u phi) / |r|, formed as a combination of p and q. sin(u phi) / |r| tends
    to u / |d| as r -> 0 (no motion), where p itself is returned.
    """
    d = np.einsum("smi,smi->sm", p, q)
    sign, cos_phi = np.where(d < 0.0, -1.0, 1.0), np.abs(d)
    r = q * sign[..., None]
    r -= p * cos_phi[..., None]
    sin_phi = np.sqrt(np.einsum("smi,smi->sm", r, r))
    phase = np.arctan2(sin_phi, cos_phi) * u
    ratio = np.sin(phase) / np.where(sin_phi > 0.0, sin_phi, 1.0)
    ratio = np.where(sin_phi > 0.0, ratio, u / np.maximum(cos_phi, 1e-300))
    out = p * (np.cos(phase) - ratio * cos_phi)[..., None]
    out += q * (ratio * sign)[..., None]
    return out


def _initial_plane(s):
    """(S, 2, 4) orthonormal guess of each great circle's plane: the middle point and the chord
    direction from the first point to the last."""
    return orthonormal(s[:, PROBES // 2], s[:, -1] - s[:, 0])


def orthonormal(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Gram-Schmidt of (S, 4) pairs into (S, 2, 4); a degenerate y becomes any unit normal of x."""
    x = x / np.linalg.norm(x, axis=1)[:, None]
    y = y - x * np.einsum("si,si->s", x, y)[:, None]
    length = np.linalg.norm(y, axis=1)
    fallback = x[:, [1, 0, 3, 2]] * [-1.0, 1.0, -1.0, 1.0]  # orthogonal to x
    y = np.where((length > 1e-12)[:, None], y / np.maximum(length, 1e-300)[:, None], fallback)
    return np.stack([x, y], axis=1)


def _rows_dot(x, y):
    return np.einsum("sm,sm->s", x, y)


def circle_plane(s: np.ndarray, weights: np.ndarray, plane: np.ndarray, steps: int = PLANE_STEPS) -> np.ndarray:
    """(S, 2, 4) orthonormal plane of the points s (S, M, 4), weights (S, M): ``steps`` of subspace
    iteration on sum_j weights_j s_j s_j^T from the guess ``plane`` (S, 2, 4)."""
    scatter = np.matmul((s * weights[..., None]).transpose(0, 2, 1), s)
    for _ in range(steps):
        turned = np.matmul(plane, scatter)          # rows (C e_k)^T: the scatter is symmetric
        plane = orthonormal(turned[:, 0], turned[:, 1])
    return plane


def _great_circle(s, t, weights, plane, steps=PLANE_STEPS):
    """Weighted least-squares great circle, uniformly parametrized, through points s (S, M, 4) at
    parameters t (S, M).

    The plane is the dominant 2D subspace of sum_j weights_j s_j s_j^T (subspace iteration from
    a given plane: points close to a circle converge in a step or two; numpy's batched eigh costs
    about twice as much (measured: docs/manual/benchmarks.md, "Kernel choices")); the parameter
    is a least-squares line theta_0 + theta_1 t of the points' angles in the plane, measured from
    the middle point's direction so that they never wrap.
    Returns b, a (S, 4), the plane (S, 2, 4) and each point's residual (S, M), to first order:
    its distance off the plane and its angle along it.
    """
    plane = circle_plane(s, weights, plane, steps)
    # Axes: the middle point's projection, then its quarter turn within the plane.
    c = np.matmul(plane, s[:, PROBES // 2, :, None])[..., 0]
    plane = np.matmul(np.stack([c, c[:, ::-1] * [-1.0, 1.0]], axis=1), plane)
    plane /= np.linalg.norm(plane[:, :1], axis=2)[..., None]
    coords = np.matmul(s, plane.transpose(0, 2, 1))
    x, y = coords[..., 0], coords[..., 1]
    theta = np.arctan2(y, x)
    s0, s1, s2 = weights.sum(axis=1), _rows_dot(weights, t), _rows_dot(weights * t, t)
    y0, y1 = _rows_dot(weights, theta), _rows_dot(weights * theta, t)
    det = s0 * s2 - s1 * s1
    theta0 = (s2 * y0 - s1 * y1) / det
    theta1 = (s0 * y1 - s1 * y0) / det
    along = theta - theta0[:, None] - theta1[:, None] * t
    off = np.maximum(1.0 - x * x - y * y, 0.0)   # |s - its projection|^2, s unit
    residual = np.sqrt(off + along * along)
    ends = np.stack([theta0, theta0 + theta1], axis=1)
    b, a = np.matmul(np.stack([np.cos(ends), np.sin(ends)], axis=2), plane).transpose(1, 0, 2)
    return b, a, plane, residual
