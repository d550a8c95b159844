"""References for the fitting tests (tests/core/test_sqlerp_fit.py, test_screening.py), written
in numpy independently of the core: quaternions from axis and angle, the Hamilton product, Appendix
C slerp and cubic Hermite, the draft's CUBICSLERP, rotation angles, key times every 4 to 12 frames
and the dense check grid, and a motion about a moving axis."""

import numpy as np


FPS = 24.0


def about(axis, degrees):
    """(..., 4) quaternions (axis sin(a/2), cos(a/2)) of rotations by `degrees` about `axis`."""
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    half = np.radians(np.asarray(degrees, dtype=float))[..., None] / 2.0
    return np.concatenate([axis * np.sin(half), np.cos(half)], axis=-1)


def hamilton(a, b):
    (ax, ay, az, aw), (bx, by, bz, bw) = np.moveaxis(a, -1, 0), np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz],
                    axis=-1)


def ref_slerp(a, b, t):
    """Appendix C: (sin((1-t) angle) a + sin(t angle) b') / sin(angle), b' = b sign(a.b)."""
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    t = np.broadcast_to(np.asarray(t, float), a.shape[:-1])[..., None]
    d = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(d < 0.0, -b, b)
    d = np.abs(d)
    angle = np.arctan2(np.linalg.norm(b - a * d, axis=-1, keepdims=True), d)
    tiny = angle < 1e-9
    s = np.sin(np.where(tiny, 1.0, angle))
    out = (np.sin((1.0 - t) * angle) * a + np.sin(t * angle) * b) / s
    lerp = a + t * (b - a)
    out = np.where(tiny, lerp / np.linalg.norm(lerp, axis=-1, keepdims=True), out)
    return out


def segment_of(key_times, times):
    k = np.clip(np.searchsorted(key_times, times, side="right") - 1, 0, len(key_times) - 2)
    h = key_times[k + 1] - key_times[k]
    return k, np.clip((times - key_times[k]) / h, 0.0, 1.0), h


def ref_sqlerp(key_times, a, v, b, times):
    """The draft's CUBICSLERP: slerp(slerp(v_k, v_k+1, t), slerp(b_k, a_k+1, t), 2t(1-t))."""
    k, t, _ = segment_of(key_times, times)
    return ref_slerp(ref_slerp(v[k], v[k + 1], t), ref_slerp(b[k], a[k + 1], t), 2 * t * (1 - t))


def ref_cubicspline(key_times, interleaved, times):
    """Appendix C cubic Hermite with tangents scaled by the segment duration, normalized."""
    a, v, b = interleaved[0::3], interleaved[1::3], interleaved[2::3]
    k, t, h = segment_of(key_times, times)
    t, h = t[:, None], h[:, None]
    p = ((2 * t**3 - 3 * t**2 + 1) * v[k] + (t**3 - 2 * t**2 + t) * h * b[k]
         + (-2 * t**3 + 3 * t**2) * v[k + 1] + (t**3 - t**2) * h * a[k + 1])
    return p / np.linalg.norm(p, axis=1, keepdims=True)


def degrees_between(q1, q2):
    """Rotation angle between q1 and q2: twice the 4D angle, from the chord between the unit
    quaternions on the same side (arccos of the dot would bottom out near 2e-6 degrees)."""
    q1 = q1 / np.linalg.norm(q1, axis=-1, keepdims=True)
    q2 = q2 / np.linalg.norm(q2, axis=-1, keepdims=True)
    q2 = np.where(np.sum(q1 * q2, axis=-1, keepdims=True) < 0, -q2, q2)
    chord = np.linalg.norm(q1 - q2, axis=-1)
    return np.degrees(4.0 * np.arcsin(np.minimum(chord / 2.0, 1.0)))


def key_times(rng, count):
    """Keys every 4 to 12 frames at 24 fps."""
    return np.concatenate([[0], np.cumsum(rng.integers(4, 13, count - 1))]) / FPS


def check_grid(times, per_frame=8):
    frames = int(round((times[-1] - times[0]) * FPS))
    return np.linspace(times[0], times[-1], frames * per_frame + 1)


def moving_axis(t):
    """A rotation about an axis sweeping round a cone, by an angle swinging +-120 degrees."""
    t = np.asarray(t, dtype=float)
    axis = np.stack([np.cos(0.9 * t), np.sin(0.9 * t), np.full_like(t, 0.6)], axis=-1)
    return about(axis, 120.0 * np.sin(1.7 * t) + 20.0 * t)
