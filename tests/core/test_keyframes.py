"""core.blender_model.keyframes: the keys Blender gets for a glTF sampler.

Expected values come from outside the module: a plain-Python F-curve evaluator written here from
the Bezier definition (control points, x(s) = t solved by bisection, y(s) by de Casteljau) plus the
handle limit of Blender's fcurve.cc (BKE_fcurve_correct_bezpart); Appendix C's Hermite, slerp and
the spec's CUBICSLERP formula in scalar Python; numbers worked by hand; and an angle formula
other than the core's (4 asin(|q1 - q2'| / 2), q2' = q2 in q1's hemisphere).
"""

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gltf_sqlerp import core
from gltf_sqlerp.core.blender_model import curve_slopes
from gltf_sqlerp.core.blender_model import keyframes as K
from gltf_sqlerp.core.sampling.animation import Sampler
from helpers.jumping_curve import jumping_segment
from helpers.keyframe_refs import (about, angle_deg, fcurve_values, hermite, qmul, sign_continuous, spec_rotation,
                                   worst_angle)

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
TOLERANCE = 0.01  # degrees, the default


def interleave(a, v, b):
    """CUBICSPLINE/CUBICSLERP rows a_1, v_1, b_1, a_2, ... from three per-key lists."""
    return np.stack([np.asarray(x, dtype=float) for x in (a, v, b)], axis=1).reshape(
        -1, np.shape(v)[-1])


# --- play() is Blender's evaluation ---------------------------------------------------------------

def test_play_matches_an_independent_fcurve_evaluator():
    rng = np.random.default_rng(7)
    m = 6
    times = np.cumsum(rng.uniform(0.2, 1.0, m))
    values = rng.normal(size=(m, 3))
    span = np.diff(times)
    # General handles: not at one third, one of them longer than its segment (Blender limits it).
    right_times = times + np.append(span * rng.uniform(0.05, 0.6, m - 1), 0.3)
    right_times[2] = times[2] + 1.7 * span[2]
    left_times = times - np.insert(span * rng.uniform(0.05, 0.6, m - 1), 0, 0.3)
    modes = ["BEZIER", "LINEAR", "BEZIER", "CONSTANT", "BEZIER", "BEZIER"]
    left_values, right_values = rng.normal(size=(2, m, 3))
    keys = K.Keyframes(times, values, left_times, left_values, right_times, right_values,
                       np.array(modes))
    query = np.concatenate([np.linspace(times[0] - 1.0, times[-1] + 1.0, 400), times])
    played = K.play(keys, query)
    expected = np.array([fcurve_values(keys, float(t)) for t in query])
    assert np.allclose(played, expected, rtol=0, atol=1e-12)
    assert np.allclose(K.play(keys, [times[3] + 0.5 * span[3]]), [values[3]], atol=0)
    # Rotations: the component curves, normalized (lerp of (0,0,0,2) and (0,0,2,0) at 1/2).
    handle_times, handle_values = np.zeros(2), np.zeros((2, 4))  # only BEZIER segments read handles
    keys = K.Keyframes(np.array([0.0, 1.0]), np.array([[0.0, 0, 0, 2], [0, 0, 2, 0]]),
                       handle_times, handle_values, handle_times, handle_values, np.array(["LINEAR"] * 2))
    assert np.allclose(K.play(keys, [0.5], rotation=True), [[0, 0, 0.5 ** 0.5, 0.5 ** 0.5]])


# --- exact cases ----------------------------------------------------------------------------------

def test_step_gives_constant_keys_holding_the_stored_values():
    sampler = Sampler("STEP", np.array([0.0, 1.0, 2.0]), np.array([[1.0], [5.0], [2.0]]),
                      "translation", "/x")
    keys = K.keyframes_for(sampler)
    assert keys.times.tolist() == [0.0, 1.0, 2.0] and keys.values[:, 0].tolist() == [1.0, 5.0, 2.0]
    assert keys.interpolation.tolist() == ["CONSTANT"] * 3
    query = [-1.0, 0.0, 0.5, 1.0, 1.99, 2.0, 3.0]
    assert K.play(keys, query)[:, 0].tolist() == [1.0, 1.0, 1.0, 5.0, 5.0, 2.0, 2.0]
    assert [fcurve_values(keys, t)[0] for t in query] == [1.0, 1.0, 1.0, 5.0, 5.0, 2.0, 2.0]


