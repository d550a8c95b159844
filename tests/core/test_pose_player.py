"""core.sampling.pose_player against the core evaluator, hand-worked values and the project's sample.

The reference for every channel is what the contract defines the player to be: the channel's own
``Sampler.evaluate`` (core.sampling.interpolation, tested on its own against Appendix C) mapped through
``value @ matrix.T + offset``, normalized with numpy's norm for rotations. Players mix every
interpolation, path and width in one batch, so a channel read from another's keys, segment or
map shows up as a mismatch.
"""

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gltf_sqlerp import core
from gltf_sqlerp.core.sampling.animation import Sampler
from gltf_sqlerp.core.blender_model.clip_record import ChannelRecord, SamplerRecord
from gltf_sqlerp.core.sampling.pose_player import PlayerChannel, PosePlayer

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"
S22, C22 = math.sin(math.radians(22.5)), math.cos(math.radians(22.5))
R2 = math.sqrt(0.5)
# glTF quaternion (x, y, z, w) to Blender's (w, x, y, z).
TO_WXYZ = np.eye(4)[[3, 0, 1, 2]]
COMBINATIONS = [(i, p) for i in ("STEP", "LINEAR", "CUBICSPLINE")
                for p in ("translation", "rotation", "scale", "weights")] + \
               [("CUBICSLERP", "rotation")]


def reference(channel, times):
    """Sampler.evaluate mapped to Blender's space; rotations normalized."""
    values = Sampler(channel.interpolation, channel.times, channel.values, channel.path,
                     "").evaluate(times) @ channel.matrix.T + channel.offset
    if channel.path == "rotation":
        values /= np.linalg.norm(values, axis=1, keepdims=True)
    return values


