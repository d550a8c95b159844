"""Dense channels (a key per frame: capture, baked and imported clips): core.fitting.linear_reduction and the
export's choice of the smaller form (core.fitting.rotation_export), against motions built here whose keys
are known: polylines of slerps written out with the textbook formula, and turns about one axis,
where a slerp is linear in the angle."""

import numpy as np
import pytest

from gltf_sqlerp.core.fitting.channel_motion import ChannelTarget, ChannelTask, RotationMotion, is_dense
from gltf_sqlerp.core.blender_model.deviation import CurveKeys
from gltf_sqlerp.core.fitting.linear_reduction import reduce_linear
from gltf_sqlerp.core.fitting.rotation_export import ExportOptions, check_grid, export_keys

RATE = 24.0


def slerp_by_hand(q0, q1, t):
    """(sin((1 - t) w) q0 + sin(t w) q1) / sin w, w the angle between q0 and q1 (same side)."""
    omega = np.arccos(np.clip(np.dot(q0, q1), -1.0, 1.0))
    t = np.asarray(t, dtype=float)[:, None]
    return (np.sin((1.0 - t) * omega) * q0 + np.sin(t * omega) * q1) / np.sin(omega)


def angle_deg(p, q):
    """Angle between rotations, 2 acos |p . q| (rows)."""
    return np.degrees(2.0 * np.arccos(np.clip(np.abs(np.einsum("ij,ij->i", p, q)), 0.0, 1.0)))


def polyline(key_times, key_values, times):
    """The rotation a LINEAR sampler of these keys plays at the sorted ``times``."""
    out = np.empty((len(times), 4))
    segment = np.clip(np.searchsorted(key_times, times, side="right") - 1, 0, len(key_times) - 2)
    for k in range(len(key_times) - 1):
        here = segment == k
        u = (times[here] - key_times[k]) / (key_times[k + 1] - key_times[k])
        out[here] = slerp_by_hand(key_values[k], key_values[k + 1], u)
    return out


def random_keys(count, turn_deg, seed):
    """Unit quaternions, each a turn of about ``turn_deg`` from the last about a random axis, all
    on the same side as their neighbour."""
    rng = np.random.default_rng(seed)
    keys = [np.array([0.0, 0.0, 0.0, 1.0])]
    for _ in range(count - 1):
        axis = rng.normal(size=3)
        half = np.radians(turn_deg * rng.uniform(0.5, 1.5)) / 2.0
        turn = np.append(np.sin(half) * axis / np.linalg.norm(axis), np.cos(half))
        x1, y1, z1, w1 = keys[-1]
        x2, y2, z2, w2 = turn
        keys.append(np.array([w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2, w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                              w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2, w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2]))
    return np.array(keys)


def test_reduce_linear_finds_the_corners_of_a_polyline():
    key_times = np.array([0.0, 0.3, 0.5, 1.1, 1.2, 2.0])
    key_values = random_keys(len(key_times), 30.0, seed=1)
    check = np.linspace(0.0, 2.0, 401)  # every key time is a check time
    assert np.isin(key_times, check).all()
    reduced = reduce_linear(check, polyline(key_times, key_values, check), 0.001)
    np.testing.assert_allclose(reduced.times, key_times, atol=1e-12)
    assert angle_deg(reduced.values, key_values).max() < 1e-6
    assert reduced.max_error_deg < 1e-5


def test_reduce_linear_drops_keys_within_the_tolerance_and_stores_shorts():
    # Every frame a key, but the motion turns at an even speed about one axis with a slight wobble:
    # most keys are corners under the tolerance.
    frames = np.arange(0.0, 97.0)
    angle = 2.0 * frames + 0.004 * np.sin(frames)  # corners of about 0.004 degrees
    half = np.radians(angle) / 2.0
    keys = np.stack([0 * half, np.sin(half), 0 * half, np.cos(half)], axis=-1)
    check = check_grid(0.0, 96.0, frames) / RATE
    motion = polyline(frames / RATE, keys, check)
    reduced = reduce_linear(check, motion, 0.009, written="SHORT")
    assert len(reduced.times) < 10
    np.testing.assert_array_equal(reduced.times, reduced.times.astype(np.float32))
    np.testing.assert_allclose(reduced.values * 32767.0, np.round(reduced.values * 32767.0), atol=1e-9)
    # About one axis a slerp is linear in the angle: the written keys play their angles interpolated.
    written = np.degrees(2.0 * np.arctan2(reduced.values[:, 1], reduced.values[:, 3]))
    played = np.interp(check, reduced.times, written)
    truth = np.interp(check, frames / RATE, angle)
    assert np.abs(played - truth).max() <= 0.009
    assert reduced.max_error_deg == pytest.approx(np.abs(played - truth).max(), abs=2e-4)


