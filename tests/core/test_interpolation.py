"""core.sampling.interpolation.evaluate against the glTF tutorial's worked example, Appendix C formulas
worked by hand, and a scalar reference written from the tutorial's slerp pseudo-code."""

import bisect
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gltf_sqlerp.core.sampling import interpolation as I
from gltf_sqlerp.core.sampling import quaternions as Q
from gltf_sqlerp.core.sampling import segments

S22 = math.sin(math.radians(22.5))
C22 = math.cos(math.radians(22.5))
ZERO = [0.0, 0.0, 0.0, 0.0]


def about(axis, degrees):
    """Quaternion (x, y, z, w) of a rotation by `degrees` about `axis`."""
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    half = math.radians(degrees) / 2.0
    return np.array([*(axis * math.sin(half)), math.cos(half)])


def z(degrees):
    return about((0, 0, 1), degrees)


def interleave(a, v, b):
    """CUBICSPLINE/CUBICSLERP rows a_1, v_1, b_1, a_2, ... from three (n, k) arrays."""
    return np.stack([a, v, b], axis=1).reshape(-1, np.shape(v)[1])


# --- the tutorial's worked example and Appendix C by hand ---------------------------------------

def test_tutorial_linear_translation_example():
    times = [0.0, 0.8, 1.6, 2.4]
    values = [[0.0, 0.0, 0.0], [14.0, 3.0, -2.0], [18.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    out = I.evaluate("LINEAR", times, values, [1.2])
    assert np.allclose(out, [[16.0, 2.0, -0.5]], rtol=0, atol=1e-12)


def test_step_takes_previous_key_and_clamps():
    out = I.evaluate("STEP", [0.0, 1.0, 2.0], [[1.0], [2.0], [3.0]],
                     [-1.0, 0.0, 0.5, 1.0, 1.999, 2.0, 5.0])
    assert out[:, 0].tolist() == [1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]


def test_linear_lerp_uneven_key_spacing():
    # Segment [1, 3] has duration 2: t = 0.5 at time 2; segment [0, 1]: t = 0.25 at 0.25.
    out = I.evaluate("LINEAR", [0.0, 1.0, 3.0], [[0.0], [10.0], [-10.0]], [0.25, 2.0, 2.5])
    assert np.allclose(out[:, 0], [2.5, 0.0, -5.0], rtol=0, atol=1e-14)


def test_linear_rotation_is_slerp_quarter_turn_at_half():
    out = I.evaluate("LINEAR", [1.0, 3.0], [z(0), z(90)], [2.0], rotation=True)
    assert np.allclose(out, [[0.0, 0.0, S22, C22]], atol=1e-15)


def test_linear_rotation_slerp_is_not_nlerp_at_quarter():
    # slerp at t = 0.25 of 120 degrees is exactly 30 degrees; normalized lerp would give 26.3.
    out = I.evaluate("LINEAR", [0.0, 1.0, 2.0], [z(0), z(120), z(60)], [0.25, 1.5], rotation=True)
    assert np.allclose(out, [z(30), z(90)], atol=1e-15)


def test_slerp_keys_worked_by_hand_and_as_the_evaluator_plays():
    """core.sampling.slerp_keys (the export's LINEAR player without set-up): 30 degrees at a
    quarter of a 120-degree key pair, the shorter way round a key stored with the other sign,
    the keys' own values at their times, held outside the range; and on random samplers the same
    as the Evaluator's LINEAR rotation within rounding."""
    times = np.array([0.0, 1.0, 2.0])
    values = np.array([z(0), z(120), -np.array(z(60))])
    out = I.slerp_keys(times, values, np.array([0.25, 1.5, -1.0, 3.0, 1.0]))
    assert np.allclose(out[:2] * np.sign(out[:2, 3:]), [z(30), z(90)], atol=1e-15)
    assert (out[2] == values[0]).all() and (out[3] == values[2]).all() and (out[4] == values[1]).all()
    rng = np.random.default_rng(7)
    for count in (2, 3, 17):
        times = np.sort(rng.uniform(-1.0, 3.0, count))
        values = Q.normalize(rng.normal(size=(count, 4)))
        query = np.concatenate([rng.uniform(-2.0, 4.0, 300), times])
        played = I.Evaluator("LINEAR", times, values, rotation=True)(query)
        assert np.abs(I.slerp_keys(times, values, query) - played).max() < 1e-15


def hermite_basis(t):
    """The four Appendix C basis polynomials, written out."""
    return (2 * t**3 - 3 * t**2 + 1, t**3 - 2 * t**2 + t, -2 * t**3 + 3 * t**2, t**3 - t**2)


def test_cubicspline_scalar_worked_by_hand():
    # times [0, 2] (td = 2), v0 = 1, b0 = 3, a1 = -1, v1 = 4; time 0.5 -> t = 0.25:
    # h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875
    # p = 0.84375*1 + 0.140625*2*3 + 0.15625*4 + (-0.046875)*2*(-1) = 2.40625
    assert hermite_basis(0.25) == (0.84375, 0.140625, 0.15625, -0.046875)
    values = [[99.0], [1.0], [3.0], [-1.0], [4.0], [99.0]]
    out = I.evaluate("CUBICSPLINE", [0.0, 2.0], values, [0.5])
    assert out[0, 0] == pytest.approx(2.40625, abs=1e-14)


def test_cubicspline_vec3_worked_by_hand():
    # times [1, 3] (td = 2), time 2.5 -> t = 0.75: h = (0.15625, 0.046875, 0.84375, -0.140625)
    v0, b0, a1, v1 = np.array([[0, 1, 2], [1, 0, -1], [2, 2, 0], [4, -1, 2]], dtype=float)
    expected = 0.15625 * v0 + 0.046875 * 2 * b0 + 0.84375 * v1 - 0.140625 * 2 * a1
    assert np.allclose(expected, [2.90625, -1.25, 1.90625], atol=0)
    values = interleave([[5, 5, 5], a1], [v0, v1], [b0, [5, 5, 5]])
    out = I.evaluate("CUBICSPLINE", [1.0, 3.0], values, [2.5])
    assert np.allclose(out, [[2.90625, -1.25, 1.90625]], atol=1e-14)


def test_cubicspline_two_morph_target_weights():
    # glTF layout per key: in-tangents of all targets, values of all targets, out-tangents.
    flat = [9, 9, 0, 1, 1, -1,      # key 0 (t = 0): a (unused), v, b
            0.5, 0, 1, 0, 7, 7]     # key 1 (t = 1): a, v, b (unused)
    values = np.array(flat, dtype=float).reshape(-1, 2)
    # t = 0.5, td = 1: h = (0.5, 0.125, 0.5, -0.125)
    # w = 0.5*(0,1) + 0.125*(1,-1) + 0.5*(1,0) - 0.125*(0.5,0) = (0.5625, 0.375)
    out = I.evaluate("CUBICSPLINE", [0.0, 1.0], values, [0.5])
    assert np.allclose(out, [[0.5625, 0.375]], atol=1e-15)


def test_cubicspline_ignores_first_in_and_last_out_tangent():
    values = [[np.nan], [1.0], [0.0], [0.0], [2.0], [np.inf]]
    out = I.evaluate("CUBICSPLINE", [0.0, 1.0], values, [-1.0, 0.0, 0.5, 1.0, 2.0])
    # zero tangents: p(0.5) = 0.5*1 + 0.5*2 = 1.5
    assert np.allclose(out[:, 0], [1.0, 1.0, 1.5, 2.0, 2.0], atol=1e-15)


def test_cubicspline_rotation_is_normalized():
    # Zero tangents at t = 0.5: 0.5 (v0 + v1), normalized: halfway between 0 and 90 = 45 degrees.
    values = interleave([ZERO, ZERO], [z(0), z(90)], [ZERO, ZERO])
    out = I.evaluate("CUBICSPLINE", [0.0, 1.0], values, [0.5], rotation=True)
    assert np.allclose(out, [z(45)], atol=1e-15)
    # With tangents, td = 1, t = 0.5: 0.5 v0 + 0.125 b0 + 0.5 v1 - 0.125 a1, then normalized.
    b0, a1 = np.array([0.0, 0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0, -0.5])
    raw = 0.5 * z(0) + 0.125 * b0 + 0.5 * z(90) - 0.125 * a1
    values = interleave([ZERO, a1], [z(0), z(90)], [b0, ZERO])
    out = I.evaluate("CUBICSPLINE", [0.0, 1.0], values, [0.5], rotation=True)
    assert np.allclose(out, [raw / np.linalg.norm(raw)], atol=1e-15)


def test_cubicslerp_one_segment_worked_by_hand():
    # All about Z, so each slerp interpolates angles: P = 0 + t*90, S = 30 + t*(50-30),
    # q = P + 2t(1-t)(S - P). t = 0.5: P = 45, S = 40, 2t(1-t) = 0.5 -> 42.5 degrees.
    # t = 0.25: P = 22.5, S = 35, 2t(1-t) = 0.375 -> 27.1875 degrees.
    # a_1 and b_2 are zeros, as the draft suggests: never used.
    values = interleave([ZERO, z(50)], [z(0), z(90)], [z(30), ZERO])
    out = I.evaluate("CUBICSLERP", [0.0, 2.0], values, [1.0, 0.5], rotation=True)
    assert np.allclose(out, [z(42.5), z(27.1875)], atol=1e-15)


def test_cubicslerp_uneven_key_spacing_worked_by_hand():
    # times [0, 1, 4]; keys 0, 40, 100 degrees; b_1 = 10, a_2 = b_2 = 50, a_3 = 110.
    # 0.5 -> segment 1, t = 0.5: P = 20, S = 30 -> 25.
    # 2.5 -> segment 2 (duration 3), t = 0.5: P = 70, S = 80 -> 75.
    # 1.75 -> segment 2, t = 0.25, 2t(1-t) = 0.375: P = 55, S = 65 -> 58.75.
    values = interleave([ZERO, z(50), z(110)], [z(0), z(40), z(100)], [z(10), z(50), ZERO])
    out = I.evaluate("CUBICSLERP", [0.0, 1.0, 4.0], values, [0.5, 2.5, 1.75], rotation=True)
    assert np.allclose(out, [z(25), z(75), z(58.75)], atol=1e-15)


def test_hold_segments_stay_at_the_key():
    # Identical (or sign-flipped, the same rotation) neighbours: Appendix C's lerp branch; the
    # rotation held between them is the key itself.
    q = about((1, 2, 3), 50)
    for other in (q, -q):
        out = I.evaluate("LINEAR", [0.0, 1.0], [q, other], [0.25, 0.5, 0.75], rotation=True)
        assert np.allclose(out, [q, q, q], atol=1e-16)
        values = interleave([q, other], [q, other], [q, other])
        out = I.evaluate("CUBICSLERP", [0.0, 1.0], values, [0.25, 0.5, 0.75], rotation=True)
        assert np.allclose(out, [q, q, q], atol=1e-16)


def test_half_turn_segment_goes_through_quarter_turn():
    # 0 to 180 degrees about Z: dot = 0, both ways are equally short; either way the midpoint is a
    # 90-degree rotation about +-Z and the result is unit length.
    out = I.evaluate("LINEAR", [0.0, 1.0], [z(0), z(180)], [0.5], rotation=True)
    assert abs(abs(out[0, 2]) - math.sqrt(0.5)) < 1e-15 and abs(out[0, 3] - math.sqrt(0.5)) < 1e-15


# --- clamping, keys as stored, one key ------------------------------------------------------------

ODD = np.array([0.0, 0.0, 0.6000000000000001, 0.8000000000000002])  # slightly off unit on purpose


def samplers():
    """(interpolation, times, values, keys, rotation) cases with awkward binary key times."""
    times = np.array([0.1, 0.7, 1.3])
    rot_keys = np.array([z(10), ODD, z(170)])
    vec_keys = np.array([[0.1, 0.2, 0.3], [1.0 / 3.0, -2.0, 1e-300], [7.0, 8.0, 9.0]])
    tangents = np.array([z(20), z(80), z(160)])
    return [
        ("STEP", times, vec_keys, vec_keys, False),
        ("LINEAR", times, vec_keys, vec_keys, False),
        ("LINEAR", times, rot_keys, rot_keys, True),
        ("CUBICSPLINE", times, interleave(vec_keys, vec_keys, vec_keys), vec_keys, False),
        ("CUBICSPLINE", times, interleave(tangents, rot_keys, tangents), rot_keys, True),
        ("CUBICSLERP", times, interleave(tangents, rot_keys, tangents), rot_keys, True),
    ]


@pytest.mark.parametrize("case", samplers(), ids=lambda c: f"{c[0]}-{'rot' if c[4] else 'vec'}")
def test_key_times_return_stored_values_and_outside_is_clamped(case):
    name, times, values, keys, rotation = case
    query = np.array([-5.0, 0.0, 0.1, 0.7, 1.3, 1.3000000000000003, 99.0])
    out = I.evaluate(name, times, values, query, rotation=rotation)
    expected = keys[[0, 0, 0, 1, 2, 2, 2]]
    assert np.array_equal(out, expected)          # bit for bit, not normalized


@pytest.mark.parametrize("name", I.INTERPOLATIONS)
def test_one_key_is_constant(name):
    key = np.array([ODD])
    values = interleave([ZERO], key, [ZERO]) if name in ("CUBICSPLINE", "CUBICSLERP") else key
    out = I.evaluate(name, [2.0], values, [-1.0, 2.0, 3.5], rotation=True)
    assert np.array_equal(out, np.repeat(key, 3, axis=0))


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        I.evaluate("HERMITE", [0.0, 1.0], [[0.0], [1.0]], [0.5])
    with pytest.raises(ValueError):          # CUBICSPLINE needs 3 rows per key
        I.evaluate("CUBICSPLINE", [0.0, 1.0], [[0.0], [1.0]], [0.5])
    with pytest.raises(ValueError):          # quaternions have 4 components
        I.evaluate("CUBICSLERP", [0.0, 1.0], np.zeros((6, 3)), [0.5])


# --- properties against a scalar reference ------------------------------------------------------

def tutorial_slerp(a, b, u):
    """The glTF tutorial's slerp pseudo-code in plain Python floats (threshold tightened)."""
    d = sum(x * y for x, y in zip(a, b))
    if d < 0.0:
        b, d = [-x for x in b], -d
    if d > 1.0 - 1e-15:
        r = [x + u * (y - x) for x, y in zip(a, b)]
        n = math.sqrt(sum(x * x for x in r))
        return [x / n for x in r]
    theta_0 = math.acos(d)
    theta = u * theta_0
    wb = math.sin(theta) / math.sin(theta_0)
    wa = math.cos(theta) - d * wb
    return [wa * x + wb * y for x, y in zip(a, b)]


def reference_sample(name, times, values, tc):
    """One sample, by bisect and the tutorial slerp: clamping, segment lookup, formula."""
    n = len(times)
    keys = values[1::3] if name == "CUBICSLERP" else values
    if tc <= times[0]:
        return list(keys[0])
    if tc >= times[-1]:
        return list(keys[-1])
    k = bisect.bisect_right(list(times), tc) - 1
    k = min(k, n - 2)
    u = (tc - times[k]) / (times[k + 1] - times[k])
    if name == "LINEAR":
        q = tutorial_slerp(list(keys[k]), list(keys[k + 1]), u)
    else:
        p = tutorial_slerp(list(values[3 * k + 1]), list(values[3 * k + 4]), u)
        s = tutorial_slerp(list(values[3 * k + 2]), list(values[3 * k + 3]), u)
        q = tutorial_slerp(p, s, 2 * u * (1 - u))
    norm = math.sqrt(sum(x * x for x in q))
    return [x / norm for x in q]


def random_track(seed, n, wobble):
    """n keys (random walk, consecutive dot >= 0), time-aware control points, perturbed tangents."""
    rng = np.random.default_rng(seed)
    keys = [about(rng.normal(size=3), rng.uniform(0, 360))]
    for _ in range(n - 1):
        keys.append(Q.multiply(keys[-1], about(rng.normal(size=3), rng.uniform(0, 100))))
    keys = Q.make_continuous(np.array(keys))
    times = np.cumsum(rng.uniform(0.05, 2.0, n))
    s = Q.control_points(times, keys)
    a = Q.multiply(s, about(rng.normal(size=3), wobble) * np.ones((n, 1)))
    b = Q.multiply(s, about(rng.normal(size=3), -wobble) * np.ones((n, 1)))
    return times, keys, interleave(a, keys, b)


@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.floats(0.0, 40.0))
def test_linear_and_cubicslerp_match_scalar_reference(seed, n, wobble):
    times, keys, values = random_track(seed, n, wobble)
    rng = np.random.default_rng(seed + 1)
    query = np.concatenate([rng.uniform(times[0] - 1, times[-1] + 1, 40), times])
    for name, data in (("LINEAR", keys), ("CUBICSLERP", values)):
        out = I.evaluate(name, times, data, query, rotation=True)
        expected = np.array([reference_sample(name, times, data, tc) for tc in query])
        same_sign = np.where(np.einsum("ij,ij->i", out, expected) < 0, -1.0, 1.0)[:, None]
        assert np.allclose(out, same_sign * expected, atol=1e-12)
        assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-14)