def unit(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def left(q):
    """Matrix of q * p on (w, x, y, z) quaternions p: Blender's rest corrections (pose_mapping)."""
    w, x, y, z = q
    return np.array([[w, -x, -y, -z], [x, w, -z, y], [y, z, w, -x], [z, -y, x, w]])


def well_conditioned(rng: np.random.Generator, k: int):
    """Random matrix with singular values in [0.5, 2]."""
    u, _ = np.linalg.qr(rng.normal(size=(k, k)))
    v, _ = np.linalg.qr(rng.normal(size=(k, k)))
    return u @ np.diag(rng.uniform(0.5, 2.0, k)) @ v


def random_channel(rng, interpolation, path, n, rotation_map="general"):
    """Uneven key times; rotations unit quaternions of random sign; CUBICSLERP's unused a_1 and
    b_n zeros, as exporters write them. rotation_map: 'general' (any matrix; an offset),
    'blender' (a rest rotation times glTF-to-Blender order, from float32 numbers)."""
    times = np.cumsum(rng.uniform(0.05, 1.5, n)) - rng.uniform(0.0, 1.0)
    width = {"rotation": 4, "weights": int(rng.integers(1, 6))}.get(path, 3)
    rows = 3 * n if interpolation in ("CUBICSPLINE", "CUBICSLERP") else n
    if path == "rotation" and interpolation != "CUBICSPLINE":
        values = unit(rng, rows)
        if interpolation == "CUBICSLERP":
            values[[0, -1]] = 0.0
    else:
        values = rng.normal(size=(rows, width))
        if path == "rotation":
            values[1::3] = unit(rng, n)
    if path == "rotation" and rotation_map == "blender":
        matrix = left(unit(rng, 1)[0].astype(np.float32).astype(np.float64)) @ TO_WXYZ
        offset = np.zeros(4)
    else:
        matrix, offset = well_conditioned(rng, width), rng.normal(size=width)
    return PlayerChannel(interpolation, times, values, path, matrix, offset)


def random_rig(rng, count, rotation_map="general"):
    channels = []
    for _ in range(count):
        interpolation, path = COMBINATIONS[rng.integers(len(COMBINATIONS))]
        n = int(rng.choice([1, 2, 3, 5, 8, 13]))
        channels.append(random_channel(rng, interpolation, path, n, rotation_map))
    return channels


def queries(channels, rng):
    """Every key time exactly, times outside every range, random times in between, unsorted."""
    keys = np.concatenate([c.times for c in channels])
    inside = rng.uniform(keys.min(), keys.max(), 200)
    return np.concatenate([keys, [keys.min() - 3.0, keys.max() + 3.0, -1e9, 1e9], inside])


def assert_player_matches(player, channels, times):
    over = player.over(times)
    assert len(over) == len(channels)
    for channel, got in zip(channels, over):
        expected = reference(channel, times)
        assert got.shape == expected.shape and got.dtype == np.float64
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    for i, time in enumerate(times):
        at = player.at(time)
        assert [a.shape for a in at] == [(c.values.shape[1],) for c in channels]
        np.testing.assert_allclose(np.concatenate(at), np.concatenate([o[i] for o in over]),
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("rotation_map", ["general", "blender"])
@pytest.mark.parametrize("seed", range(6))
def test_mixed_rig_matches_sampler_mapped(seed, rotation_map):
    rng = np.random.default_rng(seed)
    channels = random_rig(rng, 40, rotation_map)
    assert_player_matches(PosePlayer(channels), channels, queries(channels, rng))


@pytest.mark.parametrize("interpolation,path", COMBINATIONS)
def test_each_interpolation_and_path_alone(interpolation, path):
    rng = np.random.default_rng(7)
    channels = [random_channel(rng, interpolation, path, n) for n in (2, 3, 9, 1, 4)]
    assert_player_matches(PosePlayer(channels), channels, queries(channels, rng))


def test_key_times_give_mapped_stored_keys_and_clamp_outside():
    rng = np.random.default_rng(11)
    channels = random_rig(rng, 30)
    player = PosePlayer(channels)
    for index, channel in enumerate(channels):
        keys = channel.values[1::3] if channel.interpolation in ("CUBICSPLINE", "CUBICSLERP") \
            else channel.values
        mapped = keys @ channel.matrix.T + channel.offset
        if channel.path == "rotation":
            mapped /= np.linalg.norm(mapped, axis=1, keepdims=True)
        got = player.over(np.concatenate([[channel.times[0] - 5.0], channel.times,
                                          [channel.times[-1] + 5.0]]))[index]
        np.testing.assert_allclose(got[1:-1], mapped, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got[0], mapped[0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got[-1], mapped[-1], rtol=0, atol=1e-12)


def test_one_key_channels_are_constant():
    channel = PlayerChannel("CUBICSPLINE", np.array([2.0]), np.array([[9.0, 9.0], [1.0, 2.0], [9.0, 9.0]]),
                            "weights", np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([10.0, 20.0]))
    player = PosePlayer([channel])
    for time in (-1.0, 2.0, 7.5):
        assert player.at(time)[0].tolist() == [12.0, 21.0]


def test_hand_worked_translation_and_quarter_turn():
    # The glTF tutorial's LINEAR example: (16, 2, -0.5) at t = 1.2; Blender's location is
    # (x, -z, y) (+Y up to +Z up) plus an offset of (1, 0, 0).
    translation = PlayerChannel("LINEAR", np.array([0.0, 0.8, 1.6, 2.4]),
                                np.array([[0, 0, 0], [14, 3, -2], [18, 1, 1], [0, 0, 0]]), "translation",
                                np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]]), np.array([1.0, 0.0, 0.0]))
    # slerp from 0 to 90 degrees about z, halfway at t = 2: 45 degrees, (w, x, y, z) in Blender.
    rotation = PlayerChannel("LINEAR", np.array([1.0, 3.0]), np.array([[0, 0, 0, 1], [0, 0, R2, R2]]), "rotation",
                             TO_WXYZ, np.zeros(4))
    player = PosePlayer([translation, rotation])
    np.testing.assert_allclose(player.at(1.2)[0], [17.0, 0.5, 2.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(player.at(2.0)[1], [C22, 0.0, 0.0, S22], rtol=0, atol=1e-15)


def test_cubicslerp_with_equal_tangents_is_slerp():
    # a_i = b_i = v_i: the tangent arc equals the key arc, so the outer slerp stays on it
    # (spec "CUBICSLERP Interpolation"): z(0) -> z(90) at t = 0.5 is z(45).
    keys = np.array([[0, 0, 0, 1], [0, 0, R2, R2]])
    values = np.repeat(keys, 3, axis=0)
    channel = PlayerChannel("CUBICSLERP", np.array([0.0, 1.0]), values, "rotation", np.eye(4), np.zeros(4))
    np.testing.assert_allclose(PosePlayer([channel]).at(0.5)[0], [0, 0, S22, C22],
                               rtol=0, atol=1e-15)


@pytest.mark.parametrize("times", [[0.0, 1.0, 1.0, 2.0], [0.0, 0.0, 1.0, 2.0],
                                   [0.0, 1.0, 2.0, 2.0]])
def test_equal_key_times_jump_like_the_sampler(times):
    # Equal times only pass validation in accessors without data; the sampler jumps there.
    rng = np.random.default_rng(3)
    channels = [PlayerChannel("LINEAR", times, rng.normal(size=(4, 3)), "translation",
                              np.eye(3), np.zeros(3)),
                PlayerChannel("STEP", times, rng.normal(size=(4, 2)), "weights",
                              np.eye(2), np.ones(2)),
                PlayerChannel("CUBICSPLINE", times, rng.normal(size=(12, 3)), "scale",
                              np.eye(3), np.zeros(3)),
                PlayerChannel("LINEAR", times, unit(rng, 4), "rotation", TO_WXYZ, np.zeros(4))]
    grid = np.array([-1.0, 0.0, 1e-12, 0.5, 1.0 - 1e-12, 1.0, 1.0 + 1e-12, 1.5, 2.0 - 1e-12,
                     2.0, 3.0])
    assert_player_matches(PosePlayer(channels), channels, grid)


def test_vectors_at_key_times_are_the_stored_keys_bit_for_bit():
    # Appendix C: at a key time the key's value is returned as stored (identity map), including
    # the last key, which ends the last segment (t = 1) rather than starting one.
    rng = np.random.default_rng(13)
    channels = []
    for interpolation in ("STEP", "LINEAR", "CUBICSPLINE"):
        for path, width in (("translation", 3), ("weights", 2)):
            channel = random_channel(rng, interpolation, path, 6)
            values = rng.normal(size=(channel.values.shape[0], width))
            channels.append(PlayerChannel(interpolation, channel.times, values, path,
                                          np.eye(width), np.zeros(width)))
    over = PosePlayer(channels).over(np.concatenate([c.times for c in channels]))
    for i, (channel, got) in enumerate(zip(channels, over)):
        assert np.array_equal(got[6 * i:6 * i + 6], channel.keys)


def test_identical_neighbour_keys_take_the_tiny_angle_branch():
    rng = np.random.default_rng(5)
    keys = unit(rng, 3)
    keys = np.array([keys[0], keys[0], -keys[0], keys[1], keys[1] + 1e-9 * keys[2]])
    keys /= np.linalg.norm(keys, axis=1, keepdims=True)
    tangents = np.repeat(keys, 3, axis=0)
    channels = [PlayerChannel("LINEAR", np.arange(5.0), keys, "rotation", TO_WXYZ, np.zeros(4)),
                PlayerChannel("CUBICSLERP", np.arange(5.0), tangents, "rotation", TO_WXYZ,
                              np.zeros(4))]
    assert_player_matches(PosePlayer(channels), channels, np.linspace(-0.5, 4.5, 41))


def stored_record(path, matrix, offset, sampler, fallback=None):
    """A ChannelRecord read back from the stored form the importer writes (core.blender_model.clip_record)."""
    def stored(s):
        return SamplerRecord(s.interpolation, s.times, s.values, s.pointer).to_record()
    record = {"node": 0, "path": path, "pointer": "", "id_name": "Arm", "id_type": "Object",
              "slot": "", "data_path": "", "curves": [], "matrix": np.ravel(matrix).tolist(),
              "offset": list(offset), "source": "EXTENSION", "sampler": stored(sampler)}
    if fallback is not None:
        record["fallback"] = stored(fallback)
    return ChannelRecord.from_record(record)


def test_sample_records_through_from_records():
    """Records as the importer stores them (core.blender_model.clip_record), identity maps: each source plays
    what core.Channel.evaluate plays with or without the fallback."""
    document = core.load(SAMPLE)
    channels = document.animations[0].channels
    records = []
    for channel in channels:
        k = channel.sampler.values.shape[1]
        records.append(stored_record(channel.path, np.eye(k), [0.0] * k, channel.sampler,
                                     channel.fallback))
    assert {c.sampler.interpolation for c in channels} >= {"CUBICSLERP", "LINEAR"}
    assert {c.fallback is None for c in channels} == {True, False}
    end = document.animations[0].duration
    times = np.concatenate([np.linspace(-0.5, end + 0.5, 397),
                            *(c.sampler.times for c in channels)])
    for source, use_fallback in (("EXTENSION", False), ("FALLBACK", True)):
        player = PosePlayer.from_records(records, source)
        over = player.over(times)
        for channel, got in zip(channels, over):
            expected = channel.evaluate(times, use_fallback=use_fallback)
            if channel.path == "rotation":
                expected = expected / np.linalg.norm(expected, axis=1, keepdims=True)
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
        for i in range(0, len(times), 37):
            np.testing.assert_allclose(np.concatenate(player.at(times[i])),
                                       np.concatenate([o[i] for o in over]), rtol=0, atol=1e-12)


def test_sources_differ_where_the_sample_has_a_fallback():
    channel = next(c for c in core.load(SAMPLE).animations[0].channels if c.fallback is not None)
    record = stored_record("rotation", TO_WXYZ, [0.0] * 4, channel.sampler, channel.fallback)
    times = np.linspace(channel.sampler.times[0], channel.sampler.times[-1], 101)
    sqlerp = PosePlayer.from_records([record], "EXTENSION").over(times)[0]
    fallback = PosePlayer.from_records([record], "FALLBACK").over(times)[0]
    np.testing.assert_allclose(sqlerp, channel.evaluate(times) @ TO_WXYZ.T, rtol=0, atol=1e-12)
    assert channel.fallback is not None
    np.testing.assert_allclose(fallback, channel.fallback.evaluate(times) @ TO_WXYZ.T,
                               rtol=0, atol=1e-12)
    assert not np.allclose(sqlerp, fallback, atol=1e-9)


def test_invalid_input_is_refused():
    with pytest.raises(ValueError):
        PlayerChannel("HERMITE", np.array([0.0]), np.array([[1.0]]), "weights", np.array([[1.0]]), np.array([0.0]))
    with pytest.raises(ValueError):
        PlayerChannel("CUBICSPLINE", np.array([0.0, 1.0]), np.zeros((2, 3)), "translation", np.eye(3),
                      np.zeros(3))
    with pytest.raises(ValueError):
        PlayerChannel("CUBICSLERP", np.array([0.0, 1.0]), np.zeros((6, 4)), "weights", np.eye(4),
                      np.zeros(4))
    with pytest.raises(ValueError):
        PlayerChannel("LINEAR", np.array([0.0, 1.0]), np.zeros((2, 3)), "rotation", np.eye(3), np.zeros(3))
    with pytest.raises(ValueError):
        PosePlayer.from_records([], "BLENDER")


def test_no_channels():
    player = PosePlayer([])
    assert player.at(1.0) == [] and player.over([0.0, 1.0]) == []


@st.composite
def channel_and_times(draw):
    interpolation, path = draw(st.sampled_from(COMBINATIONS))
    n = draw(st.integers(1, 6))
    gaps = draw(st.lists(st.floats(0.001, 4.0), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    channel = random_channel(np.random.default_rng(seed), interpolation, path, n,
                             draw(st.sampled_from(["general", "blender"])))
    channel.times = np.cumsum(gaps) + draw(st.floats(-10.0, 10.0))
    inside = draw(st.lists(st.floats(-20.0, 40.0), max_size=8))
    return channel, np.concatenate([channel.times, inside])


@settings(max_examples=150, deadline=None)
@given(st.lists(channel_and_times(), min_size=1, max_size=5))
def test_hypothesis_any_rig_matches_sampler(drawn):
    channels = [c for c, _ in drawn]
    times = np.concatenate([t for _, t in drawn])
    assert_player_matches(PosePlayer(channels), channels, times)
