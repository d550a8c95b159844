"""core.blender_model.keyframes_batch: every channel of an animation fitted at once.

Two references: keyframes_for channel by channel (the batch must give the same keys, whatever
else is in the batch), and the spec itself, through the plain-Python F-curve evaluator and
Appendix C slerp of tests/helpers/keyframe_refs.py (the batched keys must play every slerp channel
within its tolerance).
"""

import numpy as np
import pytest
from helpers import ASSETS

from gltf_sqlerp import core
from gltf_sqlerp.core.blender_model import keyframes as K
from gltf_sqlerp.core.sampling.animation import Sampler
from gltf_sqlerp.core.blender_model.keyframes_batch import keyframes_for_channels
from helpers.jumping_curve import jumping_segment
from helpers.keyframe_refs import about, qmul, sign_continuous, spec_rotation, worst_angle

FIELDS = ("times", "values", "left_times", "left_values", "right_times", "right_values")
MODELS = sorted(p for p in (ASSETS / "khronos").rglob("*") if p.suffix in (".gltf", ".glb"))


def assert_same_keys(batched, single):
    assert len(batched) == len(single)
    for name in FIELDS:
        np.testing.assert_allclose(getattr(batched, name), getattr(single, name), rtol=0, atol=1e-12,
                                   err_msg=name)
    assert list(batched.interpolation) == list(single.interpolation)


def slerp_channel(rng, count, step_degrees, flips=True):
    """A LINEAR rotation sampler of ``count`` keys turning up to ``step_degrees`` per key, at
    uneven times, with stored signs flipped at random (the fit must make them continuous)."""
    q, rows = about([0, 0, 1], 0.0), []
    for _ in range(count):
        rows.append(q)
        turn = about(rng.normal(size=3), float(rng.uniform(0.0, step_degrees)))
        q = qmul(turn, q)
    rows = np.array(rows)
    if flips:
        rows *= rng.choice([-1.0, 1.0], size=(count, 1))
    times = np.cumsum(rng.uniform(0.05, 0.7, size=count))
    return Sampler("LINEAR", times, rows, "rotation", "/x")


def mixed_channels(rng):
    """Slerp channels of 2 to 40 keys and small to 179 degree turns, between channels the batch
    leaves to keyframes_for (translation, STEP rotation, CUBICSPLINE rotation, equal key times)."""
    samplers = [slerp_channel(rng, int(rng.integers(2, 40)), float(rng.choice([5.0, 60.0, 179.0])))
                for _ in range(8)]
    samplers.insert(2, Sampler("LINEAR", np.array([0.0, 1.0, 2.0]), rng.normal(size=(3, 3)),
                               "translation", "/t"))
    samplers.insert(4, Sampler("STEP", np.array([0.0, 1.0]), np.array([about([1, 0, 0], 10),
                                                                        about([1, 0, 0], 200)]),
                               "rotation", "/s"))
    cubic = np.array([[0, 0, 0, 0], about([0, 1, 0], 0), [0, 0, 0, 0]] * 2, dtype=float)
    samplers.insert(6, Sampler("CUBICSPLINE", np.array([0.0, 1.0]), cubic, "rotation", "/c"))
    repeated = slerp_channel(rng, 4, 30.0)
    repeated.times = np.array([0.0, 0.5, 0.5, 1.0])
    samplers.append(repeated)
    return samplers


@pytest.mark.parametrize("seed", range(6))
def test_the_batch_gives_the_keys_of_keyframes_for_channel_by_channel(seed):
    rng = np.random.default_rng(seed)
    samplers = mixed_channels(rng)
    tolerances = list(rng.choice([0.01, 0.003, 0.1], size=len(samplers)))
    batched = keyframes_for_channels(samplers, tolerances)
    for sampler, tolerance, keys in zip(samplers, tolerances, batched):
        assert_same_keys(keys, K.keyframes_for(sampler, tolerance))


