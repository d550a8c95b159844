"""core.fitting.pointer_export: the tolerance of an animation pointer channel and which channels
share an input accessor (byte counts worked by hand)."""

import numpy as np
import pytest

from gltf_sqlerp.core.fitting.pointer_export import (
    FLOAT_BYTES, INPUT_OVERHEAD, input_bytes, join_key_sets, pointer_tolerance
)


def test_the_tolerance_is_the_fraction_of_a_natural_scale():
    # Colours and factors (0 to 1) and angles in radians: the fraction itself.
    assert pointer_tolerance(1e-4, [[0.2, 0.5, 1.0], [0.0, 0.1, 0.3]]) == pytest.approx(1e-4)
    assert pointer_tolerance(1e-4, [[0.35], [0.61]]) == pytest.approx(1e-4)
    # A light's intensity (candela) or a far clip: that fraction of its largest magnitude.
    assert pointer_tolerance(1e-4, [[5435.0], [-20000.0]]) == pytest.approx(2.0)
    assert pointer_tolerance(1e-3, [[100.0], [300.0]]) == pytest.approx(0.3)


def test_input_bytes():
    assert input_bytes(10) == 40 + INPUT_OVERHEAD


def test_channels_join_where_it_saves_bytes():
    count = 100
    every = np.arange(count)
    near = np.arange(0, count, 2)          # 50 keys
    close = np.union1d(near, [1, 3])       # 52 keys: joining near costs 2 keys of outputs
    # near (VEC4) and close (VEC4) apart: 2 inputs; joined at close's keys: one input saved
    # (50 x 4 + overhead) for 2 x 16 bytes more of near's outputs.
    groups = join_key_sets([near, close], [4, 4], count)
    assert [(g.tolist(), m) for g, m in groups] == [(close.tolist(), [0, 1])]
    # A SCALAR channel with 5 keys beside a VEC3 one that needs all 100: apart, 5 keys' input
    # (20 + overhead) and 20 bytes of outputs; joined, 400 bytes of outputs but one input less
    # (400 + overhead): apart is cheaper.
    few = np.array([0, 30, 60, 80, 99])
    apart = join_key_sets([few, every], [1, 3], count)
    assert sorted(len(g) for g, _ in apart) == [5, 100]
    # A SCALAR channel that saves 3 keys (12 bytes) would pay an input of its own (388 + overhead)
    # where the full one stays in the file anyway: it joins the full set.
    many = np.setdiff1d(every, [10, 20, 30])
    joined = join_key_sets([many, every], [1, 3], count, full_is_free=True)
    assert [(len(g), m) for g, m in joined] == [(100, [0, 1])]


def test_equal_key_sets_share_without_cost():
    sets = [np.array([0, 5, 9]), np.array([0, 5, 9]), np.array([0, 9])]
    groups = join_key_sets(sets, [3, 1, 1], 10)
    # Joining [0, 9] (1 component) into [0, 5, 9] costs one key (4 bytes), saves an input.
    assert [(g.tolist(), m) for g, m in groups] == [([0, 5, 9], [0, 1, 2])]
    assert FLOAT_BYTES == 4
