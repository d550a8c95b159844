"""core.fitting.spline_alone (a CUBICSPLINE rotation sampler fitted to a motion, no extension) and
rotation_export's choice of the smaller form, against glTF 2.0's CUBICSPLINE formula written out
here (Appendix C: p = (2s³-3s²+1) v_k + (s³-2s²+s) h b_k + (-2s³+3s²) v_k+1 + (s³-s²) h a_k+1,
then normalized) and rotations built by hand from an axis and an angle."""

import numpy as np
import pytest

from gltf_sqlerp.core.fitting.rotation_export import ExportOptions, export_keys
from gltf_sqlerp.core.fitting.spline_alone import fit_spline_alone


def about_axis(axis, angles):
    """(T, 4) x, y, z, w quaternions turning ``angles`` (radians) about the unit ``axis``."""
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    half = np.asarray(angles, dtype=np.float64)[:, None] / 2.0
    return np.concatenate([np.sin(half) * axis, np.cos(half)], axis=1)


def wandering(seconds, speed):
    """A turn about a slowly tilting axis, ``speed`` radians a second on average."""
    seconds = np.asarray(seconds, dtype=np.float64)
    tilt = 0.4 * np.sin(1.3 * seconds)
    axes = np.stack([np.sin(tilt), np.zeros_like(tilt), np.cos(tilt)], axis=1)
    angles = speed * seconds + 0.3 * np.sin(2.1 * seconds)
    half = angles[:, None] / 2.0
    return np.concatenate([np.sin(half) * axes, np.cos(half)], axis=1)