@pytest.mark.parametrize("seed", range(3))
def test_batched_slerp_keys_play_the_spec_within_each_channels_tolerance(seed):
    rng = np.random.default_rng(100 + seed)
    samplers = [slerp_channel(rng, 12, degrees) for degrees in (3.0, 40.0, 120.0, 179.0)]
    tolerances = [0.01, 0.002, 0.01, 0.05]
    for sampler, tolerance, keys in zip(samplers, tolerances, keyframes_for_channels(samplers, tolerances)):
        assert sign_continuous(keys)
        worst = worst_angle(keys, lambda t, s=sampler: spec_rotation("LINEAR", s.times, s.values, t),
                            per_segment=16)
        assert worst <= tolerance


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_every_khronos_clip_plans_the_same_keys_batched(path):
    document = core.load(path)
    for animation in document.animations:
        samplers = [c.sampler for c in animation.channels]
        tolerances = [0.01 / (1 + i % 3) for i in range(len(samplers))]
        for sampler, tolerance, keys in zip(samplers, tolerances, keyframes_for_channels(samplers, tolerances)):
            assert_same_keys(keys, K.keyframes_for(sampler, tolerance))


def test_baking_passes_every_channel_to_keyframes_for():
    rng = np.random.default_rng(7)
    samplers = [slerp_channel(rng, 5, 50.0), slerp_channel(rng, 3, 10.0)]
    frames = np.linspace(0.0, 1.0, 9)
    for sampler, keys in zip(samplers, keyframes_for_channels(samplers, [0.01, 0.01], bake_times=frames)):
        assert_same_keys(keys, K.keyframes_for(sampler, 0.01, bake_times=frames))
        assert set(keys.interpolation) == {K.LINEAR}


def cubicslerp_channel(rng, count, step_degrees, corner_degrees=30.0):
    """A CUBICSLERP sampler with tangents up to ``corner_degrees`` off their keys, stored signs
    flipped at random."""
    v = [about([0, 0, 1], 0.0)]
    for _ in range(count - 1):
        v.append(qmul(about(rng.normal(size=3), float(rng.uniform(0.3, 1.0) * step_degrees)), v[-1]))
    rows = []
    for q in v:
        for _ in range(3):
            rows.append(np.array(qmul(q, about(rng.normal(size=3), float(rng.uniform(0, corner_degrees)))))
                        * rng.choice([-1.0, 1.0]))
        rows[-2] = np.array(q)
    times = np.cumsum(rng.uniform(0.05, 0.7, size=count))
    return Sampler("CUBICSLERP", times, np.array(rows), "rotation", "/q")


@pytest.mark.parametrize("seed", range(5))
def test_cubicslerp_channels_refined_together_match_channel_by_channel(seed):
    rng = np.random.default_rng(200 + seed)
    samplers = [cubicslerp_channel(rng, int(rng.integers(2, 12)), float(rng.choice([10.0, 60.0, 130.0])))
                for _ in range(6)]
    samplers.insert(3, slerp_channel(rng, 5, 40.0))
    tolerances = list(rng.choice([0.01, 0.003, 0.05], size=len(samplers)))
    for sampler, tolerance, keys in zip(samplers, tolerances, keyframes_for_channels(samplers, tolerances)):
        single = K.keyframes_for(sampler, tolerance)
        assert len(keys) == len(single)
        for name in FIELDS:
            np.testing.assert_allclose(getattr(keys, name), getattr(single, name), rtol=0, atol=1e-9)
        np.testing.assert_array_equal(keys.times[np.isin(single.times, sampler.times)],
                                      sampler.times[np.isin(sampler.times, single.times)])


def test_a_jumping_cubicslerp_channel_keeps_its_jump_and_constant_gap_in_a_batch():
    times, rows, jump = jumping_segment(40.01)
    jumping = Sampler("CUBICSLERP", times, rows, "rotation", "/j")
    rng = np.random.default_rng(9)
    samplers = [cubicslerp_channel(rng, 6, 60.0), jumping, cubicslerp_channel(rng, 4, 30.0)]
    batched = keyframes_for_channels(samplers, [0.01] * 3)
    single = K.keyframes_for(jumping, 0.01)
    assert_same_keys_loosely(batched[1], single)
    assert batched[1].jumps is not None
    np.testing.assert_allclose(batched[1].jumps, [jump], atol=1e-9)
    assert K.CONSTANT in set(batched[1].interpolation)


def assert_same_keys_loosely(batched, single):
    assert len(batched) == len(single)
    for name in FIELDS:
        np.testing.assert_allclose(getattr(batched, name), getattr(single, name), rtol=0, atol=1e-9)
    assert list(batched.interpolation) == list(single.interpolation)


def test_a_tolerance_of_zero_is_refused_before_anything_is_fitted():
    rng = np.random.default_rng(3)
    with pytest.raises(ValueError):
        keyframes_for_channels([slerp_channel(rng, 4, 20.0), cubicslerp_channel(rng, 4, 20.0)], [0.01, 0.0])
