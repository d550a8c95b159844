"""core.fitting.screening: the float32 first pass of the dense checks.

Against the draft's formulas worked in float64 by the references of test_sqlerp_fit
(tests/helpers/sqlerp_refs.py: Appendix C slerp written out, CUBICSLERP as slerp of slerps), and
against the same fits and fallbacks with every segment checked in float64: the first pass may only
save work, never change what is accepted or reported.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gltf_sqlerp.core.sampling import chords
from gltf_sqlerp.core.sampling import quaternions as Q
from gltf_sqlerp.core.fitting import screening, sqlerp_fit
from gltf_sqlerp.core.fitting.fallback_fit import cubicspline_fallback, linear_fallback
from gltf_sqlerp.core.fitting.sqlerp_fit import fit_cubicslerp
from helpers.sqlerp_refs import segment_of, check_grid, key_times, moving_axis, ref_slerp, ref_sqlerp

U = 2.0 ** -24  # a unit of float32 rounding
# What the tests hold a float32 curve to, and a chord of float32-rounded rotations. The margin
# must cover two curves (the LINEAR fallback compares its slerp with the screened CUBICSLERP
# curve) and the chord: 8 + 8 + 4 units.
CURVE_BOUND, CHORD_BOUND = 8 * U, 4 * U
def _unit_rows(draw, count):
    """Unit quaternions with some neighbours nearly equal or nearly opposite (the slerp branches
    where rounding hurts most)."""
    raw = np.array(draw(st.lists(st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4),
                                 min_size=count, max_size=count)))
    raw[np.linalg.norm(raw, axis=1) < 1e-3] = [0.0, 0.0, 0.0, 1.0]
    rows = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    for i in range(1, count):
        kind = draw(st.sampled_from(["free", "same", "opposite", "close"]))
        if kind != "free":
            nudge = {"same": 0.0, "opposite": 0.0, "close": 1e-4}[kind]
            near = rows[i - 1] + nudge * rows[i]
            rows[i] = near / np.linalg.norm(near) * (-1.0 if kind == "opposite" else 1.0)
    return rows


@st.composite
def curves(draw):
    count = draw(st.integers(2, 6))
    times = np.cumsum([0.0] + draw(st.lists(st.floats(0.05, 2.0), min_size=count - 1,
                                            max_size=count - 1)))
    rows = _unit_rows(draw, 3 * count)
    query = np.linspace(times[0], times[-1], 997)
    return times, rows, query


def _chords(played32, reference):
    return np.sqrt(chords.chord2(played32.T.astype(np.float64), reference))


@settings(max_examples=200, deadline=None)
@given(curves())
def test_cubicslerp_in_float32_is_the_formula_within_its_bound(curve):
    times, rows, query = curve
    a, v, b = rows[0::3], rows[1::3], rows[2::3]
    played = screening.cubicslerp(times, rows, query)
    assert played.dtype == np.float32 and played.shape == (4, len(query))
    assert _chords(played, ref_sqlerp(times, a, v, b, query)).max() <= CURVE_BOUND


@settings(max_examples=200, deadline=None)
@given(curves())
def test_slerp_in_float32_is_appendix_c_within_its_bound(curve):
    times, rows, query = curve
    values = rows[1::3]
    k, t, _ = segment_of(times, query)
    played = screening.slerp(times, values, query)
    assert _chords(played, ref_slerp(values[k], values[k + 1], t)).max() <= CURVE_BOUND


def _pairs(rng, degrees):
    """Random unit quaternions p and q = +-p turned by ``degrees`` about random axes."""
    p = rng.normal(size=(len(degrees), 4))
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    axis = rng.normal(size=(len(degrees), 3))
    half = np.radians(degrees)[:, None] / 2.0
    turn = np.concatenate([axis / np.linalg.norm(axis, axis=1, keepdims=True) * np.sin(half),
                           np.cos(half)], axis=1)
    return p, Q.multiply(p, turn) * rng.choice([-1.0, 1.0], len(degrees))[:, None]


def test_chords_of_float32_rotations_stay_within_their_bound():
    # The chord between two rotations a small angle apart (the checks' limits: 0.009 and 0.1
    # degrees), from their float32 roundings, against float64.
    p, q = _pairs(np.random.default_rng(5), np.random.default_rng(6).uniform(0.0, 0.2, 20000))
    exact = np.sqrt(chords.chord2(p, q))
    float32 = np.sqrt(screening.chord2(screening.as_float32(p), screening.as_float32(q)))
    assert np.abs(float32 - exact).max() <= CHORD_BOUND


def test_the_margin_covers_two_curves_and_a_chord():
    assert screening.MARGIN_CHORD >= 2 * CURVE_BOUND + CHORD_BOUND


@pytest.mark.parametrize("tolerance", [0.009, 0.1])
def test_lowered_limits_pass_only_what_float64_passes(tolerance):
    # Rotations within 3 % of the limit's angle, rounded to float32: what their float32 chord
    # passes at lowered(limit), their float64 chord passes at the limit itself.
    rng = np.random.default_rng(7)
    p, q = _pairs(rng, rng.uniform(0.97, 1.03, 20000) * tolerance)
    limit = chords.chord2_limit(tolerance)
    passed = screening.chord2(screening.as_float32(p), screening.as_float32(q)) <= screening.lowered(limit)
    assert 0 < passed.sum() < len(passed) and (chords.chord2(p[passed], q[passed]) <= limit).all()
    assert screening.lowered(1e-14) == 0.0  # never negative


def test_settled_max_is_the_float64_maximum():
    # Float64 squared chords, their float32 estimates off by up to a margin, some exact already:
    # the settled maximum is the float64 one, and far-off segments are never checked again.
    rng = np.random.default_rng(3)
    for _ in range(300):
        chords = rng.uniform(0.0, 2e-4, rng.integers(1, 40))
        exact = rng.random(len(chords)) < 0.3
        off = rng.uniform(-1.0, 1.0, len(chords)) * screening.MARGIN_CHORD
        estimates = np.where(exact, chords, np.maximum(chords + off, 0.0)) ** 2
        asked = []

        def recheck(segments, asked=asked, chords=chords):
            asked.extend(segments)
            return chords[segments] ** 2
        assert screening.settled_max(estimates, exact, recheck) == (chords ** 2).max()
        assert not exact[asked].any()
        far = np.sqrt(estimates) < np.sqrt(estimates.max()) - 2 * screening.MARGIN_CHORD
        assert not far[asked].any()


@pytest.mark.parametrize("written", [None, "SHORT"])
def test_the_float32_pass_changes_no_fit_and_no_fallback(monkeypatch, written):
    # A margin of 1 sends every segment to the float64 check: the keys, tangents and every
    # reported error must come out the same as with the float32 pass deciding most segments.
    times = key_times(np.random.default_rng(6), 200).astype(np.float32).astype(np.float64)
    check = check_grid(times)
    band = np.degrees(2.0 * screening.MARGIN_CHORD)  # the margin as an angle (radians ~ 2 chord)

    def everything():
        fit = fit_cubicslerp(moving_axis, times, check, tolerance_deg=0.009, written=written)
        return fit, linear_fallback(fit, check, 0.1, written=written), cubicspline_fallback(fit, check)

    played = []  # segments the fit's check plays again in float64
    float64 = sqlerp_fit._Check._played_exactly
    monkeypatch.setattr(sqlerp_fit._Check, "_played_exactly",
                        lambda check, curve, segments: played.append(len(segments))
                        or float64(check, curve, segments))
    screened = everything()
    rechecked, played[:] = sum(played), []
    monkeypatch.setattr(screening, "MARGIN_CHORD", 1.0)
    exact = everything()
    # The float32 pass decided most segments (so the comparison is not of two float64 runs).
    assert 0 < rechecked < sum(played) / 10
    fit, (times_s, values_s, error_s), (spline_times, spline_rows, spline_error) = screened
    other, (times_e, values_e, error_e), (times_c, rows_c, error_c) = exact
    assert np.array_equal(fit.times, other.times) and np.array_equal(fit.interleaved(), other.interleaved())
    assert fit.max_error_deg == other.max_error_deg
    assert np.array_equal(times_s, times_e) and np.array_equal(values_s, values_e) and error_s == error_e
    assert np.array_equal(spline_rows, rows_c) and spline_error == error_c
    # These keys put both maxima within the margin of their limits, where only float64 decides.
    assert 0.009 - band < fit.max_error_deg <= 0.009 and 0.1 - band < error_s <= 0.1