def sign_rules_hold(values):
    a, v, b = values[0::3], values[1::3], values[2::3]
    pairs = ((v[:-1], v[1:]), (v[:-1], b[:-1]), (v[1:], a[1:]), (b[:-1], a[1:]))
    return all(np.all(np.einsum("ij,ij->i", x, y) >= 0.0) for x, y in pairs)


@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.floats(0.0, 30.0), st.data())
def test_cubicslerp_is_invariant_to_quaternion_signs(seed, n, wobble, data):
    times, _, values = random_track(seed, n, wobble)
    assume(sign_rules_hold(values))
    row = data.draw(st.integers(0, 3 * n - 1))
    flipped = values.copy()
    flipped[row] *= -1.0
    query = np.linspace(times[0] - 0.5, times[-1] + 0.5, 301)
    original = I.evaluate("CUBICSLERP", times, values, query, rotation=True)
    other = I.evaluate("CUBICSLERP", times, flipped, query, rotation=True)
    assert np.max(Q.angle_between(original, other)) < 1e-9


@given(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=12, unique=True),
       st.integers(0, 2**32 - 1))
def test_key_times_are_exact_for_any_times(raw_times, seed):
    times = np.sort(np.array(raw_times))
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(len(times), 3))
    for name in ("STEP", "LINEAR"):
        assert np.array_equal(I.evaluate(name, times, values, times), values)
    tangents = rng.normal(size=(len(times), 3))
    cubic = interleave(tangents, values, tangents)
    assert np.array_equal(I.evaluate("CUBICSPLINE", times, cubic, times), values)


