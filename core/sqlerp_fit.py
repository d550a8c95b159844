"""Fitting CUBICSLERP keys (conventions sections 1, 2 and 4) to a rotation motion.

The animator's key times are kept and keys are added only where a segment cannot follow the motion
within the tolerance. A segment's curve depends only on v_k, v_{k+1}, b_k and a_{k+1}, so tangents
are stored per segment (out-tangent b_k and in-tangent a_{k+1}) and every segment is fitted on its
own, all segments of a round at once. Segments start from the C1 control points and keep them where
they already follow the motion; the others get the least-squares tangents of `_Probes.fit`. The
acceptance check is the spec's evaluator (core.interpolation) at the caller's dense check times.

Quaternion signs never change the curve this project's evaluator plays (every slerp takes the short
path), so the fit ignores them; each round then flips tangents to the conventions' sign rules, which
make evaluators that never flip play the same curve, and splits a segment whose tangents cannot
satisfy b_k . a_{k+1} >= 0.
"""

from dataclasses import dataclass

import numpy as np

from . import quaternions as quat
from .interpolation import Evaluator

# Interior probes per segment for the tangent fit, uniform in the segment parameter; an odd count
# puts one at t = 1/2, where the tangents weigh most. A fixed count keeps the cost per segment fixed
# whatever the check density. On 1,000-key tracks 9 probes (27 equations for 6 unknowns) needed no
# more extra keys than 11, 13 or 17, and between them the dense error stayed within 1.13 times the
# probes' largest (measured at 64 samples per segment).
PROBES = 9
# Probe errors (first order in the error of s: within 0.5 % of the exact angle) above this share of
# the tolerance make a C1 segment refitted and a fitted segment go through Lawson rounds; below it,
# the dense check passes anyway (0.8 x 1.13 < 1).
SCREEN_AT = 0.8
LAWSON_ABOVE = 0.8
# Lawson rounds (each probe's weight times its share of the segment's largest error, towards the
# smallest maximum); weights keep at least LAWSON_FLOOR so no probe is ever dropped.
LAWSON_ROUNDS = 4
LAWSON_FLOOR = 1e-3
PLANE_STEPS = 2  # subspace-iteration steps per great-circle fit
MAX_ROUNDS = 64


@dataclass(frozen=True)
class CubicSlerpFit:
    times: np.ndarray         # (n,) seconds, strictly increasing, n >= 2
    in_tangents: np.ndarray   # (n, 4) a_i, unit, (x, y, z, w)
    values: np.ndarray        # (n, 4) v_i
    out_tangents: np.ndarray  # (n, 4) b_i
    max_error_deg: float      # largest angle to the target over the check times

    def interleaved(self):
        """(3n, 4) sampler output rows a_1, v_1, b_1, a_2, ..."""
        return np.stack([self.in_tangents, self.values, self.out_tangents], axis=1).reshape(-1, 4)

    def evaluate(self, times):
        return Evaluator("CUBICSLERP", self.times, self.interleaved())(times)


