"""The pointer references an import keeps (core.blender_model.pointer_reference), without Blender:
how the preview plays them and how the deviation report measures Blender's F-curves against them,
on curves worked by hand."""

import numpy as np
import pytest

from gltf_sqlerp.core.blender_model import CurveKeys, CurveTarget, PointerRecord, pointer_deviations, reference_values

FPS = 24.0


def record(interpolation, times, values):
    return PointerRecord("/animations/0/channels/0", "/cameras/0/perspective/yfov", "CAMERA", "Camera", "",
                         interpolation, [CurveTarget("lens", 0)], np.array(times, np.float32),
                         np.array(values, np.float32).reshape(-1, 1))


def linear_keys(points):
    co = np.array(points, dtype=np.float64)
    return CurveKeys(co, co, co, np.array(["LINEAR"] * len(co)))


def test_linear_reference_plays_straight_lines_between_samples_and_holds_its_ends():
    lens = record("LINEAR", [0.0, 0.5, 1.0], [0.0, 2.0, 1.0])
    # frame 6 = 0.25 s: half way from 0 to 2; frame 18 = 0.75 s: half way from 2 to 1
    played = reference_values(lens, [-5.0, 6.0, 12.0, 18.0, 30.0], FPS)[:, 0]
    np.testing.assert_allclose(played, [0.0, 1.0, 2.0, 1.5, 1.0], atol=1e-6)


def test_step_reference_switches_at_its_keys_float32_frames_included():
    cutoff = record("STEP", [0.0, 0.5], [1.0, 3.0])
    # frame 12 is the second key; 12 - 1e-6 is the same float32 frame as far as Blender knows
    played = reference_values(cutoff, [0.0, 11.9, 12.0 - 1e-6, 12.0, 40.0], FPS)[:, 0]
    np.testing.assert_array_equal(played, [1.0, 1.0, 3.0, 3.0, 3.0])


def test_report_gives_the_largest_difference_absolute_and_of_the_range():
    lens = record("LINEAR", [0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 1.0, 2.0, 1.5, 1.0])
    exact = linear_keys([(0, 0), (12, 2), (24, 1)])
    (row,) = pointer_deviations([lens], [[exact]], FPS)
    assert row.blender is not None and row.blender.max < 1e-6 and row.span == pytest.approx(2.0)
    edited = linear_keys([(0, 0), (12, 2.5), (24, 1)])  # the middle key raised by hand by 0.5
    (row,) = pointer_deviations([lens], [[edited]], FPS)
    assert row.blender is not None
    assert (row.blender.max, row.blender.frame, row.relative) == pytest.approx((0.5, 12.0, 0.25))
    (gone,) = pointer_deviations([lens], [[None]], FPS)
    assert gone.blender is None and gone.relative is None and gone.notes == ["its F-curve is gone"]


def test_a_step_reference_is_checked_between_its_keys_too():
    cutoff = record("STEP", [0.0, 0.5, 1.0], [0.2, 0.7, 0.4])
    keys = np.array([(0, 0.2), (12, 0.7), (24, 0.4)], dtype=np.float64)
    exact = CurveKeys(keys, keys, keys, np.array(["CONSTANT"] * 3))
    (row,) = pointer_deviations([cutoff], [[exact]], FPS)
    assert row.blender is not None and row.blender.max < 1e-7  # float32 references
    # a key inserted by hand at frame 6.5 (0.45 instead of 0.2) holds up to frame 12
    edited = np.array([(0, 0.2), (6.5, 0.45), (12, 0.7), (24, 0.4)], dtype=np.float64)
    (row,) = pointer_deviations([cutoff], [[CurveKeys(edited, edited, edited, np.array(["CONSTANT"] * 4))]], FPS)
    assert row.blender is not None
    assert (row.blender.max, row.relative) == pytest.approx((0.25, 0.5), abs=1e-6)
    assert 6.5 <= row.blender.frame < 12
