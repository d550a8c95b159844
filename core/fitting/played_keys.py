"""What a rotation channel's written keys play, as a function of seconds: the extension's
sampler or the fallback's (``keys_player``), any sampler held at its ends as glTF holds it
(``sampler_player``). The export's world pass composes these down the node tree; a channel
fitted with a grid (ChannelTask.grid) plays its keys and its exact motion there where it was
fitted, in a worker process, so that Blender's thread only composes them."""

from typing import Callable

import numpy as np

from ..gltf import as_stored
from ..sampling import Evaluator, slerp_keys
from ..sampling import quaternions as quat
from .channel_keys import ChannelKeys
from ..constants import CUBICSLERP

# seconds -> (T, 4) unit quaternions
Player = Callable[[np.ndarray], np.ndarray]


def keys_player(keys: ChannelKeys, fallback: bool) -> Player | None:
    """Play what a rotation channel's keys write, as a viewer reads them.

    Parameters
    ----------
    keys : ChannelKeys
        A channel's keys: its core sampler alone (``linear``), or its CUBICSLERP keys with their
        fallback; played with their values rounded as written.
    fallback : bool
        Play the fallback that viewers without the extension play instead of the CUBICSLERP keys
        (the core sampler alone plays either way).

    Returns
    -------
    Player or None
        A function of (T,) seconds giving (T, 4) unit quaternions, held at the ends; None for the
        fallback where it is the bundled sampler, kept.

    Raises
    ------
    ValueError
        When ``keys`` write nothing (skipped) and the extension's keys are asked for.

    Examples
    --------
    >>> from gltf_sqlerp.core.fitting.linear_reduction import LinearKeys
    >>> ends = LinearKeys(np.array([0.0, 1.0]), np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]]), 0.0)
    >>> play = keys_player(ChannelKeys(None, "FLOAT", linear=ends), fallback=False)  # LINEAR: slerp
    >>> play(np.array([-1.0, 0.5])).round(6).tolist()  # held before the first key; halfway 90 deg about Z
    [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.707107, 0.707107]]
    """
    if keys.linear is not None:
        return sampler_player(keys.interpolation, keys.linear.times, as_stored(keys.linear.values, keys.precision))
    if fallback:
        if keys.fallback is None:
            return None
        interpolation, times, values = keys.fallback
        return sampler_player(interpolation, times, as_stored(values, keys.fallback_precision))
    if keys.fit is None:
        raise ValueError("keys_player: the keys write nothing (skipped)")
    precision = "FLOAT" if keys.precision == "KEPT" else keys.precision
    return sampler_player(CUBICSLERP, keys.fit.times, quat.normalize(as_stored(keys.fit.interleaved(), precision)))


def sampler_player(interpolation: str, times: np.ndarray, values: np.ndarray) -> Player:
    """Play a rotation sampler, held at its ends outside its range (as glTF).

    LINEAR is played without the Evaluator's set-up: most samplers here are played once per
    pass, so the set-ups would add up (measured: docs/manual/benchmarks.md, "Kernel choices").

    Parameters
    ----------
    interpolation : str
        STEP, LINEAR, CUBICSPLINE or CUBICSLERP.
    times : (n,) float array
        Key times in seconds, strictly increasing.
    values : (n, 4) or (3n, 4) float array
        Quaternions (x, y, z, w): (n, 4) for STEP and LINEAR, (3n, 4) rows (a_i, v_i, b_i) for
        CUBICSPLINE and CUBICSLERP.

    Returns
    -------
    Player
        A function of (T,) seconds giving (T, 4) unit quaternions.

    Examples
    --------
    >>> values = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]])  # still, then 180 deg about Z
    >>> play = sampler_player("LINEAR", np.array([0.0, 1.0]), values)
    >>> play(np.array([0.5, 2.0])).round(6).tolist()  # slerp halfway: 90 deg; held after the last key
    [[0.0, 0.0, 0.707107, 0.707107], [0.0, 0.0, 1.0, 0.0]]
    """
    times = np.asarray(times, dtype=np.float64)
    if interpolation == "LINEAR" and len(times) > 1:
        values = np.asarray(values, dtype=np.float64)
        return lambda seconds: quat.normalize(slerp_keys(times, values, np.clip(seconds, times[0], times[-1])))
    evaluator = Evaluator(interpolation, times, values, rotation=True)
    return lambda seconds: quat.normalize(evaluator(np.clip(seconds, times[0], times[-1])))