def fit_cubicslerp(target, key_times, check_times, tolerance_deg=0.01, max_keys=None):
    """CUBICSLERP keys following ``target`` within ``tolerance_deg`` at every check time.

    ``target(times) -> (T, 4)`` unit quaternions (any sign per row). ``key_times`` are kept (sorted
    and deduplicated here; the first and last bound the curve); ``check_times`` outside them are
    ignored. Raises ValueError when the tolerance needs more than ``max_keys`` keys (default: the
    key times plus one per check time) or does not converge.
    """
    if not tolerance_deg > 0.0:
        raise ValueError(f"tolerance_deg must be positive, got {tolerance_deg!r}")
    times = np.unique(np.asarray(key_times, dtype=np.float64).reshape(-1))
    if len(times) < 2 or not np.isfinite(times).all():
        raise ValueError("fit_cubicslerp needs at least two distinct finite key times")
    check = _Check(target, check_times, times[0], times[-1], tolerance_deg)
    limit = len(times) + len(check.times) if max_keys is None else int(max_keys)
    curve = _Segments(times, quat.make_continuous(_unit(target(times))), target, tolerance_deg)
    dirty = np.ones(len(times) - 1, dtype=bool)
    for _ in range(MAX_ROUNDS):
        curve.fix_signs()
        over, at = check.errors(curve, dirty)
        unsigned = dirty & (quat.dot(curve.b, curve.a) < 0.0)  # 4th sign rule, after fix_signs
        if not (over.any() or unsigned.any()):
            return curve.result(check.max_error_deg())
        refit = over & ~curve.refined & ~unsigned  # C1 tangents get a fit before any new key
        split = (over | unsigned) & ~refit
        if len(curve.times) + np.count_nonzero(split) > limit:
            raise ValueError(f"fit_cubicslerp: following the target within {tolerance_deg} deg "
                             f"needs more than max_keys={limit} keys")
        middles = 0.5 * (curve.times[:-1] + curve.times[1:])
        dirty = curve.split(split, np.where(over, check.times[at], middles)[split], refit)
        check.forget(dirty, curve.parents)
    raise ValueError(f"fit_cubicslerp: no fit within {tolerance_deg} deg after {MAX_ROUNDS} "
                     "rounds of splitting (is the target continuous?)")


def _unit(q):
    """(T, 4) target rows at unit length: the chord error measure assumes it. Most targets are unit
    already (every core evaluator normalizes): checking costs a third of dividing."""
    q = np.asarray(q, dtype=np.float64).reshape(-1, 4)
    norm2 = np.einsum("ij,ij->i", q, q)
    if len(q) and np.abs(norm2 - 1.0).max() <= 1e-15:
        return q
    return q / np.sqrt(norm2)[:, None]


class _Segments:
    """Keys (times, values) and per-segment tangents b (out of key k) and a (into key k + 1).

    Tangents start at the C1 control points; segments whose probes miss by more than SCREEN_AT x
    tolerance are fitted at once (the probes serve both, one target evaluation).
    """

    def __init__(self, times, values, target, tolerance_deg):
        self.times, self.values = times, values
        self.target, self.tolerance_deg = target, tolerance_deg
        control = quat.control_points(times, values)
        self.b, self.a = control[:-1].copy(), control[1:].copy()
        self.parents = np.arange(len(times) - 1)  # segment index before the last split
        probes = _Probes(times, values, self.parents, target)
        self.refined = probes.errors(self.b, self.a) > SCREEN_AT * tolerance_deg
        if self.refined.any():
            self.b[self.refined], self.a[self.refined] = probes.fit(tolerance_deg, self.refined)

    def refit(self, which):
        """Fitted tangents for the segments in the mask ``which``."""
        if which.any():
            probes = _Probes(self.times, self.values, np.flatnonzero(which), self.target)
            self.b[which], self.a[which] = probes.fit(self.tolerance_deg)
            self.refined |= which

    def split(self, which, split_times, refit):
        """Insert a key (value = target there) in each segment of the mask ``which``, then fit both
        halves and the segments of the mask ``refit``; returns the mask of the changed segments."""
        index = np.flatnonzero(which)
        self.parents = np.repeat(np.arange(len(which)), np.where(which, 2, 1))
        if len(index):
            new_values = _unit(self.target(split_times))
            self.times = np.insert(self.times, index + 1, split_times)
            self.values = quat.make_continuous(np.insert(self.values, index + 1, new_values, 0))
            self.b, self.a = self.b[self.parents], self.a[self.parents]
            self.refined = self.refined[self.parents]
        changed = (which | refit)[self.parents]
        self.refit(changed)
        return changed

    def fix_signs(self):
        """Conventions' 2nd and 3rd sign rules by flipping tangents (same rotations)."""
        self.b *= np.where(quat.dot(self.values[:-1], self.b) < 0.0, -1.0, 1.0)[:, None]
        self.a *= np.where(quat.dot(self.values[1:], self.a) < 0.0, -1.0, 1.0)[:, None]

    def result(self, max_error_deg):
        """The keys, with a_1 = v_1 and b_n = v_n (conventions section 2)."""
        a = np.concatenate([self.values[:1], self.a])
        b = np.concatenate([self.b, self.values[-1:]])
        return CubicSlerpFit(self.times.copy(), a, self.values.copy(), b, max_error_deg)


