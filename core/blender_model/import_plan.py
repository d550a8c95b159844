"""What an import writes, decided before Blender is touched: per channel, which sampler plays and
the keys (in glTF value space, times in seconds) that make Blender play it within tolerance.

Doing all of this first means a file that cannot be planned never reaches the scene, and the part
that runs inside the importer is only bulk writing.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..document import Document
from ..sampling import Animation, Channel, Sampler, Scene
from .keyframes import Keyframes
from .keyframes_batch import keyframes_for_channels

SOURCES = ("EXTENSION", "FALLBACK")


@dataclass(frozen=True)
class ImportSettings:
    """The choices an import is planned with.

    Attributes
    ----------
    source : str
        EXTENSION or FALLBACK: what EXT_animation_sqlerp channels play.
    tolerance_deg : float
        The rotation tolerance of fitted curves, in degrees of world rotation (shared along
        chains of animated bones: rotation_budgets).
    bake : bool
        Plain LINEAR keys on every frame instead of fitted curves.
    frames_per_second : float
        The scene's real rate: fps / fps_base.
    """
    source: str = "EXTENSION"
    tolerance_deg: float = 0.01
    bake: bool = False
    frames_per_second: float = 24.0


@dataclass
class ChannelPlan:
    animation: int
    index: int                 # position in Animation.channels
    channel: Channel
    sampler: Sampler           # the one that plays (extension or fallback)
    keyframes: Keyframes       # glTF values, seconds
    frames_per_second: float

    @property
    def source(self) -> str:
        return "FALLBACK" if self.sampler is self.channel.fallback else "EXTENSION"

    def jumps(self) -> np.ndarray:
        """Times (seconds) where the played CUBICSLERP curve jumps (keyed either side)."""
        return self.keyframes.jumps if self.keyframes.jumps is not None else np.zeros(0)


def chosen_sampler(channel: Channel, source: str) -> Sampler:
    if source == "FALLBACK" and channel.fallback is not None:
        return channel.fallback
    return channel.sampler


def bake_times(duration: float, frames_per_second: float) -> np.ndarray:
    """Every whole frame from 0 to the end of the clip, and the clip's last instant itself."""
    frames = np.arange(0.0, np.floor(duration * frames_per_second) + 1.0)
    times = frames / frames_per_second
    return times if times[-1] >= duration else np.append(times, duration)


def rotation_budgets(parents: npt.ArrayLike, order: np.ndarray, animated: Iterable[int]) -> np.ndarray:
    """Divide the rotation tolerance among the animated rotations of each chain of nodes.

    A node's world rotation carries the errors of every animated rotation above it, so the
    tolerance is split evenly along the longest chain of rotation-animated nodes through each
    node: errors then add up to at most the tolerance in world space.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent, -1 for roots.
    order : (N,) int array
        Node indices, parents first.
    animated : iterable of int
        The nodes with animated rotation.

    Returns
    -------
    (N,) int array
        Per node, the number of shares: its own curve may use the tolerance divided by it (at
        least 1).

    Examples
    --------
    >>> parents = [-1, 0, 1, 2, 0]  # a chain 0-1-2-3, and 4 under 0
    >>> rotation_budgets(parents, np.array([0, 1, 2, 3, 4]), animated=[1, 2, 3]).tolist()
    [3, 3, 3, 3, 1]
    """
    parents = np.asarray(parents)
    animated_mask = np.zeros(len(parents))
    animated_mask[list(animated)] = 1.0
    return np.maximum(chain_sums(parents, order, animated_mask), 1.0).astype(int)


