"""The deviation report's rows (core.blender_model.deviation): EXTENSION, FALLBACK and Blender's
F-curves compared over dense times, worked out where the answer is known.

Records and F-curve keys are built by hand (helpers.deviation_records): curves equal to the spec, a
fallback turned by 1°, a step against a ramp whose peak time follows from the sampling, keys at
float32 frames, easing modes left out. The same report in Blender, with "Add Keys":
test_deviation_report.py.
"""

import numpy as np
import pytest

from helpers.deviation_records import (FPS, LOCATION_MAP, ROTATION_MAP, axis_angle, curve, peak, per_component,
                                       record, sampler)

from gltf_sqlerp.core.sampling import quaternions as quat
from gltf_sqlerp.core.blender_model.deviation import CurveKeys, channel_deviations, format_table, target_name


def test_curves_equal_to_the_spec_deviate_by_nothing():
    """STEP rotation -> CONSTANT, LINEAR translation -> LINEAR, CUBICSPLINE translation ->
    BEZIER with handles a third of the segment away along the file's tangents (the keys Blender
    plays exactly for these samplers): BLENDER equals the spec; channels without a fallback say
    so and their EXT-FALLBACK is 0."""
    times = np.array([0.0, 0.5, 1.25])
    frames = times * FPS
    rotations = np.stack([axis_angle([1, 0, 0], 0), axis_angle([0, 0, 1], 40),
                          axis_angle([0.6, 0.8, 0], 100)])
    locations = np.array([[0.0, 1.0, 2.0], [1.0, -1.0, 0.5], [3.0, 0.0, 0.0]])
    offset = np.array([0.1, -0.2, 0.3])
    a = np.array([[0.0, 0.0, 0.0], [2.0, 1.0, -1.0], [0.5, 0.5, 0.5]])  # in-tangents
    b = np.array([[1.0, -2.0, 0.0], [0.0, 3.0, 1.0], [0.0, 0.0, 0.0]])  # out-tangents
    cubic = np.stack([a, locations, b], axis=1).reshape(-1, 3)
    records = [record("rotation", sampler("STEP", times, rotations), ROTATION_MAP, np.zeros(4)),
               record("translation", sampler("LINEAR", times, locations), LOCATION_MAP, offset),
               record("translation", sampler("CUBICSPLINE", times, cubic), LOCATION_MAP, offset)]
    blender = lambda values: values @ LOCATION_MAP.T + offset  # noqa: E731
    third = np.diff(times) / 3.0
    before, after = np.append(third[:1], third), np.append(third, third[-1:])
    left, right = blender(locations - before[:, None] * a), blender(locations + after[:, None] * b)
    keys = [per_component(frames, rotations @ ROTATION_MAP.T, "CONSTANT"),
            per_component(frames, blender(locations), "LINEAR"),
            [curve(frames, blender(locations)[:, c], "BEZIER",
                   np.stack([(times - before) * FPS, left[:, c]], axis=1),
                   np.stack([(times + after) * FPS, right[:, c]], axis=1)) for c in range(3)]]
    rows = channel_deviations(records, keys, FPS)
    assert len(rows) == 3
    for row in rows:
        assert peak(row.ext_blender) < 1e-9 and peak(row.fallback_blender) < 1e-9
        assert row.ext_fallback.max == 0.0 and not row.has_fallback
        assert "no fallback: FALLBACK = EXTENSION" in row.notes


def test_a_step_keyed_at_float32_frames_plays_exactly():
    """InterpolationTest's "Step Scale": key times as the file stores them (float32, the last
    one 5/3 rounded), CONSTANT keys at their float32 frames. The dense samples miss the key at
    0.875 s by ~2e-8 s; Blender plays at float32 frames, so it is on that key there, and so must
    the spec be: no deviation, not a whole step."""
    times = np.array([1 / 24, 5 / 12, 0.875, 1.25, 5 / 3], dtype=np.float32).astype(float)
    scales = np.repeat([[1.0], [0.5], [1.0], [0.5], [1.0]], 3, axis=1)
    keys = [per_component(_frames32(times), scales, "CONSTANT")]
    (row,) = channel_deviations(
        [record("translation", sampler("STEP", times, scales), np.eye(3), np.zeros(3))], keys, FPS)
    assert peak(row.ext_blender) == 0.0


def _frames32(times):
    return (times * FPS).astype(np.float32).astype(float)


