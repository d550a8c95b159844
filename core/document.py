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
    """Read a ``.gltf`` or ``.glb`` file, validate it and prepare it for evaluation.

    Parameters
    ----------
    path : str or os.PathLike
        The file, told apart by its first bytes; a ``.gltf``'s external buffers resolve in its
        folder.
    also_required : collection of str
        Extensions a file may require beyond those this reader knows (Blender's import passes the
        ones its bundled importer builds a scene with: lights, materials, Draco meshes, ..., none
        of which changes the animation data read here). UNREADABLE ones are refused all the same.

    Returns
    -------
    Document
        The validated asset; its ``warnings`` are the repairable findings.

    Raises
    ------
    GltfError
        Listing every error, each with its code and JSON pointer; a file that requires an
        extension this reader does not know is refused.

    Examples
    --------
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
    """A loaded glTF asset: ``animations``, ``warnings``, and poses of its nodes and meshes.

    Attributes
    ----------
    file : GltfFile
        The parsed file: its JSON and buffers.
    path : Path or None
        Where it was read from (None for bytes).
    json : dict
        The file's JSON document.
    warnings : list of Finding
        Repairable problems found on load (non-unit quaternions, normalized on load, ...).
    scene : Scene
        The node hierarchy, skins and meshes (core.sampling.scene).
    animations : list of Animation
        Every animation, ready to evaluate.
    """

    def __init__(self, gltf: GltfFile, warnings: Iterable[Finding] = ()) -> None:
        self.file = gltf
        self.path = Path(gltf.path) if gltf.path is not None else None
        self.json = gltf.json
        self.warnings = list(warnings)
        self.scene = Scene(gltf)
        self.animations = read_animations(gltf, self.accessor)

    def accessor(self, index: int) -> np.ndarray:
        """Read an accessor's data, decoded (read once per file, read-only).

        Parameters
        ----------
        index : int
            The accessor's index in the file's ``accessors``.

        Returns
        -------
        (count, n) or (count, n, n) array
            SCALAR (count, 1), VECn (count, n), MATn (count, n, n) indexed [row, col]. Floats and
            normalized integers become float64; other integers keep their integer dtype.

        Examples
        --------
        Accessor 5 of the sample holds the key times of tools/make_sample.py, stored as float32.

        >>> times = load("samples/sqlerp_arm.gltf").accessor(5)
        >>> times.shape, times.flags.writeable, times[:, 0].round(6).tolist()
        ((5, 1), False, [0.0, 0.35, 1.0, 1.25, 2.0])
        """
        return read_accessor(self.file, index)

    def _animation(self, animation: int | Animation | None) -> Animation | None:
        if animation is None or isinstance(animation, Animation):
            return animation
        return self.animations[animation]

    def pose(self, animation: int | Animation | None, time: float, use_fallback: bool = False) -> Pose:
        """Pose every node: its local translation, rotation and scale, and morph weights, at ``time``.

        Nodes an animation does not move keep their rest TRS.

        Parameters
        ----------
        animation : int, Animation or None
            An index into ``animations``, an Animation, or None for the rest pose.
        time : float
            Seconds, clamped to each channel's keys.
        use_fallback : bool
            Play what viewers without EXT_animation_sqlerp play.

        Returns
        -------
        translation : (N, 3) float64 array
            Per node, N the node count.
        rotation : (N, 4) float64 array
            Per node, (x, y, z, w).
        scale : (N, 3) float64 array
            Per node.
        weights : dict of int to (m,) float64 array
            Animated morph weights by node index.

        Examples
        --------
        At 0.35 s the sample's arm has risen 0.35 of the way to 0.2 (LINEAR over 1 s) and its
        elbow is at its key of 35 degrees about X: (sin, cos) of 17.5 degrees.

        >>> translation, rotation, scale, weights = load("samples/sqlerp_arm.gltf").pose(0, 0.35)
        >>> translation[0].round(6).tolist(), (rotation[2].round(4) + 0.0).tolist(), scale[2].tolist(), weights
        ([0.0, 0.07, 0.0], [0.3007, 0.0, 0.0, 0.9537], [1.0, 1.0, 1.0], {})
        """
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
        """Compute the global 4x4 matrix of every node at ``time`` seconds of ``animation``.

        Parameters
        ----------
        animation : int, Animation or None
            An index into ``animations``, an Animation, or None for the rest pose.
        time : float
            Seconds, clamped to each channel's keys.
        use_fallback : bool
            Play what viewers without EXT_animation_sqlerp play.

        Returns
        -------
        (node_count, 4, 4) float64 array
            Global matrices, M[row, col] acting on column vectors (translation in column 3).

        Examples
        --------
        At 0.5 s the sample's arm (node 0) has risen halfway to 0.2 (LINEAR over 1 s), carrying
        the shoulder (node 1, no translation of its own) with it.

        >>> matrices = load("samples/sqlerp_arm.gltf").node_matrices(0, 0.5)
        >>> matrices.shape, matrices[1][:3, 3].round(4).tolist()
        ((5, 4, 4), [0.0, 0.1, 0.0])
        """
        translation, rotation, scale, _ = self.pose(animation, time, use_fallback)
        return self.scene.global_matrices(translation, rotation, scale)

    def mesh_positions(self, node: int, animation: int | Animation | None, time: float,
                       use_fallback: bool = False) -> list[npt.NDArray[np.float64]]:
        """Compute the world-space vertex positions of ``node``'s mesh at ``time`` seconds.

        Morphed and linear-blend skinned where the node has morph targets or a skin.

        Parameters
        ----------
        node : int
            A node with a mesh.
        animation : int, Animation or None
            An index into ``animations``, an Animation, or None for the rest pose.
        time : float
            Seconds, clamped to each channel's keys.
        use_fallback : bool
            Play what viewers without EXT_animation_sqlerp play.

        Returns
        -------
        list of (V, 3) float64 arrays
            One per primitive of the mesh.

        Examples
        --------
        In the rest pose the sample's joints stand where its inverse bind matrices put them, so
        the skinned tube (4 corners 0.15 off the Y axis at 7 heights up to 3) is as stored.

        >>> positions = load("samples/sqlerp_arm.gltf").mesh_positions(4, None, 0.0)
        >>> len(positions), positions[0].shape, positions[0][[0, -1]].round(6).tolist()
        (1, (28, 3), [[-0.15, 0.0, -0.15], [-0.15, 3.0, 0.15]])
        """
        translation, rotation, scale, weights = self.pose(animation, time, use_fallback)
        globals_ = self.scene.global_matrices(translation, rotation, scale)
        return self.scene.mesh_positions(node, globals_, weights.get(node))

    def __repr__(self) -> str:
        name = self.path.name if self.path else "<bytes>"
        return f"<Document {name}: {len(self.animations)} animations, {len(self.warnings)} warnings>"
