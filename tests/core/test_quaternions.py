"""core.sampling.quaternions against hand-worked values and independent formulas.

Independent references used here: quaternions built from axis-angle by hand, rotation matrices by
Rodrigues' formula, rotation angles from matrix traces, and relative rotations composed through
Rodrigues matrices, none of which go through the module under test.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gltf_sqlerp.core.sampling import chords
from gltf_sqlerp.core.sampling import rotation_matrices
from gltf_sqlerp.core.sampling import quaternions as Q

S22 = math.sin(math.radians(22.5))
C22 = math.cos(math.radians(22.5))


def about(axis, degrees):
    """Quaternion (x, y, z, w) of a rotation by `degrees` about `axis`: (axis sin a/2, cos a/2)."""
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    half = math.radians(degrees) / 2.0
    return np.array([*(axis * math.sin(half)), math.cos(half)])


def rodrigues(axis, degrees):
    """Rotation matrix I + sin(a) K + (1 - cos(a)) K^2 for a unit axis."""
    x, y, z = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    a = math.radians(degrees)
    return np.eye(3) + math.sin(a) * k + (1.0 - math.cos(a)) * (k @ k)


def trace_angle(m1, m2):
    """Angle in degrees of the relative rotation m1^T m2: arccos((trace - 1) / 2)."""
    c = (np.trace(m1.T @ m2) - 1.0) / 2.0
    return math.degrees(math.acos(min(1.0, max(-1.0, c))))


axes = st.tuples(*[st.floats(-1.0, 1.0)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1)
angles = st.floats(-359.0, 359.0)
unit_quats = st.tuples(*[st.floats(-1.0, 1.0)] * 4).filter(
    lambda q: np.linalg.norm(q) > 0.1).map(lambda q: np.asarray(q) / np.linalg.norm(q))
fractions = st.floats(0.0, 1.0)


# --- hand-worked values --------------------------------------------------------------------------

def test_multiply_basis_units_follow_hamilton_rules():
    i, j, k = np.eye(4)[0], np.eye(4)[1], np.eye(4)[2]
    assert np.array_equal(Q.multiply(i, j), k)          # ij = k
    assert np.array_equal(Q.multiply(j, i), -k)         # ji = -k
    assert np.array_equal(Q.multiply(k, k), [0, 0, 0, -1])  # k^2 = -1


def test_conjugate_is_inverse_of_unit_quaternion():
    q = about((1, 2, 3), 70)
    assert np.allclose(Q.multiply(q, Q.conjugate(q)), [0, 0, 0, 1], atol=1e-15)
    assert np.array_equal(Q.conjugate([1.0, 2.0, 3.0, 4.0]), [-1.0, -2.0, -3.0, 4.0])


def test_normalize_hand_value_and_zero_stays_zero():
    assert np.allclose(Q.normalize([0.0, 3.0, 0.0, 4.0]), [0.0, 0.6, 0.0, 0.8], atol=1e-16)
    assert np.array_equal(Q.normalize(np.zeros((2, 4))), np.zeros((2, 4)))


def test_dot_hand_value():
    assert Q.dot([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]) == 70.0


def test_to_matrix_quarter_turn_about_z_maps_x_to_y():
    m = rotation_matrices.to_matrix(about((0, 0, 1), 90))
    assert np.allclose(m, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_slerp_quarter_turn_about_z_at_half_is_eighth_turn():
    # Appendix C: 90 degrees about Z at t = 0.5 -> 45 degrees about Z = (0, 0, sin 22.5, cos 22.5).
    r = Q.slerp([0, 0, 0, 1], about((0, 0, 1), 90), 0.5)
    assert np.allclose(r, [0, 0, S22, C22], atol=1e-15)


def test_slerp_takes_short_path_when_dot_is_negative():
    # -q90 is the same rotation; Appendix C multiplies it by sign(dot) = -1: the same result.
    r = Q.slerp([0, 0, 0, 1], -about((0, 0, 1), 90), 0.5)
    assert np.allclose(r, [0, 0, S22, C22], atol=1e-15)
    # 270 degrees about Z is -90 degrees: the short way passes -45 degrees.
    r = Q.slerp([0, 0, 0, 1], about((0, 0, 1), 270), 0.5)
    assert abs(abs(r @ about((0, 0, 1), -45)) - 1.0) < 1e-15


def test_slerp_of_identical_and_nearly_identical_quaternions():
    q = about((1, 1, 0), 40)
    assert np.allclose(Q.slerp(q, q, 0.3), q, atol=1e-16)
    # 2e-9 degrees apart: the lerp branch; the result must still be the rotation at 0.3 of the way.
    near = Q.slerp(about((0, 0, 1), 10), about((0, 0, 1), 10 + 2e-9), 0.3)
    assert np.allclose(near, about((0, 0, 1), 10 + 0.6e-9), atol=1e-17)
    assert abs(np.linalg.norm(near) - 1.0) < 1e-15


def test_log_exp_hand_values():
    assert np.allclose(Q.log(about((0, 0, 1), 90)), [0, 0, math.pi / 4], atol=1e-15)
    half = math.sqrt(0.5)
    assert np.allclose(Q.exp([0, 0, math.pi / 4]), [0, 0, half, half], atol=1e-15)
    assert np.array_equal(Q.log([0.0, 0.0, 0.0, 1.0]), [0.0, 0.0, 0.0])
    assert np.array_equal(Q.exp([0.0, 0.0, 0.0]), [0.0, 0.0, 0.0, 1.0])
    # atan2(1e-20, 1) = 1e-20: no loss of the tiny angle.
    assert np.allclose(Q.log([1e-20, 0.0, 0.0, 1.0]), [1e-20, 0, 0], rtol=1e-15, atol=0)
    # log of -q equals log of q (half angle at most 90 degrees): 300 degrees is -60 degrees.
    assert np.allclose(Q.log(about((0, 0, 1), 300)), [0, 0, -math.pi / 6], atol=1e-15)
    assert np.allclose(Q.log(-about((0, 0, 1), 60)), [0, 0, math.pi / 6], atol=1e-15)


def test_angle_between_hand_values():
    assert Q.angle_between([0, 0, 0, 1], about((0, 0, 1), 90)) == pytest.approx(90.0, abs=1e-12)
    q = about((1, 2, 3), 33)
    assert Q.angle_between(q, -q) == pytest.approx(0.0, abs=1e-12)
    angle = Q.angle_between(about((0, 1, 0), 350), about((0, 1, 0), 10))
    assert angle == pytest.approx(20.0, abs=1e-12)


def test_make_continuous_flips_running_signs():
    q = about((0, 0, 1), 30)
    out = Q.make_continuous(np.array([q, -q, q, q, -q]))
    assert np.array_equal(out, np.array([q, q, q, q, q]))


def test_sqlerp_one_segment_about_z_worked_by_hand():
    # All about Z, so every slerp interpolates rotation angles linearly:
    # P = a0 + t (a1 - a0), S = b0 + t (c1 - b0), result = P + 2t(1-t) (S - P).
    v0, b0, a1, v1 = (about((0, 0, 1), d) for d in (0.0, 30.0, 50.0, 90.0))
    # t = 0.5: P = 45, S = 40, 2t(1-t) = 0.5 -> 42.5 degrees.
    assert np.allclose(Q.sqlerp(v0, b0, a1, v1, 0.5), about((0, 0, 1), 42.5), atol=1e-15)
    # t = 0.25: P = 22.5, S = 35, 2t(1-t) = 0.375 -> 22.5 + 0.375 * 12.5 = 27.1875 degrees.
    assert np.allclose(Q.sqlerp(v0, b0, a1, v1, 0.25), about((0, 0, 1), 27.1875), atol=1e-15)


def test_control_points_about_z_worked_by_hand():
    keys = np.array([about((0, 0, 1), d) for d in (0.0, 60.0, 90.0)])
    # Equal spacing: L_prev = -30 deg (half of -60), L_next = +15 deg (half of +30):
    # s = v exp(-(L_prev + L_next) / 4) = v exp(+3.75 deg half angle) -> 60 + 7.5 = 67.5 degrees.
    s = Q.control_points([0.0, 1.0, 2.0], keys)
    assert np.allclose(s[1], about((0, 0, 1), 67.5), atol=1e-15)
    assert np.array_equal(s[0], keys[0]) and np.array_equal(s[2], keys[2])
    # h_p = 1, h_n = 2: exponent -(2 L_prev + 1 L_next) / (2 * 3) = -(-60 + 15) / 6 = 7.5 deg half
    # angle -> 60 + 15 = 75 degrees.
    s = Q.control_points([0.0, 1.0, 3.0], keys)
    assert np.allclose(s[1], about((0, 0, 1), 75.0), atol=1e-15)


# --- properties against independent formulas ----------------------------------------------------

@given(axes, angles, axes, st.floats(-170.0, 170.0), fractions)
def test_slerp_matches_axis_angle_formula(axis0, deg0, axis, deg, t):
    # b = a * R(axis, deg) with |deg| < 180: slerp(a, b, t) = a * R(axis, t deg), composed here
    # through Rodrigues matrices, so neither side uses Q.multiply.
    a, step = about(axis0, deg0), about(axis, deg)
    b = Q.multiply(a, step)
    for sign in (1.0, -1.0):          # the sign of b must not matter
        r = Q.slerp(a, sign * b, t)
        assert abs(np.linalg.norm(r) - 1.0) < 1e-14
        expected = rodrigues(axis0, deg0) @ rodrigues(axis, t * deg)
        assert np.allclose(rotation_matrices.to_matrix(r), expected, atol=1e-12)


def chord_angle(p, q):
    """Rotation angle (degrees) between unit quaternions from the chord |p - q| of the nearer sign:
    accurate for small angles too, where acos(|p.q|) cannot resolve below ~2e-6 degrees."""
    q = q if p @ q >= 0.0 else -q
    return 4.0 * math.degrees(math.asin(min(1.0, np.linalg.norm(p - q) / 2.0)))


@given(unit_quats, unit_quats)
def test_slerp_endpoints_and_shortest_path(a, b):
    assert np.allclose(Q.slerp(a, b, 0.0), a, atol=1e-15)
    assert abs(abs(Q.slerp(a, b, 1.0) @ b) - 1.0) < 1e-14      # same rotation as b
    full = chord_angle(a, b)  # rotation angle a -> b
    for t in (0.1, 0.5, 0.9):
        r = Q.slerp(a, b, t)
        assert abs(np.linalg.norm(r) - 1.0) < 1e-14
        part = chord_angle(a, r)
        assert part <= full + 1e-6
        assert part == pytest.approx(t * full, abs=1e-5)


@given(axes, angles, axes, angles)
def test_angle_between_matches_rotation_matrix_trace(axis1, deg1, axis2, deg2):
    m1, m2 = rodrigues(axis1, deg1), rodrigues(axis2, deg2)
    expected = trace_angle(m1, m2)
    assume(1e-3 < expected < 179.999)    # arccos loses digits where its slope is infinite
    angle = Q.angle_between(about(axis1, deg1), about(axis2, deg2))
    assert angle == pytest.approx(expected, abs=1e-9)


@given(axes, angles)
def test_to_matrix_matches_rodrigues(axis, deg):
    assert np.allclose(rotation_matrices.to_matrix(about(axis, deg)), rodrigues(axis, deg), atol=1e-14)
    assert np.allclose(rotation_matrices.to_matrix(3.0 * about(axis, deg)), rodrigues(axis, deg), atol=1e-14)


@given(axes, angles, axes, angles)
def test_multiply_composes_rotation_matrices(axis1, deg1, axis2, deg2):
    product = Q.multiply(about(axis1, deg1), about(axis2, deg2))
    expected = rodrigues(axis1, deg1) @ rodrigues(axis2, deg2)
    assert np.allclose(rotation_matrices.to_matrix(product), expected, atol=1e-13)


@given(axes, st.floats(-359.9, 359.9))
def test_log_is_half_angle_vector_of_shorter_rotation(axis, deg):
    # Independent: rotation by deg about axis is rotation by deg' in [-180, 180] about that axis;
    # its half-angle vector is axis * deg'/2 in radians. At exactly +-180 degrees w = cos(+-90)
    # rounds to +6e-17, so the quaternion itself is the shorter one: deg' = deg there.
    short = deg if abs(deg) <= 180.0 else deg - math.copysign(360.0, deg)
    unit = np.asarray(axis) / np.linalg.norm(axis)
    assert np.allclose(Q.log(about(axis, deg)), unit * math.radians(short) / 2.0, atol=1e-13)


@given(unit_quats)
def test_exp_log_round_trip(q):
    back = Q.exp(Q.log(q))
    assert np.allclose(back, q if q[3] >= 0 else -q, atol=1e-14)


@given(axes, st.floats(0.0, 89.9))
def test_log_exp_round_trip(axis, half_deg):
    v = np.asarray(axis) / np.linalg.norm(axis) * math.radians(half_deg)
    assert np.allclose(Q.log(Q.exp(v)), v, atol=1e-14)


@given(st.lists(unit_quats, min_size=1, max_size=8),
       st.lists(st.booleans(), min_size=8, max_size=8))
def test_make_continuous_gives_nonnegative_dots_and_same_rotations(quats, flips):
    q = np.array(quats) * np.where(flips[:len(quats)], -1.0, 1.0)[:, None]
    out = Q.make_continuous(q)
    assert np.all(np.einsum("ij,ij->i", out[:-1], out[1:]) >= 0.0)
    assert np.all(np.abs(np.abs(out) - np.abs(q)) == 0.0)   # each row is +q or -q


# --- CUBICSLERP (spec "CUBICSLERP Interpolation") ---------------------------------------------------------

def random_walk(seed, n, step=1.0):
    """n unit keys, consecutive rotations at most `step` radians of half angle apart, dot >= 0."""
    rng = np.random.default_rng(seed)
    keys = [about(rng.normal(size=3), rng.uniform(0, 360))]
    for _ in range(n - 1):
        turn = math.degrees(rng.uniform(0, 2 * step))
        keys.append(Q.multiply(keys[-1], about(rng.normal(size=3), turn)))
    return Q.make_continuous(np.array(keys))


@given(st.integers(0, 2**32 - 1), fractions)
def test_sqlerp_passes_through_keys_and_reduces_to_slerp(seed, t):
    v0, b0, a1, v1 = random_walk(seed, 4)
    assert np.allclose(Q.sqlerp(v0, b0, a1, v1, 0.0), v0, atol=1e-15)
    assert abs(abs(Q.sqlerp(v0, b0, a1, v1, 1.0) @ v1) - 1.0) < 1e-14
    # Tangents equal to their keys (a_i = b_i = v_i): both inner slerps agree: the curve is slerp.
    expected = rotation_matrices.to_matrix(Q.slerp(v0, v1, t))
    assert np.allclose(rotation_matrices.to_matrix(Q.sqlerp(v0, v0, v1, v1, t)), expected, atol=1e-13)


def rodrigues_log(m):
    """Rotation vector (radians) of a rotation matrix, from its antisymmetric part and trace."""
    angle = math.acos(min(1.0, max(-1.0, (np.trace(m) - 1.0) / 2.0)))
    w = np.array([m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1]])
    return w * (0.5 if angle < 1e-12 else angle / (2.0 * math.sin(angle)))


def body_velocity(q_from, q_to, dt):
    """Body-frame angular velocity (rad/s) between two nearby rotations, from matrices."""
    return rodrigues_log(rotation_matrices.to_matrix(q_from).T @ rotation_matrices.to_matrix(q_to)) / dt


@settings(max_examples=40)
@given(st.integers(0, 2**32 - 1), st.floats(0.2, 3.0), st.floats(0.2, 3.0))
def test_control_points_give_c1_angular_velocity_at_keys(seed, h_p, h_n):
    v = random_walk(seed, 3, step=0.8)
    s = Q.control_points([0.0, h_p, h_p + h_n], v)

    def left(u):      # segment 0, local time u before the middle key
        return Q.sqlerp(v[0], s[0], s[1], v[1], 1.0 - u / h_p)

    def right(u):     # segment 1, local time u after the middle key
        return Q.sqlerp(v[1], s[1], s[2], v[2], u / h_n)

    def one_sided(curve, sign, dt):
        # first-order differences over dt and 2 dt, Richardson-extrapolated to dt -> 0: O(dt^2)
        def diff(d):
            pair = (curve(d), curve(0.0)) if sign < 0 else (curve(0.0), curve(d))
            return body_velocity(*pair, d)
        return 2.0 * diff(dt) - diff(2.0 * dt)

    w_in, w_out = one_sided(left, -1, 1e-5), one_sided(right, +1, 1e-5)
    assert np.allclose(w_in, w_out, atol=1e-6 * (1.0 + float(np.linalg.norm(w_out))))


def test_plain_tangents_have_a_velocity_corner_the_c1_check_sees():
    # Guard for the test above: with a_i = b_i = v_i (slerp between keys) the same measurement
    # must find different velocities on the two sides of the middle key.
    # 40 degrees about Z in one second, then 30 degrees about the body X axis in the next.
    v = np.array([about((0, 0, 1), 0), about((0, 0, 1), 40),
                  Q.multiply(about((0, 0, 1), 40), about((1, 0, 0), 30))])
    dt = 1e-6
    w_in = body_velocity(Q.sqlerp(v[0], v[0], v[1], v[1], 1.0 - dt), v[1], dt)
    w_out = body_velocity(v[1], Q.sqlerp(v[1], v[1], v[2], v[2], dt), dt)
    assert np.allclose(w_in, [0, 0, math.radians(40)], atol=1e-6)
    assert np.allclose(w_out, [math.radians(30), 0, 0], atol=1e-6)


def shoemake_reference(keys):
    """Shoemake's equal-spacing rule v_i exp(-(L_prev + L_next)/4), through matrices only."""
    out = []
    for i in range(1, len(keys) - 1):
        m = rotation_matrices.to_matrix(keys[i])
        # rotation vectors are full angles; half-angle logs are half of them
        l_prev = rodrigues_log(m.T @ rotation_matrices.to_matrix(keys[i - 1])) / 2.0
        l_next = rodrigues_log(m.T @ rotation_matrices.to_matrix(keys[i + 1])) / 2.0
        x = -(l_prev + l_next) / 4.0
        angle = 2.0 * np.linalg.norm(x)
        axis = x if angle > 0 else np.array([1.0, 0.0, 0.0])
        out.append(m @ rodrigues(axis, math.degrees(angle)))
    return out


