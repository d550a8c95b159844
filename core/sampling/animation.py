"""Animations, channels and samplers, with EXT_animation_sqlerp wired in.

A channel carrying ``extensions.EXT_animation_sqlerp.sampler`` plays that CUBICSLERP sampler by
default and keeps its core ``sampler`` as the fallback that viewers without the extension play
(spec "Channel forms"). The draft's form without a core ``sampler`` is accepted and has no fallback.
This module assumes ``core.gltf.validation`` passed: it reshapes and repairs data, it does not re-check it.
"""

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..gltf import read_accessor
from ..gltf import GltfFile, node_target, pointer
from .pointer_channels import PointerChannel, mesh_weight_channels, read_pointer_channels
from .quaternions import normalize
from .sampler import Sampler
from ..constants import CUBICSLERP, CUBIC_INTERPOLATIONS, EXTENSION_NAME, INTERPOLATIONS

PATHS = ("translation", "rotation", "scale", "weights")


class Channel:
    """One animated property of one node; ``sampler`` is what plays by default.

    Attributes
    ----------
    node : int
        The target node's index.
    path : str
        translation, rotation, scale or weights.
    sampler : Sampler
        What plays by default: the EXT_animation_sqlerp sampler where the channel has one, else the
        channel's core sampler.
    fallback : Sampler or None
        The core sampler that viewers without the extension play, beside the extension's; None
        otherwise (spec "Channel forms").
    pointer : str
        The channel's JSON pointer, such as ``/animations/0/channels/1``.
    uses_extension : bool
        ``sampler`` is CUBICSLERP (a property).
    """

    def __init__(self, node: int, path: str, sampler: Sampler, fallback: Sampler | None, pointer_: str) -> None:
        self.node = node
        self.path = path
        self.sampler = sampler
        self.fallback = fallback
        self.pointer = pointer_

    @property
    def uses_extension(self) -> bool:
        return self.sampler.interpolation == CUBICSLERP

    def evaluate(self, times: npt.ArrayLike, use_fallback: bool = False) -> npt.NDArray[np.float64]:
        """Evaluate the channel at ``times`` as the glTF spec plays it.

        Parameters
        ----------
        times : (T,) float array or float
            Seconds, clamped to the keys.
        use_fallback : bool
            Play what viewers without EXT_animation_sqlerp play; a channel without a fallback
            plays its only sampler.

        Returns
        -------
        (T, k) float64 array
            k = 4 for rotations (x, y, z, w), 3 for translation and scale, the morph target count
            for weights.

        Examples
        --------
        The sample's elbow keys (tools/make_sample.py) turn 35 degrees about X at 0.35 s and 310
        degrees at 2 s, the last key, held after it: (sin, cos) of half angles 17.5 and 155 degrees.

        >>> from gltf_sqlerp import core
        >>> elbow = core.load("samples/sqlerp_arm.gltf").animations[0].channels[1]
        >>> elbow.path, elbow.uses_extension, (elbow.evaluate([0.0, 0.35, 3.0]).round(4) + 0.0).tolist()
        ('rotation', True, [[0.0, 0.0, 0.0, 1.0], [0.3007, 0.0, 0.0, 0.9537], [0.4226, 0.0, 0.0, -0.9063]])
        """
        chosen = self.fallback if use_fallback and self.fallback is not None else self.sampler
        return chosen.evaluate(times)

    def __repr__(self) -> str:
        return f"<Channel node={self.node} {self.path} {self.sampler!r}>"


class Animation:
    """One glTF animation (a clip): its node channels and its channels to other properties.

    Attributes
    ----------
    name : str
        The animation's name, or ``Animation_<index>`` where it has none.
    index : int
        Its index in the file's ``animations``.
    channels : list of Channel
        Node channels (translation, rotation, scale, weights), KHR_animation_pointer ones to those
        properties included.
    pointer_channels : list of PointerChannel
        KHR_animation_pointer channels to other properties (core.sampling.pointer_channels).
    pointer_skipped : list of str
        Why any pointer channel was left out.
    duration : float
        Seconds from 0 to the last key of any sampler the animation plays (a property).
    """

    def __init__(self, name: str, index: int, channels: list[Channel],
                 pointer_channels: list[PointerChannel] | None = None,
                 pointer_skipped: list[str] | None = None) -> None:
        self.name = name
        self.index = index
        self.channels = channels
        self.pointer_channels = pointer_channels or []
        self.pointer_skipped = pointer_skipped or []

    @property
    def duration(self) -> float:
        """Seconds from 0 to the last key of any sampler the animation plays (glTF time starts at 0)."""
        ends = [s.times[-1] for c in self.channels for s in (c.sampler, c.fallback) if s is not None]
        ends += [c.sampler.times[-1] for c in self.pointer_channels]
        return float(max(ends, default=0.0))

    def __repr__(self) -> str:
        return f"<Animation {self.index} {self.name!r} {len(self.channels)} channels>"


