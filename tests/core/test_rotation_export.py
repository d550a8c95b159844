"""core.fitting.rotation_export (one channel's export, Blender-free) and the written forms it relies on,
against formulas written out here: the dense grid as a sorted union, glTF 2.0 3.11's normalized
short encoding, quaternions about one axis built by hand."""

import numpy as np
import pytest

from gltf_sqlerp.core.gltf.accessors import as_stored
from gltf_sqlerp.core.fitting.rotation_export import ExportOptions, check_grid, export_keys


@pytest.mark.parametrize("start, end, keys", [
    (0.0, 40.0, [0.0, 4.0, 9.0, 17.0, 40.0]),
    (-12.0, 7.5, [-12.0, -3.25, 0.0, 2.6, 7.5]),          # negative start, fractional keys and end
    (1.0, 1.5, [1.0, 1.0625, 1.5]),                       # shorter than a frame
])
def test_check_grid_is_the_sorted_union_of_the_frame_grid_and_the_keys(start, end, keys):
    keys = np.array(keys)
    expected = np.unique(np.concatenate([np.arange(start, end, 1.0 / 8.0), [end], keys]))
    np.testing.assert_array_equal(check_grid(start, end, keys), expected)


def test_as_stored_decodes_as_the_spec_says():
    values = np.array([[0.5, -0.5, 1.0, -1.0], [0.1234567, -0.7654321, 1e-6, -0.999999]])
    # glTF 2.0 3.11: a normalized short c = round(f x 32767) decodes to max(c / 32767, -1).
    shorts = np.round(values * 32767.0).astype(np.int16)
    np.testing.assert_array_equal(as_stored(values, "SHORT"), np.maximum(shorts / 32767.0, -1.0))
    np.testing.assert_array_equal(as_stored(values, "FLOAT"), values.astype(np.float32))
    with pytest.raises(ValueError, match="precision"):
        as_stored(values, "HALF")


def about_z(degrees):
    half = np.radians(np.asarray(degrees, dtype=float)) / 2.0
    return np.stack([np.zeros_like(half), np.zeros_like(half), np.sin(half), np.cos(half)], axis=-1)


def swing(seconds):
    """A rotation about z swinging +-80 degrees: every slerp along it is linear in the angle."""
    return about_z(80.0 * np.sin(2.0 * np.asarray(seconds, dtype=float)))


def angle_about_z(q):
    return np.degrees(2.0 * np.arctan2(q[:, 2], q[:, 3]))


@pytest.mark.parametrize("fallback", ["LINEAR", "CUBICSPLINE", "NONE", "SAMPLED"])
def test_export_keys_follow_the_motion_and_report_their_fallback(fallback):
    frames = np.arange(0.0, 97.0, 8.0)
    key_times = (frames / 24.0).astype(np.float32).astype(np.float64)
    check = check_grid(0.0, 96.0, frames) / 24.0
    keys = export_keys(swing, key_times, check, swing(check), ExportOptions(fallback=fallback))
    fit = keys.fit
    assert fit is not None
    # Played from the file's rows (normalized, as a reader does) about z: the angle is the motion's.
    error = np.abs(angle_about_z(fit.evaluate(check)) - 80.0 * np.sin(2.0 * check))
    assert error.max() <= 0.01 * 0.9 + 1e-9 and fit.max_error_deg == pytest.approx(error.max(), abs=1e-5)
    assert keys.precision == "SHORT"
    if fallback == "SAMPLED":
        assert keys.fallback is None and keys.fallback_error_deg == 0.0
        return
    assert keys.fallback is not None
    interpolation, times, values = keys.fallback
    assert interpolation == {"NONE": "STEP"}.get(fallback, fallback)
    np.testing.assert_array_equal(times, times.astype(np.float32))
    motion = 80.0 * np.sin(2.0 * check)  # the CUBICSLERP curve is within 0.009 degrees of it
    if fallback == "NONE":  # one key holding v_1: its error is the motion's swing from there
        np.testing.assert_array_equal(values, fit.values[:1])
        swing_from_first = np.abs(motion - angle_about_z(fit.values[:1]))
        assert keys.fallback_error_deg == pytest.approx(swing_from_first.max(), abs=0.01)
    elif fallback == "LINEAR":  # quaternions in the CUBICSLERP precision: 16-bit here
        assert keys.fallback_precision == "SHORT"
        np.testing.assert_allclose(values * 32767.0, np.round(values * 32767.0), rtol=0, atol=1e-9)
        # About one axis a slerp is linear in the angle: the fallback plays the keys' angles
        # interpolated, within its 0.1 degrees of the curve.
        played = np.interp(check, times, np.unwrap(angle_about_z(values), period=360.0))
        error = np.abs(played - motion).max()
        assert error <= 0.1 + 0.009 + 1e-6 and keys.fallback_error_deg <= 0.1
        assert keys.fallback_error_deg == pytest.approx(error, abs=0.01)
        assert np.isin(fit.times, times).all() and len(times) < len(check) / 4