def chain_sums(parents: np.ndarray, order: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Find the largest sum of weights along one chain from a root to a leaf through each node.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent, -1 for roots.
    order : (N,) int array
        Node indices, parents first.
    weights : (N,) float array
        Each node's weight.

    Returns
    -------
    (N,) float64 array
        Per node, the largest sum of ``weights`` along one chain from a root to a leaf through it.

    Examples
    --------
    >>> parents, order = np.array([-1, 0, 0, 1]), np.array([0, 1, 2, 3])  # chains 0-1-3 and 0-2
    >>> chain_sums(parents, order, np.array([1.0, 2.0, 4.0, 3.0])).tolist()  # 1+2+3 = 6, 1+4 = 5
    [6.0, 6.0, 5.0, 6.0]
    """
    above = np.zeros(len(parents))  # from the root down to the node, itself included
    below = np.zeros(len(parents))  # the largest strictly under it
    for node in order:
        parent = parents[node]
        above[node] = weights[node] + (above[parent] if parent >= 0 else 0.0)
    for node in order[::-1]:
        parent = parents[node]
        if parent >= 0:
            below[parent] = max(below[parent], below[node] + weights[node])
    return above + below


def plan_animations(animations: Sequence[Animation], settings: ImportSettings,
                    scene: Scene) -> dict[int, list[ChannelPlan]]:
    """{animation index: [ChannelPlan, ...]}, the keys of all of them fitted in one
    keyframes_for_channels call (many clips of a few channels each batch as well as one big one)."""
    if settings.bake:  # every clip keyed on its own frames
        out = {}
        for animation in animations:
            samplers, tolerances = _chosen(animation, settings, scene)
            times = bake_times(animation.duration, settings.frames_per_second)
            keys = keyframes_for_channels(samplers, tolerances, bake_times=times,
                                          frames_per_second=settings.frames_per_second)
            out[animation.index] = _plans(animation, settings, samplers, keys)
        return out
    chosen = [_chosen(a, settings, scene) for a in animations]
    keys = keyframes_for_channels([s for samplers, _ in chosen for s in samplers],
                                  [t for _, tolerances in chosen for t in tolerances],
                                  frames_per_second=settings.frames_per_second)
    out, start = {}, 0
    for animation, (samplers, _) in zip(animations, chosen):
        out[animation.index] = _plans(animation, settings, samplers, keys[start:start + len(samplers)])
        start += len(samplers)
    return out


def _chosen(animation, settings, scene):
    """(samplers that play, rotation tolerance per channel: shared along chains of bones)."""
    rotated = {c.node for c in animation.channels if c.path == "rotation"}
    shares = rotation_budgets(scene.parents, scene.order, rotated) if rotated else None
    samplers = [chosen_sampler(channel, settings.source) for channel in animation.channels]
    tolerances = [settings.tolerance_deg / (shares[c.node] if shares is not None and c.path == "rotation" else 1)
                  for c in animation.channels]
    return samplers, tolerances


def _plans(animation, settings, samplers, keys):
    return [ChannelPlan(animation.index, index, channel, sampler, channel_keys, settings.frames_per_second)
            for index, (channel, sampler, channel_keys) in enumerate(zip(animation.channels, samplers, keys))]


def plan_document(document: Document, settings: ImportSettings) -> dict[int, list[ChannelPlan]]:
    """Plan the import of every animation of a loaded Document: per channel, its sampler and keys.

    Parameters
    ----------
    document : Document
        The loaded file (core.document.load).
    settings : ImportSettings
        The source played, the tolerance, baking and the frame rate.

    Returns
    -------
    dict of int to list of ChannelPlan
        {animation index: one ChannelPlan per channel, in the animation's order}; each plan's
        ``keyframes`` are in glTF values and seconds.

    Examples
    --------
    >>> from gltf_sqlerp.core.document import load
    >>> (plans,) = plan_document(load("samples/sqlerp_arm.gltf"), ImportSettings(source="FALLBACK")).values()
    >>> [(plan.channel.path, plan.source, plan.sampler.interpolation) for plan in plans[2:]]  # no fallback: as is
    [('rotation', 'FALLBACK', 'LINEAR'), ('translation', 'EXTENSION', 'LINEAR')]
    """
    return plan_animations(document.animations, settings, document.scene)
