"""core.fitting.vector_reduction: the fewest keys of a sampled translation, scale or weights channel.

The references are independent of the code under test: polylines with corners placed by hand,
and replays of the written keys with numpy's own ``np.interp`` (LINEAR) or a searchsorted hold
(STEP) at check times of their own (16 per frame, off the 8-per-frame grid of the reduction).
"""

import math
import struct

import numpy as np
import pytest

from gltf_sqlerp.core.fitting.vector_reduction import check_counts, reduce_vectors

FPS = 24.0


def frames(count):
    """Per-frame key times as the bundled exporter writes them (float32 seconds)."""
    return (np.arange(count) / FPS).astype(np.float32).astype(np.float64)


def polyline(times, corner_times, corner_values):
    """(len(times), d) values of the polyline through the corners, by np.interp per component."""
    corner_values = np.asarray(corner_values, dtype=np.float64)
    return np.stack([np.interp(times, corner_times, corner_values[:, c])
                     for c in range(corner_values.shape[1])], axis=1)


def dense(times, per_frame=16):
    """Check times of the test's own: ``per_frame`` per frame, shifted off the whole frames."""
    count = int((times[-1] - times[0]) * FPS * per_frame)
    return np.append(times[0] + (np.arange(count) + 0.37) / (FPS * per_frame), times[-1])


def replay(keys, at):
    """What a reader plays from the written keys at the times ``at``."""
    if keys.interpolation == "STEP":
        return keys.values[np.clip(np.searchsorted(keys.times, at, side="right") - 1, 0, None)]
    if len(keys.times) == 1:
        return np.repeat(keys.values, len(at), axis=0)
    return polyline(at, keys.times, keys.values)


def distances(a, b):
    return np.linalg.norm(a - b, axis=1)


def test_a_polyline_is_reduced_to_exactly_its_corners():
    times = frames(121)
    corners = [0, 17, 18, 60, 95, 120]  # two neighbouring corners too
    values = polyline(times, times[corners], [[0, 0, 0], [1, 2, 0], [1.5, 2, 0.1], [1, -1, 3],
                                              [0, 0, 0.5], [0.25, 0, 0.5]]).astype(np.float32)
    keys = reduce_vectors(times, values, 1e-4)
    assert keys.indices.tolist() == corners
    assert np.array_equal(keys.times, times[corners])
    assert np.array_equal(keys.values, values[corners])
    assert keys.interpolation == "LINEAR" and not keys.constant


def test_the_written_keys_replay_within_the_tolerance_between_frames():
    rng = np.random.default_rng(7)
    times = frames(400)
    # Smooth motion with capture-like jitter: every kind of corner.
    values = np.stack([np.sin(times * 0.5), np.cos(times * 0.2) * 3.0, times * 0.4], axis=1)
    values = (values + rng.normal(scale=5e-5, size=values.shape)).astype(np.float32)
    tolerance = 1e-3
    keys = reduce_vectors(times, values, tolerance)
    assert 2 < len(keys.times) < len(times) / 2
    at = dense(times)
    error = distances(replay(keys, at), polyline(at, times, values))
    assert error.max() <= tolerance * (1 + 1e-9)
    assert keys.max_error <= 1.0


def test_per_component_tolerances_hold_per_component():
    times = frames(200)
    values = np.stack([2.0 + np.sin(times), 1.0 + 0.5 * np.cos(0.5 * times), np.full_like(times, 2.0)], axis=1)
    tolerance = 1e-3 * np.abs(values)  # relative, as for a scale
    keys = reduce_vectors(times, values, tolerance, norm=False)
    at = dense(times)
    expected = polyline(at, times, values)
    allowed = polyline(at, times, tolerance)
    assert (np.abs(replay(keys, at) - expected) <= allowed * (1 + 1e-6)).all()
    assert len(keys.times) < len(times) / 2


def test_a_constant_channel_becomes_one_key_within_the_tolerance():
    times = frames(50)
    rng = np.random.default_rng(1)
    values = np.array([0.5, -2.0, 1.0]) + rng.uniform(-3e-5, 3e-5, size=(50, 3))
    keys = reduce_vectors(times, values, 1e-4)
    assert keys.constant and len(keys.times) == 1 and keys.times[0] == times[0]
    assert distances(values, keys.values).max() <= 1e-4
    exact = reduce_vectors(times, np.tile([1.0, 1.0, 1.0], (50, 1)), 1e-9)
    assert exact.constant and exact.values.tolist() == [[1.0, 1.0, 1.0]] and exact.max_error == 0.0