def test_reduce_linear_refuses_more_keys_than_allowed_and_bad_input():
    key_values = random_keys(20, 10.0, seed=2)
    check = np.linspace(0.0, 1.9, 191)
    motion = polyline(np.arange(20) / 10.0, key_values, check)
    with pytest.raises(ValueError, match="more than 5 keys"):
        reduce_linear(check, motion, 0.01, max_keys=5)
    with pytest.raises(ValueError, match="increasing"):
        reduce_linear(check[::-1], motion, 0.01)


@pytest.mark.parametrize("frames, dense", [
    (np.arange(0.0, 48.0), True),                 # a key per frame
    (np.arange(0.0, 48.0, 2.0), True),            # every other frame (30 fps baked at 15)
    (np.arange(0.0, 97.0, 4.0), False),           # an animator's keys
    (np.arange(0.0, 5.0), False),                 # too few to say
    (np.array([0.0, 1, 2, 3, 4, 5, 40, 80]), True),  # mostly per frame: the median decides
])
def test_dense_means_keys_at_most_two_frames_apart(frames, dense):
    assert is_dense(frames) == dense


def about_z(degrees):
    half = np.radians(np.asarray(degrees, dtype=float)) / 2.0
    return np.stack([np.zeros_like(half), np.zeros_like(half), np.sin(half), np.cos(half)], axis=-1)


def per_frame_task(angle_at_frame, frames):
    """(target, key_times, check_times, expected) of a channel keyed on every frame."""
    def target(seconds):
        return about_z(angle_at_frame(np.asarray(seconds) * RATE))
    check = check_grid(frames[0], frames[-1], frames) / RATE
    key_times = (frames / RATE).astype(np.float32).astype(np.float64)
    return target, key_times, check, target(check)


def test_a_dense_polyline_with_real_corners_is_written_as_linear_keys_alone():
    rng = np.random.default_rng(3)
    frames = np.arange(0.0, 49.0)
    steps = np.cumsum(rng.uniform(0.5, 4.0, len(frames)))  # corners of 0.1 to 3.5 degrees a frame

    def angle(f):
        return np.interp(f, frames, steps)
    target, key_times, check, expected = per_frame_task(angle, frames)
    keys = export_keys(target, key_times, check, expected, ExportOptions(), dense=True)
    assert keys.fit is None and keys.linear is not None and keys.dense
    times, values = keys.linear.times, keys.linear.values
    assert len(times) <= len(frames) and np.isin(times, key_times).all()  # at the corners only
    played = np.interp(check, times, np.unwrap(np.degrees(2 * np.arctan2(values[:, 2], values[:, 3])),
                                               period=360.0))
    assert np.abs(played - angle(check * RATE)).max() <= 0.009
    assert keys.written_bytes == len(times) * (4 + 8)


