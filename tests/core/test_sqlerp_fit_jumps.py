"""The CUBICSLERP fit never writes a curve that jumps (spec "Where the curve is discontinuous"), and
core.sampling.jumping_segments finds the segments that do.

The reference is tests/helpers/jumping_curve.py's Appendix C slerp in plain Python: p(u) . s(u), with
p = slerp(v_k, v_k+1, u) and s = slerp(b_k, a_k+1, u), sampled 2,000 times per segment. Where it
changes sign inside a segment, the outer slerp turns the other way and the curve jumps.

The motion below was found by a random search (seed 7, 3,000 tries): key rotations 1 s apart with a
wobble on top, checked at two times per segment and a 30 degree tolerance. Without the jump check
the fit's tangents made one of its segments jump between two check times; 82 of 19,704 such fits
did, some with 7 check times per segment.
"""

import numpy as np
from helpers.jumping_curve import V0, V1, B0, A1, jump_fraction, slerp

from gltf_sqlerp.core.fitting import sqlerp_fit
from gltf_sqlerp.core.sampling import jumping_segments
from gltf_sqlerp.core.sampling import quaternions as quat

KEYS = np.array([[0.3846, 0.2625, -0.8827, 0.0628], [0.6655, -0.7324, 0.0216, 0.1424],
                 [-0.3772, -0.4912, 0.7738, -0.1332]])
WOBBLE = np.array([5.9238, 4.8943, 3.2732])  # rad/s about x, y, z, 0.6 rad (half-angle) each


def motion(seconds):
    """Slerp between KEYS 1 s apart, turned by a wobble about each axis: (T, 4)."""
    t = np.asarray(seconds, dtype=np.float64)
    keys = KEYS / np.linalg.norm(KEYS, axis=1, keepdims=True)
    k = np.clip(np.floor(t).astype(int), 0, len(keys) - 2)
    wobble = np.stack([np.sin(f * t) * 0.6 for f in WOBBLE], axis=-1)
    return quat.multiply(quat.slerp(keys[k], keys[k + 1], t - k), quat.exp(wobble))


def sign_changes(fit):
    """Segments where p . s changes sign, by the plain-Python reference."""
    changed = []
    for k in range(len(fit.times) - 1):
        v0, v1, b0, a1 = (list(map(float, q)) for q in (fit.values[k], fit.values[k + 1],
                                                       fit.out_tangents[k], fit.in_tangents[k + 1]))
        d = [sum(x * y for x, y in zip(slerp(v0, v1, u), slerp(b0, a1, u))) for u in np.linspace(0, 1, 2001)]
        if min(d) < 0.0 < max(d):
            changed.append(k)
    return changed


def fit():
    check = np.linspace(0.0, 2.0, 5)  # two check times per segment
    return sqlerp_fit.fit_cubicslerp(motion, [0.0, 1.0, 2.0], check, tolerance_deg=30.0, written="FLOAT")


def test_jumping_segments_finds_the_reference_jump():
    # jumping_curve's one segment jumps at jump_fraction(); a second, unturned segment does not.
    values = np.array([V0, V0, B0, A1, V1, V1, V1, V1, V1])
    assert 0.5 < jump_fraction() < 1.0
    assert jumping_segments([0.0, 1.0, 2.0], values).tolist() == [True, False]
    assert jumping_segments([0.0], values[:3]).tolist() == []


def test_the_fit_never_jumps_between_its_check_times(monkeypatch):
    written = fit()
    assert sign_changes(written) == []
    assert not jumping_segments(written.times, written.interleaved()).any()
    # The motion is one where it matters: without the check the fit writes a jumping segment.
    monkeypatch.setattr(sqlerp_fit, "jumping_segments", lambda times, values: np.zeros(len(times) - 1, bool))
    unchecked = fit()
    assert sign_changes(unchecked) != [] and len(written.times) > len(unchecked.times)