def test_equal_key_times_step_instead_of_dividing_by_zero():
    """The validator's own valid.gltf has key times [0, 0] (an accessor without data): the value
    jumps at t = 0 to the last key, as clamping after the last key requires, with no NaN."""
    values = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with np.errstate(all="raise"):
        out = I.evaluate("LINEAR", np.array([0.0, 0.0]), values, np.array([-1.0, 0.0, 0.5]))
    assert np.isfinite(out).all()
    np.testing.assert_array_equal(out[2], values[1])


@given(st.lists(st.floats(-50, 50), min_size=2, max_size=12),
       st.lists(st.floats(-60, 60), max_size=80), st.booleans())
def test_segment_index_is_the_last_key_at_or_before_each_query(keys, queries, repeat_a_key):
    """Both ways (sorted queries, any queries) against bisect_right - 1 per query, clamped to the
    first and last segment; repeated key times (jumps) and queries on keys included."""
    times = np.sort(np.array(keys + keys[:1] if repeat_a_key else keys))
    query = np.sort(np.concatenate([queries, times[::2]]))
    expected = [min(max(bisect.bisect_right(times.tolist(), q) - 1, 0), len(times) - 2) for q in query]
    assert segments.segment_index(times, query, ordered=True).tolist() == expected
    assert segments.segment_index(times, query[::-1]).tolist() == expected[::-1]
    out = np.empty(len(query), dtype=np.int64)
    assert segments.segment_index(times, query, ordered=True, out=out) is out and out.tolist() == expected


@given(st.lists(st.integers(-400, 400), min_size=2, max_size=12, unique=True),
       st.lists(st.integers(-1000, 1000), max_size=80))
def test_nearest_index_is_the_closest_key_earlier_on_a_tie(keys, queries):
    """Against the first minimum of |times - q| per query, in exact arithmetic (fractions), on
    grids of frames as the callers have them (keys in eighths, queries in sixteenths: float
    subtraction is exact there; keys and midpoints included)."""
    times = np.sort(np.array(keys)) / 8.0
    query = np.concatenate([np.array(queries) / 16.0, times, 0.5 * (times[1:] + times[:-1])])
    exact = [Fraction(t) for t in times]
    expected = [min(range(len(times)), key=lambda i: abs(exact[i] - Fraction(q))) for q in query]
    assert segments.nearest_index(times, query).tolist() == expected