def test_a_fallback_turned_by_one_degree_is_one_degree_away_everywhere():
    """Every fallback key is the extension's key turned 1° about z (left-multiplied): slerp
    commutes with that turn, so the two sources are 1° apart at every time, in glTF space and,
    through the importer's isometry, in Blender's."""
    times = np.array([0.0, 0.4, 1.0, 1.5])
    keys = np.stack([axis_angle([1, 0, 0], 10), axis_angle([0, 1, 0], 70),
                     axis_angle([0, 0.6, 0.8], -50), axis_angle([1, 0, 0], 120)])
    turned = quat.multiply(axis_angle([0, 0, 1], 1.0), keys)
    rows = channel_deviations(
        [record("rotation", sampler("LINEAR", times, keys), ROTATION_MAP, np.zeros(4),
                fallback=sampler("LINEAR", times, turned))],
        ["Blender's curves are not the point here"], FPS)
    (row,) = rows
    assert row.has_fallback and row.rotation and row.unit == "°"
    assert abs(row.ext_fallback.max - 1.0) < 1e-9
    assert row.ext_blender is None and row.notes == ["Blender's curves are not the point here"]


def test_peaks_and_their_times_follow_from_the_sampling():
    """Extension: identity to 90° about z from 0 to 1 s (slerp), so 90·t degrees from the
    identity. Fallback: STEP, identity until t = 1. Blender: one CONSTANT key, the identity.
    At 30 fps and 8 samples per frame the last sample before 1 s is 1 - 1/240 s: EXT-FALLBACK
    peaks there at 90·(1 - 1/240)°, frame 29.875; the pairs with Blender peak at 1 s, frame 30."""
    fps = 30.0
    times = [0.0, 1.0]
    keys = np.stack([axis_angle([0, 0, 1], 0), axis_angle([0, 0, 1], 90)])
    identity = ROTATION_MAP @ keys[0]
    blender = [curve(np.zeros(1), np.full(1, identity[c]), "CONSTANT") for c in range(4)]
    (row,) = channel_deviations(
        [record("rotation", sampler("LINEAR", times, keys), ROTATION_MAP, np.zeros(4),
                fallback=sampler("STEP", times, keys))], [blender], fps)
    last = 1.0 - 1.0 / 240.0
    assert abs(row.ext_fallback.max - 90.0 * last) < 1e-9
    assert (row.ext_fallback.time, row.ext_fallback.frame) == pytest.approx((last, last * fps))
    for pair in (row.ext_blender, row.fallback_blender):
        assert pair is not None and abs(pair.max - 90.0) < 1e-9
        assert (pair.time, pair.frame) == pytest.approx((1.0, 30.0))


def test_other_channels_compare_values_and_leave_out_components_without_a_property():
    """Morph weights (0, 0) -> (1, 0.5) over 2 s; Blender keys weight 0 a quarter high and has no
    shape key for weight 1 (None): EXT-BLENDER is 0.25 (the missing 0.5 never counts)."""
    times = [0.0, 2.0]
    weights = np.array([[0.0, 0.0], [1.0, 0.5]])
    keys = [[curve(np.array(times) * FPS, weights[:, 0] + 0.25, "LINEAR"), None]]
    (row,) = channel_deviations(
        [record("weights", sampler("LINEAR", times, weights), np.eye(2), np.zeros(2))], keys, FPS)
    assert not row.rotation and row.unit == ""
    assert peak(row.ext_blender) == pytest.approx(0.25, abs=1e-12)


def test_rows_come_worst_first_rotations_before_other_channels():
    """Rotations 30° and 2° from their fallbacks, a translation 5 m from its own: degrees and
    metres do not compare, so rotations come first, each group largest first."""
    times = [0.0, 1.0]
    still = np.stack([axis_angle([1, 0, 0], 0)] * 2)

    def ramp(degrees):
        return np.stack([axis_angle([1, 0, 0], 0), axis_angle([1, 0, 0], degrees)])

    records = [record("translation", sampler("LINEAR", times, [[0, 0, 0], [5, 0, 0]]),
                      np.eye(3), np.zeros(3), fallback=sampler("STEP", times, [[0, 0, 0]] * 2)),
               record("rotation", sampler("LINEAR", times, ramp(2)), np.eye(4), np.zeros(4),
                      fallback=sampler("LINEAR", times, still), data_path='pose.bones["Small"].x'),
               record("rotation", sampler("LINEAR", times, ramp(30)), np.eye(4), np.zeros(4),
                      fallback=sampler("LINEAR", times, still), data_path='pose.bones["Big"].x')]
    rows = channel_deviations(records, ["-"] * 3, FPS)
    assert [(r.target, r.path) for r in rows] == [("Big", "rotation"), ("Small", "rotation"),
                                                  ("Arm", "translation")]
    assert [round(r.worst, 9) for r in rows] == [30.0, 2.0, 5.0]


def test_keys_blender_plays_differently_are_not_compared():
    """Easing modes (SINE, ...) are not emulated: the pairs with BLENDER stay empty and the row
    says why; the table prints '-' there."""
    times = np.array([0.0, 1.0])
    keys = np.stack([axis_angle([1, 0, 0], 0), axis_angle([1, 0, 0], 45)])
    blender = per_component(times * FPS, keys @ ROTATION_MAP.T, "SINE")
    (row,) = channel_deviations(
        [record("rotation", sampler("LINEAR", times, keys), ROTATION_MAP, np.zeros(4),
                data_path='pose.bones["Elbow"].rotation_quaternion')], [blender], FPS)
    assert row.ext_blender is None and row.fallback_blender is None
    assert any("SINE" in note for note in row.notes)
    table = format_table([row])
    assert table[1].startswith("Elbow") and " - " in table[1] and "SINE" in table[1]