def test_dense_samples_of_a_smooth_motion_are_written_as_cubicslerp():
    frames = np.arange(0.0, 97.0)

    def angle(f):
        return 80.0 * np.sin(0.5 * np.asarray(f) / RATE)
    # Baked: a key per frame, Blender playing straight lines between them. This swing's angular
    # speed changes by at most 80 x 0.25 / 24^2 = 0.035 degrees a frame: corners a smooth curve
    # rounds well within 0.01 degrees, where LINEAR keys need most frames.
    target_keys = about_z(angle(frames))
    check = check_grid(0.0, 96.0, frames) / RATE
    expected = polyline(frames / RATE, target_keys, check)

    def target(seconds):
        return polyline(frames / RATE, target_keys, np.atleast_1d(np.asarray(seconds, dtype=float)))
    key_times = (frames / RATE).astype(np.float32).astype(np.float64)
    # (core_alone off: the extension's form; AUTO may write a CUBICSPLINE sampler alone instead)
    keys = export_keys(target, key_times, check, expected, ExportOptions(core_alone=False), dense=True)
    assert keys.linear is None and keys.fit is not None and keys.dense
    assert len(keys.fit.times) < len(frames) / 8
    assert angle_deg(keys.fit.evaluate(check), expected).max() <= 0.009 + 1e-9
    # The default fallback here: CUBICSPLINE at some of the CUBICSLERP key times (the ends among
    # them; 0.1 degrees lets it skip most), 16-bit since this slow swing's tangents are under 1
    # per second; played with the spec's Hermite formula written out, within its 0.1 degrees of
    # the motion (and the curve's 0.009).
    assert keys.fallback is not None
    interpolation, times, rows = keys.fallback
    assert interpolation == "CUBICSPLINE" and keys.fallback_precision == "SHORT"
    assert np.isin(times, keys.fit.times).all() and len(times) < len(keys.fit.times)
    assert (times[0], times[-1]) == (keys.fit.times[0], keys.fit.times[-1])
    np.testing.assert_allclose(rows * 32767.0, np.round(rows * 32767.0), atol=1e-9)
    assert angle_deg(hermite_by_hand(times, rows, check), expected).max() <= 0.1 + 0.009
    n, m = len(keys.fit.times), len(times)
    assert keys.written_bytes == n * (4 + 3 * 8) + m * (4 + 3 * 8)  # an input of its own
    # Smaller than the LINEAR keys that the motion needs alone, as written.
    linear = reduce_linear(check, expected, 0.009, written="SHORT")
    assert keys.written_bytes < len(linear.times) * (4 + 8)


def hermite_by_hand(times, rows, query):
    """glTF 2.0 Appendix C's CUBICSPLINE, normalized: rows a_k, v_k, b_k per key."""
    a, v, b = rows[0::3], rows[1::3], rows[2::3]
    k = np.clip(np.searchsorted(times, query, side="right") - 1, 0, len(times) - 2)
    h = times[k + 1] - times[k]
    t = ((query - times[k]) / h)[:, None]
    p = ((2 * t**3 - 3 * t**2 + 1) * v[k] + (t**3 - 2 * t**2 + t) * h[:, None] * b[k]
         + (-2 * t**3 + 3 * t**2) * v[k + 1] + (t**3 - t**2) * h[:, None] * a[k + 1])
    return p / np.linalg.norm(p, axis=1, keepdims=True)


def fast_swing(seconds):
    """170 degrees each way about z, up to 42 degrees a frame at 24 fps."""
    return about_z(170.0 * np.sin(6.0 * np.asarray(seconds, dtype=float)))


def fast_task():
    frames = np.arange(0.0, 49.0, 8.0)
    check = check_grid(0.0, 48.0, frames) / RATE
    key_times = (frames / RATE).astype(np.float32).astype(np.float64)
    per_frame = (np.arange(0.0, 49.0) / RATE).astype(np.float32)
    return key_times, check, per_frame


def test_the_default_fallback_holds_its_tolerance_without_more_keys_than_frames():
    key_times, check, per_frame = fast_task()
    linear = export_keys(fast_swing, key_times, check, fast_swing(check), ExportOptions(fallback="LINEAR"),
                         frame_times=per_frame)
    assert linear.fallback is not None
    assert len(linear.fallback[1]) > len(per_frame)  # LINEAR alone needs several keys a frame
    keys = export_keys(fast_swing, key_times, check, fast_swing(check), ExportOptions(core_alone=False),
                       frame_times=per_frame)
    assert keys.fallback is not None
    interpolation, times, rows = keys.fallback
    assert interpolation == "CUBICSPLINE" and len(times) <= len(per_frame)
    assert keys.fallback_precision == "FLOAT"  # tangents of 42 degrees a frame are over 1 per second
    error = angle_deg(hermite_by_hand(times, rows, check), fast_swing(check)).max()
    assert error <= 0.1 + 0.009 and keys.fallback_error_deg <= 0.1