def test_a_still_channel_is_one_key_whose_float32_rounding_is_its_error():
    """Every key the same value: the error is 0.1's float32 rounding (worked here with the
    standard library's float32 pack) over the smallest tolerance, per component and as a distance."""
    rounded = struct.unpack("f", struct.pack("f", 0.1))[0]
    times, values = frames(20), np.full((20, 3), 0.1)
    tolerance = np.full((20, 3), 1e-6)
    tolerance[7] = 1e-8  # one key's tolerance is the tightest: the error is measured there
    per_component = reduce_vectors(times, values, tolerance, norm=False)
    assert per_component.constant and per_component.values.tolist() == [[rounded] * 3]
    assert per_component.max_error == pytest.approx(abs(rounded - 0.1) / 1e-8, rel=1e-9)
    distance = reduce_vectors(times, values, tolerance)
    assert distance.max_error == pytest.approx(math.sqrt(3) * abs(rounded - 0.1) / 1e-8, rel=1e-9)
    with pytest.raises(ValueError, match="float32"):  # the rounding alone misses a tolerance of 1e-9
        reduce_vectors(times, values, 1e-9)


def test_a_moving_channel_is_not_taken_for_a_constant():
    times = frames(50)
    values = np.zeros((50, 1))
    values[25:] = 3e-4  # a step of three tolerances
    keys = reduce_vectors(times, values, 1e-4, norm=False)
    assert not keys.constant
    assert np.abs(replay(keys, dense(times)) - polyline(dense(times), times, values)).max() <= 1e-4


@pytest.mark.parametrize("seed", range(5))
def test_random_dense_data_never_gains_keys(seed):
    rng = np.random.default_rng(seed)
    count = int(rng.integers(2, 300))
    times = frames(count)
    values = rng.normal(size=(count, int(rng.integers(1, 5)))).astype(np.float32)
    for tolerance in (1e-6, 1e-2, 1.0):
        keys = reduce_vectors(times, values, tolerance)
        assert len(keys.times) <= count
        assert np.isin(keys.times, times).all()


def test_tolerance_holds_as_written_in_float32():
    """Values computed in float64 (not representable in float32): the written keys are float32
    numbers, and those replay within the tolerance of the float64 polyline."""
    rng = np.random.default_rng(3)
    times = frames(300)
    values = np.cumsum(rng.normal(scale=1e-3, size=(300, 3)), axis=0) + 1000.0 / 3.0
    tolerance = 2e-4  # float32 steps near 333 are 3e-5: the rounding is a good part of it
    keys = reduce_vectors(times, values, tolerance)
    assert keys.values.dtype == np.float64
    assert np.array_equal(keys.values.astype(np.float32).astype(np.float64), keys.values)
    assert np.array_equal(keys.times.astype(np.float32).astype(np.float64), keys.times)
    at = dense(times)
    assert distances(replay(keys, at), polyline(at, times, values)).max() <= tolerance


def test_step_channels_stay_step_with_their_changes():
    times = frames(60)
    values = np.zeros((60, 2))
    values[10:], values[33:] = [1.0, 0.0], [1.0, 2.0]
    keys = reduce_vectors(times, values, 1e-4, interpolation="STEP", norm=False)
    assert keys.interpolation == "STEP"
    assert keys.indices.tolist() == [0, 10, 33, 59] or keys.indices.tolist() == [0, 10, 33]
    at = dense(times)
    held = values[np.searchsorted(times, at, side="right") - 1]
    assert np.array_equal(replay(keys, at), held)


def test_check_counts_are_eight_per_frame_at_least():
    times = np.array([0.0, 1.0 / 24.0, 2.0 / 24.0, 0.5, 0.5 + 1.0 / 240.0])
    assert check_counts(times, 24.0).tolist() == [8, 8, 80, 8]


@pytest.mark.parametrize("times, values, tolerance", [
    ([0.0, 1.0], [[0.0], [np.nan]], 1e-4),
    ([0.0, 0.0], [[0.0], [1.0]], 1e-4),
    ([1.0, 1.0 + 1e-9], [[0.0], [1.0]], 1e-4),  # distinct, but one float32 time
    ([0.0, 1.0], [[0.0], [1.0]], 0.0),
    ([], np.zeros((0, 3)), 1e-4),
])
def test_keys_that_are_no_sampler_raise_value_error(times, values, tolerance):
    with pytest.raises(ValueError):
        reduce_vectors(times, values, tolerance)


def test_a_split_from_given_keys_keeps_them_and_holds_the_tolerance():
    """Keys a channel must share (start=): kept, and split further where a chord through them
    misses: here a key just past a corner leaves a chord that the corner's own key must fix."""
    times = frames(61)
    values = polyline(times, times[[0, 30, 60]], [[0.0], [1.0], [0.0]]).astype(np.float32)
    alone = reduce_vectors(times, values, 1e-4, norm=False)
    assert alone.indices.tolist() == [0, 30, 60]
    keys = reduce_vectors(times, values, 1e-4, norm=False, start=[10, 45])
    assert keys.indices.tolist() == [0, 10, 30, 45, 60]
    at = dense(times)
    assert np.abs(replay(keys, at) - polyline(at, times, values)).max() <= 1e-4
    # Keys off the corner: the chord 0-31 misses the corner at 30, so 30 is added.
    assert reduce_vectors(times, values, 1e-4, norm=False, start=[31]).indices.tolist() == [0, 30, 31, 60]
    with pytest.raises(ValueError):
        reduce_vectors(times, values, 1e-4, start=[61])