def spec_cubicspline(times, rows, t):
    """The spec's CUBICSPLINE rotation at ``t``: Hermite on the stored rows, then normalized."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, 3, 4)
    k = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)
    h = times[k + 1] - times[k]
    s = ((t - times[k]) / h)[:, None]
    p = ((2 * s**3 - 3 * s**2 + 1) * rows[k, 1] + (s**3 - 2 * s**2 + s) * h[:, None] * rows[k, 2]
         + (-2 * s**3 + 3 * s**2) * rows[k + 1, 1] + (s**3 - s**2) * h[:, None] * rows[k + 1, 0])
    return p / np.linalg.norm(p, axis=1, keepdims=True)


def angles_deg(p, q):
    return np.degrees(2.0 * np.arccos(np.clip(np.abs(np.einsum("ij,ij->i", p, q)), 0.0, 1.0)))


@pytest.mark.parametrize("speed, written", [(0.3, "SHORT"), (6.0, "FLOAT")])
def test_the_sampler_plays_the_motion_within_the_tolerance_as_the_spec_plays_it(speed, written):
    """Slow motion: every row in [-1, 1], 16-bit; fast motion: tangents (per second) beyond it, floats.
    Checked between the check times too (the fit saw 8 per frame at 24 fps; this 40)."""
    def target(seconds):
        return wandering(seconds, speed)
    check = np.linspace(0.0, 4.0, 4 * 24 * 8 + 1)
    keys, precision = fit_spline_alone(target, np.linspace(0.0, 4.0, 5), check, target(check), 0.01, "SHORT", 500)
    assert precision == written
    assert np.abs(keys.values).max() <= 1.0 if written == "SHORT" else np.abs(keys.values).max() > 1.0
    dense = np.linspace(0.0, 4.0, 4 * 24 * 40 + 1)
    played = spec_cubicspline(keys.times.astype(np.float64), keys.values, dense)
    assert angles_deg(played, target(dense)).max() <= 0.0105
    assert keys.max_error_deg == pytest.approx(angles_deg(spec_cubicspline(
        keys.times.astype(np.float64), keys.values, check), target(check)).max(), abs=1e-4)
    assert np.array_equal(keys.times, keys.times.astype(np.float32))  # float32 times, as written


def test_keys_are_added_only_where_the_motion_needs_them():
    """Still for two seconds, then a fast turn: the still half keeps its two keys."""
    def target(seconds):
        seconds = np.asarray(seconds, dtype=np.float64)
        return about_axis((0.0, 1.0, 0.0), np.where(seconds < 2.0, 0.0, 3.0 * (seconds - 2.0) ** 2))
    check = np.linspace(0.0, 4.0, 769)
    keys, _ = fit_spline_alone(target, np.array([0.0, 2.0, 4.0]), check, target(check), 0.01, "FLOAT", 500)
    assert np.count_nonzero(keys.times < 2.0) == 1 and np.count_nonzero(keys.times > 2.0) > 3


def test_more_keys_than_allowed_is_a_value_error():
    def target(seconds):
        return wandering(seconds, 6.0)
    check = np.linspace(0.0, 4.0, 769)
    with pytest.raises(ValueError, match="more than 6 keys"):
        fit_spline_alone(target, np.linspace(0.0, 4.0, 5), check, target(check), 0.01, "SHORT", 6)


def test_the_default_fallback_writes_the_smaller_form_with_its_json():
    """AUTO: a fast turn's CUBICSPLINE floats cost fewer bytes than CUBICSLERP keys with their
    fallback and the extension's JSON: the sampler alone. With a CUBICSPLINE fallback asked for,
    the extension stays."""
    def target(seconds):
        return wandering(seconds, 6.0)
    frames = np.arange(0.0, 96.0 + 1e-9, 1.0 / 8.0)
    check = frames / 24.0
    key_times = np.linspace(0.0, 4.0, 9).astype(np.float32)
    alone = export_keys(target, key_times, check, target(check), ExportOptions())
    kept = export_keys(target, key_times, check, target(check), ExportOptions(fallback="CUBICSPLINE"))
    assert alone.spline and alone.interpolation == "CUBICSPLINE" and alone.fit is None
    assert alone.linear is not None
    assert kept.fit is not None and kept.linear is None
    # with the JSON the extension adds (its sampler, output accessor, the channel's entry)
    assert alone.file_bytes < kept.file_bytes and kept.file_bytes > kept.written_bytes
    played = spec_cubicspline(alone.linear.times.astype(np.float64), alone.linear.values, check)
    assert angles_deg(played, target(check)).max() <= 0.01


def test_a_coarse_fit_keeps_its_hermite_paths_away_from_the_origin():
    """A turn out and back that starts and ends at rest (30 degrees x sin^2), fitted coarsely
    (1.5 degrees: one segment would do): the tangent fit alone shrinks the path along the values
    to norm 0.27 mid-way, where a float32 player's normalization loses its precision (three.js
    drifted 1.3e-4 from the core on such a segment). Worked out here from the rows as written,
    every segment's Hermite path stays at norm 0.45 or more, turns 60 degrees at most, and the
    sampler holds the tolerance."""
    def target(seconds):
        return about_axis((0.0, 0.6, 0.8), np.radians(30.0) * np.sin(np.pi * np.asarray(seconds)) ** 2)
    check = np.linspace(0.0, 1.0, 193)
    keys, _ = fit_spline_alone(target, np.array([0.0, 1.0]), check, target(check), 1.5, "FLOAT", 500)
    times, rows = keys.times.astype(np.float64), keys.values.reshape(-1, 3, 4)
    s = np.linspace(0.0, 1.0, 101)[:, None, None]
    h = np.diff(times)[None, :, None]
    p = ((2 * s**3 - 3 * s**2 + 1) * rows[:-1, 1] + (s**3 - 2 * s**2 + s) * h * rows[:-1, 2]
         + (-2 * s**3 + 3 * s**2) * rows[1:, 1] + (s**3 - s**2) * h * rows[1:, 0])
    assert np.linalg.norm(p, axis=-1).min() >= 0.45
    assert angles_deg(rows[:-1, 1], rows[1:, 1]).max() <= 60.0 + 1e-6
    played = spec_cubicspline(times, keys.values, np.linspace(0.0, 1.0, 1001))
    assert angles_deg(played, target(np.linspace(0.0, 1.0, 1001))).max() <= 1.5