def test_a_fallback_that_cannot_hold_its_tolerance_is_the_closer_of_its_forms():
    key_times, check, per_frame = fast_task()
    # A coarse CUBICSLERP curve (1 degree) and a fine fallback tolerance: LINEAR keys would need
    # more than a key per frame, and neither CUBICSPLINE at the CUBICSLERP keys nor LINEAR keys
    # on every frame holds 0.005 degrees. The fallback is the closer of those two.
    options = ExportOptions(tolerance_deg=1.0, fallback_tolerance_deg=0.005, precision="FLOAT", core_alone=False)
    keys = export_keys(fast_swing, key_times, check, fast_swing(check), options, frame_times=per_frame)
    assert keys.fallback is not None and keys.fit is not None
    interpolation, times, rows = keys.fallback
    assert len(times) <= len(per_frame) and keys.fallback_error_deg > 0.005
    # LINEAR keys on the curve at every frame, played by hand (about z: linear in the angle).
    curve = keys.fit.evaluate(check)
    curve_angle = np.unwrap(np.degrees(2 * np.arctan2(curve[:, 2], curve[:, 3])), period=360.0)
    at_frames = np.interp(per_frame, check, curve_angle)
    per_frame_error = np.abs(np.interp(check, per_frame, at_frames) - curve_angle).max()
    assert keys.fallback_error_deg <= per_frame_error + 1e-3
    if interpolation == "CUBICSPLINE":
        played = hermite_by_hand(times, rows, check)
        assert keys.fallback_error_deg == pytest.approx(angle_deg(played, curve).max(), abs=1e-3)


def test_per_frame_linear_keys_share_the_bundled_input_when_they_write_fewer_bytes():
    # A turn about z with a corner at every frame: LINEAR keys on the frames play it exactly (a
    # slerp about one axis is linear in the angle), and nearly every frame is needed.
    rng = np.random.default_rng(7)
    frames = np.arange(0.0, 49.0)
    steps = np.cumsum(rng.uniform(0.5, 4.0, len(frames)))
    target, key_times, check, expected = per_frame_task(lambda f: np.interp(f, frames, steps), frames)
    alone = export_keys(target, key_times, check, expected, ExportOptions(), dense=True)
    assert not alone.frame_keys and alone.linear is not None and len(alone.linear.times) > 2 * len(frames) / 3
    per_frame = (frames / RATE).astype(np.float32)
    shared = export_keys(target, key_times, check, expected, ExportOptions(), dense=True,
                         frame_times=per_frame)
    assert shared.frame_keys and shared.fit is None and shared.linear is not None
    np.testing.assert_array_equal(shared.linear.times, per_frame)
    # 8 bytes a key (16-bit values; the times are the bundled sampler's) against 12.
    assert shared.written_bytes == 8 * len(frames) < alone.written_bytes == 12 * len(alone.linear.times)
    angles = np.degrees(2 * np.arctan2(shared.linear.values[:, 2], shared.linear.values[:, 3]))
    assert np.abs(np.interp(check, per_frame, angles) - np.interp(check * RATE, frames, steps)).max() <= 0.009


@pytest.mark.parametrize("degrees", [0.0, 30.0])
def test_a_still_or_slerp_channel_keyed_by_an_animator_is_two_linear_keys(degrees):
    # A constant rotation (what the bundled exporter's "optimize" collapses) and an even turn about
    # one axis: two LINEAR keys hold them exactly, fewer bytes than any CUBICSLERP sampler.
    frames = np.array([0.0, 12.0, 30.0, 48.0])
    target, _, check, expected = per_frame_task(lambda f: degrees * np.asarray(f) / 48.0, np.arange(49.0))
    key_times = (frames / RATE).astype(np.float32).astype(np.float64)
    keys = export_keys(target, key_times, check, expected, ExportOptions(core_alone=False))
    assert keys.fit is None and not keys.dense and keys.linear is not None
    np.testing.assert_array_equal(keys.linear.times, key_times[[0, -1]])
    angles = np.degrees(2 * np.arctan2(keys.linear.values[:, 2], keys.linear.values[:, 3]))
    np.testing.assert_allclose(angles, [0.0, degrees], atol=0.004)
    assert keys.written_bytes == 2 * 12