def read_animations(gltf: GltfFile, accessor: Callable[[int], np.ndarray] | None = None) -> list[Animation]:
    """Build every animation of a validated GltfFile.

    Parameters
    ----------
    gltf : GltfFile
        A file that core.gltf.validation passed: data is reshaped and repaired here, not checked.
    accessor : callable or None
        ``accessor(i)`` reads accessor i as a (count, components) array, and may cache it
        (Document.accessor); None reads each with core.gltf.read_accessor.

    Returns
    -------
    list of Animation
        One per entry of the file's ``animations``, in order.

    Examples
    --------
    >>> from gltf_sqlerp.core.gltf import read_file
    >>> [(clip.name, len(clip.channels)) for clip in read_animations(read_file("samples/sqlerp_arm.gltf"))]
    [('Wave', 4)]
    """
    accessor = accessor or (lambda index: read_accessor(gltf, index))
    document = gltf.json
    result = []
    for a, animation in enumerate(document.get("animations", [])):
        builder = _SamplerBuilder(gltf, accessor, a, animation)
        channels = [ch for c, channel in enumerate(animation["channels"])
                    if (ch := _read_channel(builder, a, c, channel)) is not None]
        weights, skipped = mesh_weight_channels(gltf, a, animation, accessor)
        channels = _with_mesh_weights(channels, weights, a)
        pointers, more = read_pointer_channels(gltf, a, animation, accessor)
        result.append(Animation(animation.get("name") or f"Animation_{a}", a, channels, pointers, skipped + more))
    return result


def _with_mesh_weights(channels, weights, a):
    """Node channels plus the morph weights of the nodes whose mesh a pointer animates. A node
    keeps the first weights channel of the animation, node or mesh, as Blender's importer does."""
    first = {ch.node: int(ch.pointer.rsplit("/", 1)[1]) for ch in reversed(channels) if ch.path == "weights"}
    added = []
    for node, sampler, c in weights:
        if first.get(node, c + 1) > c:
            first[node] = c
            added.append(Channel(node, "weights", sampler, None, pointer("animations", a, "channels", c)))
    kept = [ch for ch in channels if ch.path != "weights" or first[ch.node] == int(ch.pointer.rsplit("/", 1)[1])]
    return kept + [ch for ch in added if first[ch.node] == int(ch.pointer.rsplit("/", 1)[1])]


def _read_channel(builder, a, c, channel):
    target = channel["target"]
    node, path = node_target(target) or (target.get("node"), target.get("path"))
    # glTF 2.0 §3.11: a channel without a node is ignored; other paths belong to other extensions
    # (KHR_animation_pointer to a node's TRS or weights is a node channel: core.gltf.animation_pointer).
    if node is None or path not in PATHS:
        return None
    node = int(node)  # JSON allows 1.0 for 1, and the validator accepts it
    extension = channel.get("extensions", {}).get(EXTENSION_NAME)
    core = builder.sampler(int(channel["sampler"]), path, node) if "sampler" in channel else None
    if core is not None and core.interpolation not in INTERPOLATIONS:
        # An interpolation from an extension we do not know: a validator warning, and viewers
        # without that extension ignore the sampler (kept beside ours, it raised ValueError when
        # played: the fuzzer).
        core = None
    if extension is not None:
        cubic = builder.sampler(int(extension["sampler"]), path, node)
        return Channel(node, path, cubic, core, pointer("animations", a, "channels", c))
    if core is None:
        return None
    return Channel(node, path, core, None, pointer("animations", a, "channels", c))


class _SamplerBuilder:
    """Reads samplers of one animation once each, shaped for the path that uses them."""

    def __init__(self, gltf, accessor, animation_index, animation):
        self.gltf, self.accessor = gltf, accessor
        self.index, self.samplers = animation_index, animation["samplers"]
        self.cache = {}

    def sampler(self, s, path, node):
        key = (s, path, node)
        if key not in self.cache:
            self.cache[key] = self._build(s, path, node)
        return self.cache[key]

    def _build(self, s, path, node):
        spec = self.samplers[s]
        name = spec.get("interpolation", "LINEAR")
        times = self.accessor(int(spec["input"]))[:, 0].astype(np.float64)
        values = self.accessor(int(spec["output"])).astype(np.float64)
        if path == "weights":
            rows = len(times) * (3 if name in CUBIC_INTERPOLATIONS else 1)
            values = values.reshape(rows, -1)
        elif path == "rotation":
            values = _repair_rotations(values, name)
        return Sampler(name, times, values, path, pointer("animations", self.index, "samplers", s))


def _repair_rotations(values, name):
    """Renormalize rotation data (normalized-integer outputs, or floats a little off unit length;
    the validator reports the latter as warnings). CUBICSPLINE tangents are derivatives, not
    rotations, so only its values are touched; the unused a_1 and b_n of CUBICSLERP stay as they are."""
    values = values.copy()
    rows = np.ones(len(values), dtype=bool)
    if name == "CUBICSPLINE":
        rows[:] = False
        rows[1::3] = True
    elif name == CUBICSLERP:
        rows[[0, -1]] = False
    values[rows] = normalize(values[rows])
    # A zero quaternion has no rotation to repair to; it only passes validation as an accessor
    # without data (all zeros, a validator warning), which plays as the identity.
    zero = rows & ~np.any(values, axis=1)
    values[zero] = (0.0, 0.0, 0.0, 1.0)
    return values
