"""core.fitting.sqlerp_fit and core.fitting.fallback_fit against motions whose answers are known independently.

Independent references used here: quaternions built from axis-angle by hand (`about`), a CUBICSLERP
curve and a glTF CUBICSPLINE written out from the draft's and Appendix C's formulas in this file
(`ref_slerp`, `ref_sqlerp`, `ref_cubicspline`), and tangents worked out by hand for motions about
one axis, where every slerp is linear in the angle and a CUBICSLERP segment is any cubic angle
profile: angle(t) = lerp(t) + 2t(1-t) (beta - angle_0 + t (alpha - beta - delta)) with beta, alpha
the angles of b_k, a_{k+1} and delta the segment's rotation.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from helpers.sqlerp_refs import (FPS, about, check_grid, degrees_between, hamilton, key_times, moving_axis,
                                 ref_cubicspline, ref_slerp, ref_sqlerp, segment_of)

from gltf_sqlerp.core.sampling import chords
from gltf_sqlerp.core.sampling import quaternions as Q
from gltf_sqlerp.core.fitting.fallback_fit import cubicspline_fallback, linear_fallback
from gltf_sqlerp.core.sampling.interpolation import evaluate
from gltf_sqlerp.core.fitting.sqlerp_fit import FIT_DEFAULTS, CubicSlerpFit, FitOptions, fit_cubicslerp

def assert_sign_rules(fit):
    a, v, b = fit.in_tangents, fit.values, fit.out_tangents
    dot = lambda x, y: np.sum(x * y, axis=-1)  # noqa: E731
    assert (dot(v[:-1], v[1:]) >= 0).all()
    assert (dot(v[:-1], b[:-1]) >= 0).all()
    assert (dot(v[1:], a[1:]) >= 0).all()
    assert (dot(b[:-1], a[1:]) >= 0).all()
    np.testing.assert_array_equal(a[0], v[0])
    np.testing.assert_array_equal(b[-1], v[-1])
    for q in (a, v, b):
        np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-12)


def random_cubicslerp(rng, count, step_deg=60.0, tangent_deg=40.0):
    """Keys of a random CUBICSLERP curve built from axis-angle pieces; sign rules hold by design
    wherever b_k . a_k+1 >= 0 (checked by the callers)."""
    times = key_times(rng, count)
    steps = about(rng.normal(size=(count, 3)), rng.uniform(-step_deg, step_deg, count))
    v = np.empty((count, 4))
    v[0] = steps[0]
    for i in range(1, count):  # test data: a plain loop is clearest
        v[i] = hamilton(v[i - 1], steps[i])
        v[i] *= 1.0 if np.dot(v[i], v[i - 1]) >= 0 else -1.0
    # Offsets below 180 degrees keep v.b > 0 and v.a > 0 (their w is positive).
    b = hamilton(v, about(rng.normal(size=(count, 3)), rng.uniform(0, tangent_deg, count)))
    a = hamilton(v, about(rng.normal(size=(count, 3)), rng.uniform(0, tangent_deg, count)))
    a[0], b[-1] = v[0], v[-1]
    return times, a, v, b


def assert_reproduced(times, a, v, b):
    interleaved = np.stack([a, v, b], axis=1).reshape(-1, 4)
    target = lambda t: evaluate("CUBICSLERP", times, interleaved, t)  # noqa: E731
    fit = fit_cubicslerp(target, times, check_grid(times), tolerance_deg=1e-6)
    np.testing.assert_array_equal(fit.times, times)  # no extra key
    dense = check_grid(times, 32)
    assert degrees_between(fit.evaluate(dense), ref_sqlerp(times, a, v, b, dense)).max() < 1e-6
    # The tangents of a CUBICSLERP segment are determined by its curve: they come back.
    assert degrees_between(fit.out_tangents[:-1], b[:-1]).max() < 1e-6
    assert degrees_between(fit.in_tangents[1:], a[1:]).max() < 1e-6
    assert fit.max_error_deg < 1e-6
    assert_sign_rules(fit)


def test_a_cubicslerp_target_is_reproduced_with_its_own_keys():
    rng = np.random.default_rng(11)
    times, a, v, b = random_cubicslerp(rng, 40)
    assert (np.sum(b[:-1] * a[1:], axis=1) >= 0).all()
    assert_reproduced(times, a, v, b)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12))
def test_a_random_cubicslerp_curves_come_back(seed, count):
    times, a, v, b = random_cubicslerp(np.random.default_rng(seed), count)
    assume((np.sum(b[:-1] * a[1:], axis=1) >= 0).all())
    assert_reproduced(times, a, v, b)


def test_b_independent_motion_within_tolerance_with_few_keys():
    rng = np.random.default_rng(1)
    times = key_times(rng, 60)
    steps = degrees_between(moving_axis(times[:-1]), moving_axis(times[1:]))
    assert 100.0 < steps.max() < 120.0          # up to about 100 degrees between keys
    check = check_grid(times)
    outside = np.concatenate([[-0.5, -0.01], check, [times[-1] + 0.3]])  # ignored
    shuffled = np.concatenate([times[::-1], times[:5]])                   # order, duplicates
    fit = fit_cubicslerp(moving_axis, shuffled, outside, tolerance_deg=0.01)
    assert isinstance(fit, CubicSlerpFit)
    assert np.isin(times, fit.times).all() and (np.diff(fit.times) > 0).all()
    error = degrees_between(ref_sqlerp(fit.times, fit.in_tangents, fit.values, fit.out_tangents,
                                       check), moving_axis(check))
    assert error.max() <= 0.01 + 1e-9
    assert fit.max_error_deg == pytest.approx(error.max(), abs=1e-6)
    # Between check times nothing is promised, but the error curve is smooth at 8 samples per frame.
    denser = check_grid(times, 64)
    assert degrees_between(fit.evaluate(denser), moving_axis(denser)).max() <= 0.01 * 1.02
    assert_sign_rules(fit)
    frames = (times[-1] - times[0]) * FPS
    assert len(fit.times) < 0.5 * frames     # measured: 123 keys over 463 frames


def test_fit_options_and_their_fields_as_keywords_fit_the_same_keys():
    times = key_times(np.random.default_rng(3), 20).astype(np.float32).astype(np.float64)
    check = check_grid(times)
    by_keywords = fit_cubicslerp(moving_axis, times, check, tolerance_deg=0.02, written="SHORT", split_at="worst")
    by_object = fit_cubicslerp(moving_axis, times, check, FitOptions(0.02, written="SHORT", split_at="worst"))
    for name in ("times", "in_tangents", "values", "out_tangents"):
        np.testing.assert_array_equal(getattr(by_keywords, name), getattr(by_object, name))
    assert by_keywords.max_error_deg <= 0.02 and FIT_DEFAULTS.tolerance_deg == 0.01
    with pytest.raises(TypeError, match="tolerance"):
        fit_cubicslerp(moving_axis, times, check, tolerance=0.02)  # not an option's name
    with pytest.raises(ValueError, match="tolerance_deg must be positive"):
        fit_cubicslerp(moving_axis, times, check, tolerance_deg=0.0)


@pytest.mark.parametrize("written", ["FLOAT", "SHORT"])
def test_b_written_keys_are_what_a_reader_decodes_and_keep_the_tolerance(written):
    # The check plays the keys as a file stores them: float32 times (added keys too) and float32
    # or normalized 16-bit quaternions (glTF 2.0 3.11: c / 32767). The tangents aim lower.
    times = key_times(np.random.default_rng(1), 60).astype(np.float32).astype(np.float64)
    check = check_grid(times)
    fit = fit_cubicslerp(moving_axis, times, check, tolerance_deg=0.01, written=written, aim_deg=0.005)
    np.testing.assert_array_equal(fit.times, fit.times.astype(np.float32))
    rows = fit.interleaved()
    if written == "SHORT":
        np.testing.assert_allclose(rows * 32767.0, np.round(rows * 32767.0), rtol=0, atol=1e-9)
    else:
        np.testing.assert_array_equal(rows, rows.astype(np.float32))
    # A reader normalizes the decoded rotations (core.sampling.animation does) before it plays them.
    a, v, b = (q / np.linalg.norm(q, axis=1, keepdims=True)
               for q in (fit.in_tangents, fit.values, fit.out_tangents))
    error = degrees_between(ref_sqlerp(fit.times, a, v, b, check), moving_axis(check))
    assert error.max() <= 0.01 + 1e-9
    assert fit.max_error_deg == pytest.approx(error.max(), abs=1e-6)
    # The dense check's curve is kept for the fallbacks: the reference's values there, to 8 units
    # of float32 rounding (core.fitting.screening: its first pass is float32; measured below 3).
    inside = check[(check >= times[0]) & (check <= times[-1])]
    assert fit.check_times is not None and fit.played is not None
    np.testing.assert_array_equal(fit.check_times, inside)
    assert fit.played.dtype == np.float32
    reference = ref_sqlerp(fit.times, a, v, b, inside)
    assert np.sqrt(chords.chord2(fit.played.astype(np.float64), reference)).max() <= 8 * 2.0 ** -24


def test_b_max_keys_too_small_raises():
    times = key_times(np.random.default_rng(1), 60)
    with pytest.raises(ValueError, match="max_keys"):
        fit_cubicslerp(moving_axis, times, check_grid(times), tolerance_deg=0.01, max_keys=61)


def test_b_needs_two_key_times():
    with pytest.raises(ValueError, match="two"):
        fit_cubicslerp(moving_axis, [0.5, 0.5], np.linspace(0, 1, 9))


def test_c1_control_points_are_kept_where_they_follow_the_motion():
    # The time-aware control points s_i (spec "Tangents a writer starts from") give a C1 curve; measured here with the
    # reference evaluator, it stays within 0.2 degrees of this slow motion, so with a 0.5 degree
    # tolerance the fit keeps a_i = b_i = s_i everywhere.
    slow = lambda t: moving_axis(np.asarray(t) / 6.0)  # noqa: E731
    times = key_times(np.random.default_rng(2), 40)
    values = Q.make_continuous(slow(times))
    control = Q.control_points(times, values)
    dense = check_grid(times, 32)
    c1 = ref_sqlerp(times, control, values, control, dense)
    assert degrees_between(c1, slow(dense)).max() < 0.2
    fit = fit_cubicslerp(slow, times, check_grid(times), tolerance_deg=0.5)
    np.testing.assert_array_equal(fit.times, times)
    assert degrees_between(fit.in_tangents, control).max() < 1e-9
    assert degrees_between(fit.out_tangents, control).max() < 1e-9
    assert_sign_rules(fit)


def corner(t):
    """Accelerating 60 degrees about x until t = 1/2 s, then decelerating 50 degrees about y."""
    u = np.asarray(t, dtype=float) / 0.5
    first = about([1, 0, 0], 60.0 * np.clip(u, 0, 1) ** 2)
    v = np.clip(u - 1, 0, 1)
    second = hamilton(about([1, 0, 0], 60.0), about([0, 1, 0], 50.0 * (1 - (1 - v) ** 2)))
    return np.where((u <= 1)[..., None], first, second)


def test_c_corner_at_a_key_needs_no_extra_key():
    times = np.array([0.0, 0.5, 1.0])
    fit = fit_cubicslerp(corner, times, check_grid(times), tolerance_deg=0.01)
    np.testing.assert_array_equal(fit.times, times)
    dense = check_grid(times, 32)
    assert degrees_between(fit.evaluate(dense), corner(dense)).max() < 1e-6
    # By hand (module docstring): angle 60 u^2 = 60 u + 2u(1-u)(-30) gives b_1 = 30 degrees back,
    # a_2 = 30 degrees forward about x; 50(2u - u^2) = 50 u + 2u(1-u)(25) gives b_2 at 25 and
    # a_3 at 75 degrees about y after the corner.
    x60 = about([1, 0, 0], 60.0)
    expected_in = about([1, 0, 0], 30.0)
    expected_out = hamilton(x60, about([0, 1, 0], 25.0))
    assert degrees_between(fit.out_tangents[0], about([1, 0, 0], -30.0)) < 1e-6
    assert degrees_between(fit.in_tangents[1], expected_in) < 1e-6
    assert degrees_between(fit.out_tangents[1], expected_out) < 1e-6
    assert degrees_between(fit.in_tangents[2], hamilton(x60, about([0, 1, 0], 75.0))) < 1e-6
    assert degrees_between(fit.in_tangents[1], fit.out_tangents[1]) > 30.0  # a_i != b_i
    assert_sign_rules(fit)


@pytest.fixture(scope="module")
def fitted():
    times = key_times(np.random.default_rng(1), 60)
    return fit_cubicslerp(moving_axis, times, check_grid(times), tolerance_deg=0.01), times


def test_d_linear_fallback_within_its_tolerance(fitted):
    fit, times = fitted
    check = check_grid(times)
    linear_times, values, reported = linear_fallback(fit, check, tolerance_deg=0.1)
    assert np.isin(fit.times, linear_times).all() and (np.diff(linear_times) > 0).all()
    assert (np.sum(values[:-1] * values[1:], axis=1) >= 0).all()
    curve = ref_sqlerp(fit.times, fit.in_tangents, fit.values, fit.out_tangents, check)
    k, t, _ = segment_of(linear_times, check)
    error = degrees_between(ref_slerp(values[k], values[k + 1], t), curve)
    assert error.max() <= 0.1 + 1e-9
    assert reported == pytest.approx(error.max(), abs=1e-6)
    assert len(linear_times) < len(check) / 4


@pytest.mark.parametrize("written", ["FLOAT", "SHORT"])
def test_d_written_fallbacks_are_checked_as_a_reader_decodes_them(fitted, written):
    # A file stores float32 times and float32 or normalized 16-bit quaternions (glTF 2.0 3.11:
    # c / 32767); a reader normalizes the decoded rotations. The error reported is theirs.
    fit, times = fitted
    check = check_grid(times)
    curve = ref_sqlerp(fit.times, fit.in_tangents, fit.values, fit.out_tangents, check)
    linear_times, values, reported = linear_fallback(fit, check, tolerance_deg=0.1, written=written)
    np.testing.assert_array_equal(linear_times, linear_times.astype(np.float32))
    if written == "SHORT":
        np.testing.assert_allclose(values * 32767.0, np.round(values * 32767.0), rtol=0, atol=1e-9)
    else:
        np.testing.assert_array_equal(values, values.astype(np.float32))
    unit = values / np.linalg.norm(values, axis=1, keepdims=True)
    k, t, _ = segment_of(linear_times, check)
    error = degrees_between(ref_slerp(unit[k], unit[k + 1], t), curve).max()
    assert error <= 0.1 + 1e-9 and reported == pytest.approx(error, abs=1e-6)
    spline_times, interleaved, reported = cubicspline_fallback(fit, check, written="FLOAT")
    np.testing.assert_array_equal(interleaved, interleaved.astype(np.float32))
    error = degrees_between(ref_cubicspline(spline_times, interleaved, check), curve).max()
    assert reported == pytest.approx(error, abs=1e-6)


def test_d_cubicspline_fallback_error_is_what_it_reports(fitted):
    fit, times = fitted
    check = check_grid(times)
    spline_times, interleaved, reported = cubicspline_fallback(fit, check)
    np.testing.assert_array_equal(spline_times, fit.times)
    np.testing.assert_array_equal(interleaved[0], 0.0)
    np.testing.assert_array_equal(interleaved[-1], 0.0)
    np.testing.assert_allclose(interleaved[1::3], Q.make_continuous(fit.values), atol=0)
    curve = ref_sqlerp(fit.times, fit.in_tangents, fit.values, fit.out_tangents, check)
    error = degrees_between(ref_cubicspline(spline_times, interleaved, check), curve)
    assert reported == pytest.approx(error.max(), abs=1e-6)
    assert reported < 0.1   # the same keys, fitted tangents: close to the curve


def test_e_half_turn_between_keys_forces_an_extra_key():
    # Ease in and out through 179 degrees about z: as one segment it needs b_1 at -89.5 and a_2 at
    # 268.5 degrees (half-angles 134 degrees apart: b . a < 0, the 4th sign rule cannot hold).
    def half_turn(t):
        u = np.clip(np.asarray(t, dtype=float) / 0.5, 0, 1)
        return about([0, 0, 1], 179.0 * (3 * u**2 - 2 * u**3))
    times = np.array([0.0, 0.5])
    check = check_grid(times)
    fit = fit_cubicslerp(half_turn, times, check, tolerance_deg=0.01)
    assert len(fit.times) >= 3 and fit.times[0] == 0.0 and fit.times[-1] == 0.5
    assert degrees_between(fit.evaluate(check), half_turn(check)).max() <= 0.01 + 1e-9
    assert_sign_rules(fit)


def test_run_maxima_keep_the_last_element_before_empty_runs():
    """Per-segment maxima (used by the fitter's check and the LINEAR fallback) against a plain
    loop, with empty runs at the end: a clipped start once dropped the last error before them,
    and a fallback 0.147 degrees off passed as within 0.1."""
    from gltf_sqlerp.core.fitting.fallback_fit import segment_max
    from gltf_sqlerp.core.fitting.screening import group_max
    rng = np.random.default_rng(2)
    for _ in range(200):
        x = rng.uniform(0.0, 1.0, rng.integers(1, 12))
        starts = np.sort(rng.integers(0, len(x) + 1, rng.integers(1, 6)))
        ends = np.append(starts[1:], len(x))
        expected = [x[a:b].max() if b > a else 0.0 for a, b in zip(starts, ends)]
        assert np.array_equal(segment_max(x, starts), expected)
        assert np.array_equal(group_max(x, starts, ends - starts), expected)