def test_planned_curves_are_the_keys_blender_stores():
    """Keys written for a record: frames t * fps, values through the record's map, float32 (what
    Blender keeps), none for a component without a property; played back they equal the spec to
    float32 rounding."""
    from gltf_sqlerp.core.blender_model.deviation import blender_peak, planned_curves, stored_sampler
    from gltf_sqlerp.core.blender_model.keyframes import keyframes_for
    times = np.array([0.0, 0.3, 1.1])
    locations = np.array([[0.1, 0.2, 0.3], [1.0, -1.0, 0.5], [2.0 / 3.0, 0.0, 7.0]])
    offset = np.array([0.5, 0.0, -1.0])
    main = record("translation", sampler("LINEAR", times, locations), LOCATION_MAP, offset)
    main.curves[1].index = -1
    curves = planned_curves(main, keyframes_for(stored_sampler(main), 0.01), FPS)
    assert curves[1] is None
    expected = (locations @ LOCATION_MAP.T + offset).astype(np.float32)
    for c in (0, 2):
        planned = curves[c]
        assert planned is not None and planned.co.dtype == np.float64
        assert np.array_equal(planned.co[:, 0], (times * FPS).astype(np.float32))
        assert np.array_equal(planned.co[:, 1], expected[:, c])
        assert list(planned.interpolation) == ["LINEAR"] * 3
    found = blender_peak(main, curves, "EXTENSION", np.linspace(0, 1.1, 200), FPS)
    assert not isinstance(found, str) and found.max < 1e-6


def test_target_names():
    def named(data_path, id_name, id_type):
        found = record("rotation", sampler("STEP", [0.0], [[0, 0, 0, 1]]), np.eye(4), np.zeros(4),
                       data_path=data_path, name=id_name)
        found.id_type = id_type
        return target_name(found)
    assert named('pose.bones["a\\"b"].rotation_quaternion', "Arm", "Object") == 'a"b'
    assert named("location", "Box", "Object") == "Box"
    assert named('key_blocks["k"].value', "Key", "Key") == "Key (shape keys)"


def test_blender_values_do_not_depend_on_the_order_or_number_of_frames():
    """blender_values finds each frame's segment one of two ways (sorted frames: where each key
    starts among them; unsorted ones: a binary search each) and solves the Bezier time by Newton
    from the linear guess, with a fallback for the samples it leaves unsolved (a handle on its
    key: x'(s) = 0 there). Both give the same values, also for curves that do not share key
    timing (played apart), frames on keys and beyond the ends."""
    from gltf_sqlerp.core.blender_model.deviation import blender_values
    from gltf_sqlerp.core.blender_model.fcurves import play

    rng = np.random.default_rng(17)
    frames = np.cumsum(rng.uniform(0.5, 12.0, 60)).astype(np.float32).astype(float)
    spans = np.diff(frames)
    right = frames + np.append(spans * rng.uniform(0.0, 0.6, len(spans)), 1.0)
    right[[3, 10]] = frames[[3, 10]]  # handles on their keys
    left = frames - np.insert(spans * rng.uniform(0.05, 0.6, len(spans)), 0, 1.0)
    modes = rng.choice(["BEZIER"] * 6 + ["LINEAR", "CONSTANT"], len(frames))
    curves = []
    for component in range(4):
        values, left_values, right_values = rng.normal(size=(3, len(frames)))
        right_times = right if component != 1 else frames + (right - frames) / 2  # its own timing
        curves.append(CurveKeys(np.column_stack([frames, values]),
                                np.column_stack([left, left_values]),
                                np.column_stack([right_times, right_values]), modes))
    dense = np.sort(np.concatenate([np.arange(frames[0] - 5, frames[-1] + 5, 1 / 8), frames]))
    dense = dense.astype(np.float32).astype(float)  # as Blender evaluates them
    compared = blender_values(curves, dense, rotation=False)
    assert not isinstance(compared, str)
    played, mask = compared
    assert mask.all() and played.shape == (len(dense), 4)
    assert np.array_equal(played[:, 1], play(curves[1].keyframes(), dense)[:, 0])
    shuffled = rng.permutation(len(dense))
    unsorted = blender_values(curves, dense[shuffled], rotation=False)[0]
    assert np.array_equal(unsorted, played[shuffled])
    for few in np.array_split(shuffled, len(dense) // 100):
        assert np.array_equal(blender_values(curves, dense[few], rotation=False)[0], played[few])
    on_keys = np.searchsorted(dense, frames)
    assert np.array_equal(played[on_keys], np.stack([c.co[:, 1] for c in curves], axis=1))
