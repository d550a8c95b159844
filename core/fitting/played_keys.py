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
from .rotation_export import ChannelKeys
from ..constants import CUBICSLERP

# seconds -> (T, 4) unit quaternions
Player = Callable[[np.ndarray], np.ndarray]


def keys_player(keys: ChannelKeys, fallback: bool) -> Player | None:
    """What ``keys`` write, played: the core sampler alone, the CUBICSLERP sampler, or (with
    ``fallback``) its fallback; None where the fallback is the bundled sampler, kept."""
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
    """A rotation sampler played, held at its ends outside its range (as glTF). LINEAR without
    the Evaluator's set-up: most samplers here are played once per pass (RecursiveSkeletons:
    1,680 of them, 0.25 s of set-ups)."""
    times = np.asarray(times, dtype=np.float64)
    if interpolation == "LINEAR" and len(times) > 1:
        values = np.asarray(values, dtype=np.float64)
        return lambda seconds: quat.normalize(slerp_keys(times, values, np.clip(seconds, times[0], times[-1])))
    evaluator = Evaluator(interpolation, times, values, rotation=True)
    return lambda seconds: quat.normalize(evaluator(np.clip(seconds, times[0], times[-1])))