def test_linear_translation_gives_linear_keys_tutorial_example():
    values = np.array([[0.0, 0.0, 0.0], [14.0, 3.0, -2.0], [18.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    sampler = Sampler("LINEAR", np.array([0.0, 0.8, 1.6, 2.4]), values, "translation", "/x")
    keys = K.keyframes_for(sampler)
    assert keys.interpolation.tolist() == ["LINEAR"] * 4
    assert np.array_equal(keys.values, values)
    # The glTF tutorial: at 1.2 s the translation is (16, 2, -0.5).
    assert np.allclose(fcurve_values(keys, 1.2), [16.0, 2.0, -0.5], atol=1e-12)
    assert np.allclose(K.play(keys, [1.2]), [[16.0, 2.0, -0.5]], atol=1e-12)
    # Blender plays no handle of a LINEAR segment: moving them changes nothing.
    moved = dataclasses.replace(keys, left_values=keys.left_values + 5.0,
                                right_values=keys.right_values - 5.0)
    query = np.linspace(-0.5, 3.0, 57)
    assert np.array_equal(K.play(moved, query), K.play(keys, query))
    assert np.allclose(fcurve_values(moved, 1.2), [16.0, 2.0, -0.5], atol=1e-12)


def test_cubicspline_keys_carry_the_file_tangents():
    # Segment [0, 2]: v0 = 1, b0 = 3, a1 = -1, v1 = 2. By hand at 0.5 s (u = 1/4):
    # h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875, tangents times 2 s:
    # 0.84375 + 2 * 0.140625 * 3 + 0.15625 * 2 + 2 * 0.046875 = 2.09375.
    times = np.array([0.0, 2.0, 3.0])
    a, v, b = [[0.0], [-1.0], [4.0]], [[1.0], [2.0], [-1.0]], [[3.0], [0.5], [0.0]]
    sampler = Sampler("CUBICSPLINE", times, interleave(a, v, b), "scale", "/x")
    keys = K.keyframes_for(sampler)
    assert keys.interpolation[:2].tolist() == ["BEZIER", "BEZIER"]
    assert np.allclose([keys.right_times[0], keys.right_values[0, 0]], [2 / 3, 1 + 2 * 3 / 3])
    assert np.allclose([keys.left_times[1], keys.left_values[1, 0]], [2 - 2 / 3, 2 + 2 / 3])
    assert np.allclose([keys.right_times[1], keys.right_values[1, 0]], [2 + 1 / 3, 2 + 0.5 / 3])
    assert np.allclose([keys.left_times[2], keys.left_values[2, 0]], [3 - 1 / 3, -1 - 4 / 3])
    # The outer handles are never played: they mirror the neighbouring spacing and slope.
    assert np.allclose([keys.left_times[0], keys.left_values[0, 0]], [-2 / 3, 1 - 2 * 3 / 3])
    assert np.allclose([keys.right_times[2], keys.right_values[2, 0]], [3 + 1 / 3, -1 + 4 / 3])
    assert fcurve_values(keys, 0.5)[0] == pytest.approx(2.09375, abs=1e-12)
    assert K.play(keys, [0.5])[0, 0] == pytest.approx(2.09375, abs=1e-12)
    query = np.linspace(-0.5, 3.5, 81)
    expected = [hermite(v[i], b[i], a[i + 1], v[i + 1], times[i + 1] - times[i],
                        (min(max(t, 0), 3) - times[i]) / (times[i + 1] - times[i]))[0]
                for t in query for i in [0 if t < 2.0 else 1]]
    assert np.allclose([fcurve_values(keys, t)[0] for t in query], expected, atol=1e-12)
    assert np.allclose(K.play(keys, query)[:, 0], expected, atol=1e-12)


def test_cubicspline_rotation_is_exact_where_the_file_keeps_signs():
    rng = np.random.default_rng(11)
    v = [about((0, 0, 1), 0), about((1, 2, 0), 70), about((0, 1, 1), 150)]
    a, b = rng.normal(scale=0.6, size=(3, 4)), rng.normal(scale=0.6, size=(3, 4))
    times = [0.0, 0.7, 2.0]
    sampler = Sampler("CUBICSPLINE", np.array(times), interleave(a, v, b), "rotation", "/x")
    keys = K.keyframes_for(sampler)
    assert len(keys) == 3 and set(keys.interpolation) == {"BEZIER"}
    rows = [list(r) for r in interleave(a, v, b)]
    assert max(angle_deg(fcurve_values(keys, t), spec_rotation("CUBICSPLINE", times, rows, t))
               for t in np.linspace(-0.2, 2.2, 97)) < 1e-5


def test_cubicspline_rotation_with_a_sign_flip_stays_continuous_and_close():
    # v1 is stored with the opposite sign: that segment's Hermite swings through other rotations,
    # which sign-continuous keys can only follow with extra keys. The other segment stays exact.
    rng = np.random.default_rng(5)
    v = [about((0, 0, 1), 0), [-x for x in about((0, 0, 1), 60)],
         [-x for x in about((0, 1, 0), 40)]]
    a, b = rng.normal(scale=0.3, size=(3, 4)), rng.normal(scale=0.3, size=(3, 4))
    times = [0.0, 1.0, 2.0]
    sampler = Sampler("CUBICSPLINE", np.array(times), interleave(a, v, b), "rotation", "/x")
    keys = K.keyframes_for(sampler)
    assert sign_continuous(keys)
    assert np.count_nonzero(keys.times > 1.0) == 1      # [1, 2] kept the file's tangents
    rows = [list(r) for r in interleave(a, v, b)]
    assert worst_angle(keys, lambda t: spec_rotation("CUBICSPLINE", times, rows, t)) <= TOLERANCE


def test_equal_key_times_keep_the_value_played_from_that_time_on():
    # glTF: a zero-length segment is a jump taken once time reaches it; F-curves cannot key both.
    sampler = Sampler("LINEAR", np.array([0.0, 1.0, 1.0, 2.0]),
                      np.array([[0.0], [1.0], [5.0], [6.0]]), "translation", "/x")
    keys = K.keyframes_for(sampler)
    assert keys.times.tolist() == [0.0, 1.0, 2.0] and keys.values[:, 0].tolist() == [0.0, 5.0, 6.0]


def test_one_key_sampler_gives_one_constant_key():
    sampler = Sampler("CUBICSLERP", np.array([0.5]), np.array([about((0, 0, 1), 30)] * 3),
                      "rotation", "/x")
    keys = K.keyframes_for(sampler)
    assert len(keys) == 1 and keys.interpolation.tolist() == ["CONSTANT"]
    assert np.allclose(K.play(keys, [0.0, 0.5, 9.0]), [about((0, 0, 1), 30)] * 3, atol=0)
    with pytest.raises(ValueError, match="positive"):
        K.keyframes_for(sampler, tolerance_deg=0.0)


# --- rotations within the tolerance ---------------------------------------------------------------

def chain(step_degrees, count, seed):
    """count rotations, each step_degrees from the previous about a random axis."""
    rng = np.random.default_rng(seed)
    q = [about((0, 0, 1), 10)]
    for _ in range(count - 1):
        q.append(qmul(q[-1], about(rng.normal(size=3), step_degrees)))
    return q


def arc_error(degrees):
    """Largest angle error of normalize(cubic Hermite) along a planar arc of `degrees` (rotation
    angle) with the exact end derivatives, on 4,001 samples: the slerp segment in its plane."""
    half = math.radians(degrees) / 2.0
    worst = 0.0
    for j in range(4001):
        u = j / 4000
        x, y = hermite([1.0, 0.0], [0.0, half], [-math.sin(half) * half, math.cos(half) * half],
                       [math.cos(half), math.sin(half)], 1.0, u)
        worst = max(worst, abs(2.0 * math.degrees(math.atan2(y, x) - half * u)))
    return worst


@pytest.mark.parametrize("degrees", [30, 90, 120, 170])
def test_linear_rotation_within_tolerance_with_few_keys(degrees):
    q = chain(degrees, 5, seed=degrees)
    q[2] = [-x for x in q[2]]          # a stored sign flip changes nothing for slerp
    times = [0.0, 0.4, 1.0, 1.3, 2.1]
    sampler = Sampler("LINEAR", np.array(times), np.array(q), "rotation", "/x")
    keys = K.keyframes_for(sampler)
    assert worst_angle(keys, lambda t: spec_rotation("LINEAR", times, q, t)) <= TOLERANCE
    assert sign_continuous(keys)
    # Halving a segment until normalize(Hermite) of its arc is within tolerance: 30 degrees needs
    # no extra key (arc error 4e-5 degrees), 90 degrees just misses (0.0101) and needs one per
    # segment, as do 120 (0.042) and 170 (0.23), whose halves err 0.0013 and 0.0076.
    splits = 0
    while arc_error(degrees / 2 ** splits) > TOLERANCE:
        splits += 1
    assert len(keys) == 1 + 4 * 2 ** splits
    assert np.array_equal(keys.times[::2 ** splits], times)


def test_the_projects_cubicslerp_sample_within_tolerance():
    document = core.load(SAMPLES / "sqlerp_arm.gltf")
    channels = [c for c in document.animations[0].channels
                if c.sampler.interpolation == "CUBICSLERP"]
    assert len(channels) == 3
    for channel in channels:
        sampler = channel.sampler
        keys = K.keyframes_for(sampler)
        rows = [list(r) for r in sampler.values]
        times = [float(t) for t in sampler.times]
        assert worst_angle(keys, lambda t, times=times, rows=rows: spec_rotation("CUBICSLERP", times, rows, t)) \
            <= TOLERANCE
        assert sign_continuous(keys)
        assert set(times) <= set(keys.times.tolist())
        # Segments of 35 to 135 degrees: a handful of extra keys, not a bake (49 frames at 24 fps).
        assert len(keys) <= 4 * len(times)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(2, 5), st.floats(5.0, 100.0))
def test_random_cubicslerp_curves_within_tolerance(seed, count, step):
    rng = np.random.default_rng(seed)
    v = chain(step, count, seed)
    times = list(np.cumsum(rng.uniform(0.1, 1.0, count)) - 0.05)
    # Tangents up to 30 degrees from their keys, each independent, so keys have corners
    # (a_i != b_i); with steps up to 100 degrees every dot of the spec's sign rules stays
    # positive, so the curve has no jump that keys could not follow.
    a = [qmul(q, about(rng.normal(size=3), rng.uniform(0.0, 30.0))) for q in v]
    b = [qmul(q, about(rng.normal(size=3), rng.uniform(0.0, 30.0))) for q in v]
    rows = [list(r) for r in interleave(a, v, b)]
    sampler = Sampler("CUBICSLERP", np.array(times), np.array(rows), "rotation", "/x")
    keys = K.keyframes_for(sampler)
    assert worst_angle(keys, lambda t, times=times, rows=rows: spec_rotation("CUBICSLERP", times, rows, t)) \
            <= TOLERANCE
    assert sign_continuous(keys)


@pytest.mark.parametrize("seed", range(8))
def test_cubicslerp_end_slopes_in_closed_form_match_the_curves_derivative(seed):
    """The one-sided derivatives at both ends of each segment (each in its own key's sign; keys and
    tangents stored with random signs), against a second-order difference of the scalar sqlerp."""
    rng = np.random.default_rng(seed)
    v = [list(np.array(q) * rng.choice([-1.0, 1.0])) for q in chain(60.0, 5, seed)]
    a, b = ([list(np.array(qmul(q, about(rng.normal(size=3), rng.uniform(0.0, 30.0))))
                  * rng.choice([-1.0, 1.0])) for q in v] for _ in range(2))
    times = np.cumsum(rng.uniform(0.2, 1.0, 5))
    rows = [list(r) for r in interleave(a, v, b)]
    i = np.arange(4)
    leaving, arriving = curve_slopes.sqlerp_end_slopes(np.array(b)[i], np.array(a)[i + 1], np.array(v)[i],
                                             np.array(v)[i + 1], times[i + 1] - times[i])
    h = 1e-5
    for k in range(4):
        def at(t):
            return np.array(spec_rotation("CUBICSLERP", times, rows, t))
        start, end = times[k], times[k + 1]
        out = (-3.0 * at(start) + 4.0 * at(start + h) - at(start + 2 * h)) / (2 * h)
        side = np.sign(np.dot(at(end - h), v[k + 1]))  # the curve arrives at v or at -v
        into = side * (3.0 * at(end - 1e-12) - 4.0 * at(end - h) + at(end - 2 * h)) / (2 * h)
        np.testing.assert_allclose(leaving[k], out * np.sign(np.dot(at(start), v[k])), atol=1e-5)
        np.testing.assert_allclose(arriving[k], into, atol=1e-5)


def test_cubicslerp_keys_follow_sign_flipped_file_keys():
    v = chain(50, 4, seed=3)
    v[1], v[3] = [-x for x in v[1]], [-x for x in v[3]]
    rows = [list(r) for r in interleave(v, v, v)]
    times = [0.0, 1.0, 2.0, 3.0]
    keys = K.keyframes_for(Sampler("CUBICSLERP", np.array(times), np.array(rows), "rotation", "/x"))
    assert sign_continuous(keys)
    assert worst_angle(keys, lambda t, times=times, rows=rows: spec_rotation("CUBICSLERP", times, rows, t)) \
            <= TOLERANCE


def test_step_rotation_keys_are_sign_continuous_and_the_same_rotations():
    q = [about((0, 0, 1), 0), [-x for x in about((0, 0, 1), 20)], about((0, 0, 1), 40)]
    keys = K.keyframes_for(Sampler("STEP", np.array([0.0, 1.0, 2.0]), np.array(q), "rotation",
                                   "/x"))
    assert sign_continuous(keys) and keys.interpolation.tolist() == ["CONSTANT"] * 3
    assert all(angle_deg(k, p) < 1e-9 for k, p in zip(keys.values, q))


# --- bake mode ------------------------------------------------------------------------------------

def test_bake_puts_linear_keys_on_the_curve_at_the_given_times():
    frames = np.arange(0, 49) / 24.0
    translation = Sampler("LINEAR", np.array([0.0, 2.0]),
                          np.array([[0.0, 1.0, 2.0], [4.0, 1.0, 0.0]]), "translation", "/x")
    keys = K.keyframes_for(translation, bake_times=frames)
    assert keys.interpolation.tolist() == ["LINEAR"] * 49
    assert np.allclose(keys.values, [[2 * t, 1.0, 2.0 - t] for t in frames], rtol=0, atol=1e-15)
    assert np.allclose(K.play(keys, frames), keys.values, rtol=0, atol=0)
    # Slerp about z from 0 to 300 degrees in 1 s (stored keys 150 degrees apart, signs flipped):
    # at time t the rotation is 300 t degrees, so q = (0, 0, sin(150 t deg), cos(150 t deg)) up to
    # sign, and consecutive keys must agree in sign.
    q = [about((0, 0, 1), 0), [-x for x in about((0, 0, 1), 150)], about((0, 0, 1), 300)]
    rotation = Sampler("LINEAR", np.array([0.0, 0.5, 1.0]), np.array(q), "rotation", "/x")
    keys = K.keyframes_for(rotation, bake_times=frames[:25])
    assert sign_continuous(keys)
    for t, key, played in zip(frames[:25], keys.values, K.play(keys, frames[:25], rotation=True)):
        expected = [0.0, 0.0, math.sin(math.radians(150 * t)), math.cos(math.radians(150 * t))]
        assert angle_deg(key, expected) < 1e-9 and angle_deg(played, expected) < 1e-9


def test_bezier_time_solve_matches_plain_bisection():
    """fcurve_model solves x(s) = t (Newton inside a bisection bracket); an independent 200-step
    bisection of the Bernstein form gives the same s to float64 resolution, for handles anywhere in
    their segment, flat ends (x'(0) = 0) included."""
    from gltf_sqlerp.core.blender_model.fcurves import bezier_parameter
    rng = np.random.default_rng(11)
    count = 20000
    x1, x2 = rng.uniform(0.0, 1.0, count), rng.uniform(0.0, 1.0, count)
    x1[:100], x2[100:200] = 0.0, 1.0  # handles on their keys: x'(s) = 0 at an end
    x = np.column_stack([np.zeros(count), x1, x2, np.ones(count)]) * 8.0 + 3.0
    q = 3.0 + 8.0 * rng.uniform(0.0, 1.0, count)
    q[:50] = 3.0 + 8.0 * rng.uniform(0.0, 1e-9, 50)  # right at the flat start
    low, high = np.zeros(count), np.ones(count)
    a, b, c, d = x.T
    for _ in range(200):
        mid = 0.5 * (low + high)
        r = 1.0 - mid
        below = r ** 3 * a + 3 * r * r * mid * b + 3 * r * mid * mid * c + mid ** 3 * d < q
        low, high = np.where(below, mid, low), np.where(below, high, mid)
    # Where x'(s) is ~0 the time pins s down only to about sqrt(resolution): compare times there.
    s = bezier_parameter(x, q)
    r = 1.0 - s
    solved = r ** 3 * a + 3 * r * r * s * b + 3 * r * s * s * c + s ** 3 * d
    assert np.abs(solved - q).max() < 1e-11
    assert np.abs(s - 0.5 * (low + high))[200:].max() < 1e-9


# --- a CUBICSLERP jump (issue 18, 2) ---------------------------------------------------------------

def _jumping_segment(frame, rate=24.0):
    """tests/helpers/jumping_curve.py's segment as a core Sampler, and the time it jumps at ``frame``."""
    times, rows, jump = jumping_segment(frame, rate)
    return Sampler("CUBICSLERP", times, rows, "rotation", "/x"), jump


def test_a_cubicslerp_jump_is_found_where_the_inner_slerps_turn_orthogonal():
    sampler, jump = _jumping_segment(40.01)
    from gltf_sqlerp.core.sampling.sqlerp_jumps import jump_times
    found = jump_times(sampler.times, sampler.values)
    assert found.shape == (1,) and found[0] == pytest.approx(jump, abs=1e-9)
    # Either side, the spec's curve is far apart: a jump, not a fast turn.
    rows = sampler.values.tolist()
    step = 1e-6
    assert angle_deg(spec_rotation("CUBICSLERP", sampler.times, rows, jump - step),
                     spec_rotation("CUBICSLERP", sampler.times, rows, jump + step)) > 30.0


@pytest.mark.parametrize("frame", [40.01, 39.99, 40.5 - 1e-5, 40.25])
def test_every_frame_and_half_frame_plays_the_spec_around_a_jump(frame):
    """Keys bracket the jump 0.02 frames apart (Blender merges keys closer than 0.01), with a CONSTANT
    segment between: every frame and half frame (the independent F-curve evaluator, the spec in
    scalar Python) stays within the tolerance, and the keys do not pile up around the jump."""
    sampler, jump = _jumping_segment(frame)
    keys = K.keyframes_for(sampler, TOLERANCE, frames_per_second=24.0)
    rows = sampler.values.tolist()
    first, last = sampler.times[0] * 24.0, sampler.times[-1] * 24.0
    checks = [f / 2.0 for f in range(int(np.ceil(2 * first)), int(np.floor(2 * last)) + 1)]
    worst = max(angle_deg(fcurve_values(keys, f / 24.0), spec_rotation("CUBICSLERP", sampler.times, rows,
                                                                       f / 24.0)) for f in checks)
    assert worst <= TOLERANCE, worst
    near = np.abs(keys.times - jump) * 24.0 < 0.5
    assert near.sum() <= 4, keys.times[near] * 24.0
    gap = int(np.flatnonzero(keys.times < jump)[-1])
    assert keys.interpolation[gap] == "CONSTANT"
    assert (keys.times[gap + 1] - keys.times[gap]) * 24.0 == pytest.approx(0.02)