def test_a_channel_of_constant_keys_is_written_as_step_keys_alone():
    """Blender's constant interpolation holds each key's rotation until the next: STEP keys at
    the key frames play it exactly, where a smooth curve would need keys all round each jump."""
    frames = np.array([0.0, 5.0, 13.0, 20.0])
    angles = np.radians([0.0, 40.0, -30.0, 90.0])
    components = [np.cos(angles / 2), 0 * angles, 0 * angles, np.sin(angles / 2)]  # w, x, y, z
    curves = [CurveKeys(np.c_[frames, c], np.c_[frames, c], np.c_[frames, c],
                        np.array(["CONSTANT"] * len(frames))) for c in components]
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    target = ChannelTarget(RotationMotion("QUATERNION", frames, curves), identity, identity, 0.0, RATE)
    task = ChannelTask(target, 0.0, 20.0)
    keys = task.fit(ExportOptions(core_alone=False))
    assert keys.step and keys.fit is None and keys.interpolation == "STEP" and keys.linear is not None
    np.testing.assert_allclose(keys.linear.times, frames / RATE, rtol=1e-7)
    check = np.linspace(0.0, 20.0, 8 * 20 + 1)
    held = angles[np.searchsorted(frames, check, side="right") - 1]  # by hand: the last key so far
    at = np.searchsorted(keys.linear.times, (check / RATE).astype(np.float32), side="right") - 1
    played = keys.linear.values[at]
    assert angle_deg(played / np.linalg.norm(played, axis=1)[:, None], about_z(np.degrees(held))).max() <= 0.01


def test_a_fallback_fitted_again_keeps_the_cubicslerp_keys_and_meets_its_smaller_share():
    """The world-space export fits fallbacks again at tighter shares (operators/export_world);
    the CUBICSLERP keys stay as they were (the levels below were corrected for them). Checked by
    playing both samplers with the spec's evaluators: the new fallback within its share of 0.1."""
    from gltf_sqlerp.core.sampling.interpolation import evaluate
    frames = np.array([0.0, 6.0, 11.0, 19.0, 24.0, 33.0, 40.0, 48.0])
    angles = np.radians([0.0, 45.0, 5.0, 50.0, 10.0, 55.0, 15.0, 0.0])
    components = [np.cos(angles / 2), 0 * angles, np.sin(angles / 2) * 0.6, np.sin(angles / 2) * 0.8]
    curves = [CurveKeys(np.c_[frames, c], np.c_[frames, c], np.c_[frames, c],
                        np.array(["LINEAR"] * len(frames))) for c in components]  # w, x, y, z
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    target = ChannelTarget(RotationMotion("QUATERNION", frames, curves), identity, identity, 0.0, RATE)
    first = ChannelTask(target, 0.0, 48.0).fit(ExportOptions(core_alone=False))
    again = ChannelTask(target, 0.0, 48.0, fallback_share=0.2, extension=first).fit(ExportOptions(core_alone=False))
    assert first.fit is not None and again.fit is not None
    assert first.fallback is not None and again.fallback is not None
    np.testing.assert_array_equal(again.fit.times, first.fit.times)
    np.testing.assert_array_equal(again.fit.interleaved(), first.fit.interleaved())
    check = check_grid(0.0, 48.0, frames) / RATE
    curve = evaluate("CUBICSLERP", first.fit.times, first.fit.interleaved() / np.linalg.norm(
        first.fit.interleaved(), axis=1)[:, None], check, rotation=True)
    errors = []
    for keys in (first, again):
        assert keys.fallback is not None
        interpolation, times, values = keys.fallback
        inside = check[(check >= times[0]) & (check <= times[-1])]
        played = evaluate(interpolation, times, values, inside, rotation=True)
        errors.append(angle_deg(played / np.linalg.norm(played, axis=1)[:, None],
                                curve[np.isin(check, inside)]).max())
    assert errors[0] > 0.02 and errors[1] <= 0.02 + 1e-6, errors
    assert len(again.fallback[1]) > len(first.fallback[1])
