"""A one-segment CUBICSLERP curve that jumps (spec "Where the curve is discontinuous"), shared by tests (not a test
module): its keys, and the time of its jump found here by scalar bisection on the inner dot
p(u) . s(u) with glTF 2.0 Appendix C's slerp written out in plain Python, not the core's."""

import math

import numpy as np

DURATION = 2.0  # seconds


def about(axis, degrees):
    """(x, y, z, w) of a turn by ``degrees`` about ``axis``."""
    n, h = math.sqrt(sum(x * x for x in axis)), math.radians(degrees) / 2.0
    return [axis[0] / n * math.sin(h), axis[1] / n * math.sin(h), axis[2] / n * math.sin(h), math.cos(h)]


def slerp(a, b, t):
    """Appendix C: shortest path, the second operand flipped to a's side."""
    d = sum(x * y for x, y in zip(a, b))
    if d < 0.0:
        b, d = [-x for x in b], -d
    angle = math.acos(min(d, 1.0))
    wa, wb = math.sin((1.0 - t) * angle) / math.sin(angle), math.sin(t * angle) / math.sin(angle)
    return [wa * x + wb * y for x, y in zip(a, b)]


# v0, v1 the keys, b0 the first key's out-tangent, a1 the second's in-tangent: the inner slerps'
# results turn orthogonal at u ~ 0.82 (v1 . a1 < 0: the sign rules do not hold, as in other
# writers' files), where the blend weight 2u(1 - u) is about 0.3: the curve jumps by tens of degrees.
V0, V1, B0, A1 = about([0, 0, 1], 0.0), about([0, 0, 1], 90.0), about([1, 0, 0], 40.0), about([-1, 0, 0], 150.0)


def jump_fraction():
    """The segment fraction u where d(u) = slerp(v0, v1, u) . slerp(b0, a1, u) changes sign."""
    def d(u):
        return sum(x * y for x, y in zip(slerp(V0, V1, u), slerp(B0, A1, u)))
    low, high = 0.5, 1.0
    assert d(low) > 0.0 > d(high)
    for _ in range(80):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if d(middle) > 0.0 else (low, middle)
    return 0.5 * (low + high)


def jumping_segment(frame, rate=24.0):
    """(times (2,), rows (6, 4) a, v, b per key, jump time in seconds): the segment placed so
    that it jumps at ``frame``."""
    start = frame / rate - DURATION * jump_fraction()
    rows = np.array([V0, V0, B0, A1, V1, V1], dtype=np.float64)
    return np.array([start, start + DURATION]), rows, frame / rate
