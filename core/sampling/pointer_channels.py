"""KHR_animation_pointer channels to properties that are not a node's own (materials, cameras,
lights, textures' transforms, ...): what the spec plays for each, to import them exactly.

Pointers to a node's TRS or weights are node channels (core.gltf.animation_pointer). The others are
read here as plain vectors: STEP, LINEAR and CUBICSPLINE play them as for any float property
(glTF 2.0 Appendix C, no normalization). glTF-Validator does not look inside pointer channels (it
reports INCOMPLETE_EXTENSION_SUPPORT), and the core's validator checks their samplers' inputs only,
so a channel is read here only when its data can be played as it stands: float outputs, the count
its interpolation asks for, finite values. Any other is left out (``skipped`` says why), and
Blender's bundled importer imports it as it does.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..gltf import GltfFile, node_target, pointer, pointer_text
from .sampler import Sampler

PLAYABLE = ("STEP", "LINEAR", "CUBICSPLINE")
_FLOAT = 5126
# A mesh's morph weights ("/meshes/{m}/weights"): Blender's importer keys them on the shape keys
# of every node that instances the mesh, as it keys a node's "weights" channel; so does the core.
_MESH_WEIGHTS_TARGET = re.compile(r"/meshes/(0|[1-9][0-9]*)/weights")


@dataclass(frozen=True)
class PointerChannel:
    """One playable KHR_animation_pointer channel to a property that is not a node's own.

    Attributes
    ----------
    target : str
        The pointer it animates, e.g. "/materials/0/emissiveFactor".
    sampler : Sampler
        STEP, LINEAR or CUBICSPLINE over (n, k) or (3n, k) float values, played as for any float
        property (no normalization).
    sampler_index : int
        The sampler's index in its animation's ``samplers``.
    index : int
        The channel's index in its animation's ``channels``.
    pointer : str
        The channel's own JSON pointer, "/animations/a/channels/c".
    """
    target: str
    sampler: Sampler
    sampler_index: int
    index: int
    pointer: str

    def evaluate(self, times: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Evaluate the channel at ``times`` as the spec plays it.

        Parameters
        ----------
        times : (T,) float array
            Seconds, clamped to the keys.

        Returns
        -------
        (T, k) float64 array
            The property's k components at each time.

        Examples
        --------
        >>> import numpy as np
        >>> keys = Sampler("LINEAR", np.array([0.0, 2.0]), np.array([[0.0, 0.0], [1.0, 0.5]]), "pointer", "")
        >>> emissive = PointerChannel("/materials/0/emissiveFactor", keys, 0, 0, "/animations/0/channels/0")
        >>> emissive.evaluate([1.0, 5.0]).tolist()  # halfway, then clamped to the last key
        [[0.5, 0.25], [1.0, 0.5]]
        """
        return self.sampler.evaluate(times)


def read_pointer_channels(gltf: GltfFile, a: int, animation: dict[str, Any],
                          accessor: Callable[[int], np.ndarray]) -> tuple[list[PointerChannel], list[str]]:
    """Read animation ``a``'s playable pointer channels to properties that are not a node's own.

    Parameters
    ----------
    gltf : GltfFile
        The file.
    a : int
        The animation's index, for the pointers.
    animation : dict
        Its JSON object.
    accessor : callable
        Reads an accessor by index as a (count, components) array.

    Returns
    -------
    channels : list of PointerChannel
        In the order of the animation's ``channels``; node channels and meshes' morph weights
        (``mesh_weight_channels``) left out.
    skipped : list of str
        A readable reason per pointer channel that cannot be played as it stands.
    """
    channels, skipped = [], []
    for c, channel in enumerate(animation.get("channels", [])):
        target = channel.get("target")
        text = pointer_text(target)
        if text is None or node_target(target) is not None:
            continue
        where = pointer("animations", a, "channels", c)
        if _MESH_WEIGHTS_TARGET.fullmatch(text):
            continue  # mesh_weight_channels
        read = _read(gltf, a, animation, channel, accessor)
        if isinstance(read, str):
            skipped.append(f"{where} ({text}): {read}")
        else:
            channels.append(PointerChannel(text, read, int(channel["sampler"]), c, where))
    return channels, skipped


def mesh_weight_channels(gltf: GltfFile, a: int, animation: dict[str, Any],
                         accessor: Callable[[int], np.ndarray]) -> tuple[list[tuple[int, Sampler, int]], list[str]]:
    """Read animation ``a``'s pointers to meshes' morph weights as channels of the mesh's nodes.

    Parameters
    ----------
    gltf, a, animation, accessor
        As for ``read_pointer_channels``.

    Returns
    -------
    channels : list of (int, Sampler, int)
        (node, sampler with one column per morph target, channel index) for every node that
        instances the mesh.
    skipped : list of str
        A readable reason per such pointer left out.
    """
    channels, skipped = [], []
    nodes = gltf.json.get("nodes", [])
    for c, channel in enumerate(animation.get("channels", [])):
        text = pointer_text(channel.get("target"))
        match = _MESH_WEIGHTS_TARGET.fullmatch(text) if text is not None else None
        if match is None:
            continue
        mesh = int(match.group(1))
        targets = _morph_targets(gltf, mesh)
        read = _read(gltf, a, animation, channel, accessor, targets) if targets else "a mesh without morph targets"
        if isinstance(read, str):
            skipped.append(f"{pointer('animations', a, 'channels', c)} ({text}): {read}")
            continue
        channels += [(n, read, c) for n, node in enumerate(nodes) if node.get("mesh") == mesh]
    return channels, skipped


def _morph_targets(gltf, mesh):
    meshes = gltf.json.get("meshes", [])
    if not 0 <= mesh < len(meshes):
        return 0
    primitives = meshes[mesh].get("primitives") or [{}]
    return len(primitives[0].get("targets", []))


def _read(gltf, a, animation, channel, accessor, columns=None):
    """The channel's Sampler (``columns`` values a key: morph weights), or why it cannot be played
    as it stands."""
    s = channel.get("sampler")
    samplers = animation.get("samplers", [])
    if not isinstance(s, int) or not 0 <= s < len(samplers):
        return "no sampler"
    spec = samplers[s]
    name = spec.get("interpolation", "LINEAR")
    if name not in PLAYABLE:
        return f"interpolation {name}"
    output_spec = gltf.json["accessors"][spec["output"]]
    if output_spec.get("componentType") != _FLOAT or output_spec.get("normalized"):
        return "its output is not float"
    times = accessor(int(spec["input"]))[:, 0].astype(np.float64)
    values = accessor(int(spec["output"])).astype(np.float64)
    rows = len(times) * (3 if name == "CUBICSPLINE" else 1)
    if columns is not None and values.size == rows * columns:
        values = values.reshape(rows, columns)
    if len(times) < (2 if name == "CUBICSPLINE" else 1) or len(values) != rows:
        return f"{len(values)} outputs for {len(times)} {name} keys"
    if not (np.isfinite(times).all() and np.isfinite(values).all()):
        return "values that are not finite"
    if len(times) > 1 and (np.diff(times) <= 0).any():
        return "key times that do not increase"
    path = "weights" if columns is not None else "pointer"
    return Sampler(name, times, values, path, pointer("animations", a, "samplers", s))
