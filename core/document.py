"""The public entry point of the core: ``load(path) -> Document``.

A Document is a validated glTF asset with its animations ready to evaluate and its node hierarchy
ready to pose. Pipelines and the add-on's own checks use this API; it never imports Blender.
"""

import os
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .gltf import read_accessor
from .sampling import Animation, read_animations
from .gltf import ERROR, Finding, GltfError, GltfFile
from .gltf import read_file
from .sampling import Scene
from .gltf.validation import validate
from .constants import EXTENSION_NAME

# A pose: local translation (N, 3), rotation (N, 4), scale (N, 3), and animated morph weights by node.
Pose = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64],
             dict[int, npt.NDArray[np.float64]]]

# Extensions whose absence from this reader must not stop a file that lists them as required:
# ours, and those that only change how data is stored in ways read_accessor already decodes.
SUPPORTED_REQUIRED = {EXTENSION_NAME, "KHR_mesh_quantization"}
# Extensions that store buffer data in a way read_accessor cannot decode: refused in every case.
UNREADABLE = {"EXT_meshopt_compression", "KHR_meshopt_compression"}


def load(path: str | os.PathLike[str], also_required: Collection[str] = ()) -> "Document":
    """Read, validate and prepare a ``.gltf`` or ``.glb`` file.

    Parameters: ``path``; ``also_required``: extensions a file may require beyond those this
    reader knows (Blender's import passes the ones its bundled importer builds a scene with:
    lights, materials, Draco meshes, ..., none of which changes the animation data read here;
    UNREADABLE ones are refused all the same).

    Returns a Document. Raises GltfError listing every error, each with its code and JSON
    pointer; a file that requires an extension this reader does not know is refused.

    >>> document = load("samples/sqlerp_arm.gltf")
    >>> clip = document.animations[0]
    >>> clip.name, clip.duration, [channel.path for channel in clip.channels]
    ('Wave', 2.0, ['rotation', 'rotation', 'rotation', 'translation'])
    """
    gltf = read_file(path)
    findings = validate(gltf)
    findings += _required_extensions(gltf.json, (SUPPORTED_REQUIRED | set(also_required)) - UNREADABLE)
    if any(f.severity == ERROR for f in findings):
        raise GltfError.from_findings(findings)
    return Document(gltf, [f for f in findings if f.severity != ERROR])


def _required_extensions(document: dict[str, Any], taken: set[str]) -> list[Finding]:
    """A finding per required extension not in ``taken``."""
    # A non-array or a non-string entry is validate_shape's finding (TYPE_MISMATCH,
    # ARRAY_TYPE_MISMATCH); such an entry is never looked up (the fuzzer found a list here raising
    # TypeError, unhashable in the set lookup).
    required = document.get("extensionsRequired", [])
    return [Finding("UNSUPPORTED_EXTENSION", f"/extensionsRequired/{i}",
                    f"the file requires extension {name!r}, which this reader does not support")
            for i, name in enumerate(required if isinstance(required, list) else [])
            if isinstance(name, str) and name not in taken]


class Document:
    """A loaded glTF asset: ``animations``, ``warnings``, and poses of its nodes and meshes."""

    def __init__(self, gltf: GltfFile, warnings: Iterable[Finding] = ()) -> None:
        self.file = gltf
        self.path = Path(gltf.path) if gltf.path is not None else None
        self.json = gltf.json
        self.warnings = list(warnings)
        self.scene = Scene(gltf)
        self.animations = read_animations(gltf, self.accessor)

    def accessor(self, index: int) -> np.ndarray:
        """Decoded accessor data (read once per file, read-only)."""
        return read_accessor(self.file, index)

    def _animation(self, animation: int | Animation | None) -> Animation | None:
        if animation is None or isinstance(animation, Animation):
            return animation
        return self.animations[animation]

    def pose(self, animation: int | Animation | None, time: float, use_fallback: bool = False) -> Pose:
        """Local (translation, rotation, scale, weights by node) at ``time`` seconds.

        ``animation`` is an index, an Animation, or None for the rest pose."""
        translation, rotation, scale = (a.copy() for a in self.scene.rest_trs())
        weights: dict[int, npt.NDArray[np.float64]] = {}
        animation = self._animation(animation)
        for channel in animation.channels if animation is not None else ():
            value = channel.evaluate([time], use_fallback=use_fallback)[0]
            if channel.path == "weights":
                weights[channel.node] = value
            else:
                {"translation": translation, "rotation": rotation, "scale": scale}[
                    channel.path][channel.node] = value
        return translation, rotation, scale, weights

    def node_matrices(self, animation: int | Animation | None, time: float,
                      use_fallback: bool = False) -> npt.NDArray[np.float64]:
        """Compute the global 4x4 matrix of every node at ``time`` (seconds) of ``animation`` (an
        index, an Animation, or None: the rest pose); ``use_fallback`` plays what viewers without
        EXT_animation_sqlerp play.

        Returns (node_count, 4, 4) matrices.

        >>> matrices = load("samples/sqlerp_arm.gltf").node_matrices(0, 0.5)
        >>> matrices.shape, matrices[1][:3, 3].round(4).tolist()
        ((5, 4, 4), [0.0, 0.1, 0.0])
        """
        translation, rotation, scale, _ = self.pose(animation, time, use_fallback)
        return self.scene.global_matrices(translation, rotation, scale)

    def mesh_positions(self, node: int, animation: int | Animation | None, time: float,
                       use_fallback: bool = False) -> list[npt.NDArray[np.float64]]:
        """World-space vertex positions of ``node``'s mesh, one (V, 3) array per primitive,
        skinned and morphed where the node has a skin or morph targets."""
        translation, rotation, scale, weights = self.pose(animation, time, use_fallback)
        globals_ = self.scene.global_matrices(translation, rotation, scale)
        return self.scene.mesh_positions(node, globals_, weights.get(node))

    def __repr__(self) -> str:
        name = self.path.name if self.path else "<bytes>"
        return f"<Document {name}: {len(self.animations)} animations, {len(self.warnings)} warnings>"