class _Check:
    """The dense acceptance check: target at the check times, per-segment worst error.

    Check time c belongs to the segment k with t_k <= c < t_{k+1} (the last key to the last
    segment); at a key the curve and the target agree, so that choice costs nothing.
    """

    def __init__(self, target, check_times, first, last, tolerance_deg):
        t = np.asarray(check_times, dtype=np.float64).reshape(-1)
        t = t[(t >= first) & (t <= last)]
        if not (t[1:] > t[:-1]).all():  # the usual dense grid is sorted already: no sort then
            t = np.unique(t)
        self.times = t
        self.q = _unit(target(t)) if len(t) else np.zeros((0, 4))
        self.limit = _deg_to_chord2(tolerance_deg)
        self.worst = np.zeros(0)        # per segment, squared chord, valid where not dirty

    def errors(self, curve, dirty):
        """Per segment, whether it misses the tolerance (evaluating the ``dirty`` ones, the others
        keep their last result) and, where it does, the check index of its worst error."""
        count = len(curve.times) - 1
        if len(self.worst) != count:
            self.worst = np.zeros(count)
        at = np.zeros(count, dtype=np.intp)
        segments = np.flatnonzero(dirty)
        if len(segments):
            starts = np.searchsorted(self.times, curve.times[:-1], side="left")
            starts, ends = starts[segments], np.append(starts[1:], len(self.times))[segments]
            index, offsets = _ranges(starts, ends)
            played = _evaluator(curve, segments)(np.take(self.times, index))
            chord2 = _chord2(played, np.take(self.q, index, axis=0))
            self.worst[segments] = _group_max(chord2, offsets, ends - starts)
            over = self.worst[segments] > self.limit
            if over.any():
                at[segments[over]] = index[_argmax(chord2, offsets[over], (ends - starts)[over])]
        return self.worst > self.limit, at

    def forget(self, dirty, parents):
        """Keep the per-segment errors of the unchanged segments across a split."""
        self.worst = np.where(dirty, 0.0, self.worst[parents])

    def max_error_deg(self):
        return float(_chord2_to_deg(self.worst.max())) if len(self.worst) else 0.0


def _evaluator(curve, segments):
    """The spec's CUBICSLERP evaluator for the given segments of the curve: a sampler of their end
    keys. Each of those segments has the same keys and tangents there, so it plays the same
    numbers; segments bridging the gaps between them are never queried. Setting up only the few
    segments a round changed is what keeps the later rounds cheap."""
    fit = curve.result(0.0)
    keys = np.union1d(segments, segments + 1)
    return CubicSlerpFit(fit.times[keys], fit.in_tangents[keys], fit.values[keys],
                         fit.out_tangents[keys], 0.0).evaluate


def _ranges(starts, ends):
    """Concatenated aranges [starts[i], ends[i]) and where each begins in the result."""
    lengths = ends - starts
    offsets = np.cumsum(lengths) - lengths
    shift = np.repeat(starts - offsets, lengths)
    return np.arange(lengths.sum()) + shift, offsets


def _group_max(x, offsets, lengths):
    """Maximum of each group x[offsets[i]:offsets[i] + lengths[i]] (0 for an empty one)."""
    if not len(x):
        return np.zeros(len(offsets))
    worst = np.maximum.reduceat(x, np.minimum(offsets, len(x) - 1))
    return np.where(lengths > 0, worst, 0.0)


def _argmax(x, offsets, lengths):
    """Position in x of the maximum of each non-empty group (only the few failing segments')."""
    index, starts = _ranges(offsets, offsets + lengths)
    order = np.lexsort((-x[index], np.repeat(np.arange(len(offsets)), lengths)))
    return index[order[starts]]