@given(st.integers(0, 2**32 - 1), st.floats(0.01, 10.0))
def test_control_points_equal_spacing_is_shoemake(seed, h):
    keys = random_walk(seed, 5, step=1.2)
    s = Q.control_points(h * np.arange(5.0), keys)
    for got, expected in zip(s[1:-1], shoemake_reference(keys)):
        assert np.allclose(rotation_matrices.to_matrix(got), expected, atol=1e-9)


def test_a_constant_factor_gives_the_same_product_as_row_by_row():
    """multiply(constant, many) and multiply(many, constant) take a matrix shortcut; the general
    row-by-row product is the reference."""
    rng = np.random.default_rng(0)
    a, many = rng.normal(size=4), rng.normal(size=(50, 4))
    row_by_row_left = np.array([Q.multiply(a[None], q[None])[0] for q in many])
    row_by_row_right = np.array([Q.multiply(q[None], a[None])[0] for q in many])
    assert np.abs(Q.multiply(a, many) - row_by_row_left).max() < 1e-14
    assert np.abs(Q.multiply(many, a) - row_by_row_right).max() < 1e-14


def test_chord2_limit_never_reports_a_maximum_over_its_tolerance():
    # The angle of a squared chord, 4 asin(sqrt(c) / 2), worked with math's own functions: at the
    # limit it never exceeds the tolerance, while the plain conversion does for some tolerances.
    def degrees(chord2):
        return math.degrees(4.0 * math.asin(math.sqrt(chord2) / 2.0))
    tolerances = np.random.default_rng(8).uniform(1e-3, 1.0, 2000)
    plain = [degrees(chords.degrees_to_chord2(t)) > t for t in tolerances]
    assert any(plain)  # the case the limit is for
    for t in tolerances:
        limit = chords.chord2_limit(t)
        assert chords.chord2_to_degrees(limit) <= t and degrees(limit) <= t * (1 + 1e-15)
        assert limit >= chords.degrees_to_chord2(t) * (1 - 1e-15)  # an ulp or two lower at most