def _chord2(p, q):
    """Squared chord |p - sign(p.q) q|^2 between unit quaternions. Unlike 1 - |p.q| it keeps full
    precision for tiny angles, and it grows with the rotation angle, so maxima are taken on it and
    converted once (rotation angle = 4 asin(chord / 2))."""
    d = q * np.where(np.einsum("ij,ij->i", p, q) < 0.0, -1.0, 1.0)[:, None]
    np.subtract(p, d, out=d)  # in place: a fresh array per operation costs more than the maths
    return np.einsum("ij,ij->i", d, d)


def _chord2_to_deg(chord2):
    return np.degrees(4.0 * np.arcsin(np.minimum(np.sqrt(chord2) / 2.0, 1.0)))


def _deg_to_chord2(degrees):
    return (2.0 * np.sin(np.radians(degrees) / 4.0)) ** 2


class _Probes:
    """Target samples at PROBES interior parameters of some segments, and the tangent fit there.

    With p(t) = slerp(v_k, v_{k+1}, t) and w = 2t(1-t), the segment is slerp(p(t), s(t), w) with
    s(t) = slerp(b_k, a_{k+1}, t). A probe's target q* is hit exactly by s* = slerp(p, q*, 1/w) (on
    the geodesic from p through q*, extrapolated), so fitting the tangents is fitting a great circle
    s(t), uniformly parametrized, to the points s* at the probes' t. An error of s moves q by about
    w times it, so the fit weighs probes by w^2 and rates them by w |s - s*|.
    """

    def __init__(self, times, values, index, target):
        self.t = np.arange(1, PROBES + 1) / (PROBES + 1)
        self.w = 2.0 * self.t * (1.0 - self.t)
        start, duration = times[index], times[index + 1] - times[index]
        probe_times = (start[:, None] + duration[:, None] * self.t).reshape(-1)
        q = _unit(target(probe_times)).reshape(len(index), PROBES, 4)
        s = _extrapolate(_arc_points(values[index], values[index + 1], self.t), q, 1.0 / self.w)
        # One sign for all the points of a segment (their great circle is sign-free, the angles
        # along it are not): the side of the middle probe.
        s *= np.where(np.einsum("smi,si->sm", s, s[:, PROBES // 2]) < 0.0, -1.0, 1.0)[..., None]
        self.s = s

    def errors(self, b, a):
        """Largest probe error (degrees, first order in the error of s) per segment for (S, 4)
        tangents b, a."""
        fitted = _arc_points(b, a, self.t)
        fitted *= np.where(np.einsum("smi,smi->sm", fitted, self.s) < 0.0, -1.0, 1.0)[..., None]
        fitted -= self.s
        return self._degrees(np.sqrt(np.einsum("smi,smi->sm", fitted, fitted))).max(axis=1)

    def _degrees(self, residual):
        return np.degrees(2.0 * self.w * residual)

    def fit(self, tolerance_deg, select=slice(None)):
        """(S, 4) tangents b, a for the probes' segments (or those picked by ``select``): weighted
        least squares, then Lawson rounds for those still off by more than LAWSON_ABOVE x
        tolerance."""
        s = self.s[select]
        weights = np.broadcast_to(self.w ** 2, s.shape[:2]).copy()
        b, a, plane, residual = _great_circle(s, self.t, weights, _initial_plane(s))
        errors = self._degrees(residual)
        worst = errors.max(axis=1)
        for _ in range(LAWSON_ROUNDS):
            rows = np.flatnonzero(worst > LAWSON_ABOVE * tolerance_deg)
            if not len(rows):
                break
            weights[rows] *= errors[rows] / worst[rows, None] + LAWSON_FLOOR
            nb, na, nplane, residual = _great_circle(s[rows], self.t, weights[rows], plane[rows],
                                                     steps=1)
            new_errors = self._degrees(residual)
            better = new_errors.max(axis=1) < worst[rows]
            keep = rows[better]
            b[keep], a[keep], plane[keep] = nb[better], na[better], nplane[better]
            errors[keep] = new_errors[better]
            worst[keep] = errors[keep].max(axis=1)
        return b, a


def _arc_points(a, b, t):
    """slerp(a, b, t) for (S, 4) ends and (M,) parameters: (S, M, 4).

    Each point is a combination of a and e (quaternions.slerp_basis), formed by a batched
    (M, 2) @ (2, 4) matmul: ten times faster than numpy's broadcasting over a trailing axis of 4.
    """
    e, angle, tiny = quat.slerp_basis(a, b)
    phase = angle[:, None] * t
    weights = np.stack([np.cos(phase), np.sin(phase)], axis=2)
    if tiny.any():  # Appendix C: lerp and normalize (e = b' - a there)
        lerp = np.stack([np.ones_like(phase), np.broadcast_to(t, phase.shape)], axis=2)
        weights = np.where(tiny[:, None, None], lerp, weights)
    points = np.matmul(weights, np.stack([a, e], axis=1))
    if tiny.any():
        points[tiny] /= np.linalg.norm(points[tiny], axis=2)[..., None]
    return points


def _extrapolate(p, q, u):
    """slerp(p, q, u) along the shorter arc for (S, M, 4) p, q and (M,) parameters u >= 1.

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
    return _orthonormal(s[:, PROBES // 2], s[:, -1] - s[:, 0])


def _orthonormal(x, y):
    """Gram-Schmidt of (S, 4) pairs into (S, 2, 4); a degenerate y becomes any unit normal of x."""
    x = x / np.linalg.norm(x, axis=1)[:, None]
    y = y - x * np.einsum("si,si->s", x, y)[:, None]
    length = np.linalg.norm(y, axis=1)
    fallback = x[:, [1, 0, 3, 2]] * [-1.0, 1.0, -1.0, 1.0]  # orthogonal to x
    y = np.where((length > 1e-12)[:, None], y / np.maximum(length, 1e-300)[:, None], fallback)
    return np.stack([x, y], axis=1)


def _great_circle(s, t, weights, plane, steps=PLANE_STEPS):
    """Weighted least-squares great circle, uniformly parametrized, through points s (S, M, 4).

    The plane is the dominant 2D subspace of sum_j weights_j s_j s_j^T (subspace iteration from
    a given plane: points close to a circle converge in a step or two; numpy's batched eigh costs
    ten times more); the parameter is a least-squares line theta_0 + theta_1 t of the points'
    angles in the plane, measured from the middle point's direction so that they never wrap.
    Returns b, a (S, 4), the plane (S, 2, 4) and each point's residual (S, M), to first order:
    its distance off the plane and its angle along it.
    """
    scatter = np.matmul((s * weights[..., None]).transpose(0, 2, 1), s)
    for _ in range(steps):
        turned = np.matmul(plane, scatter)          # rows (C e_k)^T: the scatter is symmetric
        plane = _orthonormal(turned[:, 0], turned[:, 1])
    # Axes: the middle point's projection, then its quarter turn within the plane.
    c = np.matmul(plane, s[:, PROBES // 2, :, None])[..., 0]
    plane = np.matmul(np.stack([c, c[:, ::-1] * [-1.0, 1.0]], axis=1), plane)
    plane /= np.linalg.norm(plane[:, :1], axis=2)[..., None]
    coords = np.matmul(s, plane.transpose(0, 2, 1))
    x, y = coords[..., 0], coords[..., 1]
    theta = np.arctan2(y, x)
    s0, s1, s2 = weights.sum(axis=1), weights @ t, weights @ (t * t)
    y0, y1 = np.einsum("sm,sm->s", weights, theta), (weights * theta) @ t
    det = s0 * s2 - s1 * s1
    theta0 = (s2 * y0 - s1 * y1) / det
    theta1 = (s0 * y1 - s1 * y0) / det
    along = theta - theta0[:, None] - theta1[:, None] * t
    off = np.maximum(1.0 - x * x - y * y, 0.0)   # |s - its projection|^2, s unit
    residual = np.sqrt(off + along * along)
    ends = np.stack([theta0, theta0 + theta1], axis=1)
    b, a = np.matmul(np.stack([np.cos(ends), np.sin(ends)], axis=2), plane).transpose(1, 0, 2)
    return b, a, plane, residual
