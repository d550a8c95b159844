"""The nodes at rest, read and checked once per file: each node's translation, rotation and scale
or its ``matrix`` (stored column-major), and each mesh node's default morph weights (node.weights,
else mesh.weights, else zeros). core.sampling.scene composes them into matrices.
"""

import math
from typing import Any, Literal, Self, SupportsIndex, overload

import numpy as np
import numpy.typing as npt

from ..gltf import Finding, pointer
from .rotation_matrices import to_matrix

_IDENTITY = np.eye(4)
_TRS_LENGTHS = {"translation": 3, "rotation": 4, "scale": 3, "matrix": 16}
_TRS_DEFAULTS = {"translation": (0.0, 0.0, 0.0), "rotation": (0.0, 0.0, 0.0, 1.0),
                 "scale": (1.0, 1.0, 1.0)}


def trs_matrices(translation: npt.ArrayLike, rotation: npt.ArrayLike, scale: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Compose T · R · S as (..., 4, 4) matrices from (..., 3), (..., 4) and (..., 3) arrays."""
    translation = np.asarray(translation, dtype=np.float64)
    scale = np.asarray(scale, dtype=np.float64)
    # to_matrix scales by 2/|q|^2, so a non-unit quaternion gives the rotation it points to and a
    # zero one gives identity: the same rule as the animation layer's normalization.
    rotation = to_matrix(rotation)
    out = np.zeros(rotation.shape[:-2] + (4, 4))
    out[..., :3, :3] = rotation * scale[..., None, :]  # R · diag(S): column c scaled by S[c]
    out[..., :3, 3] = translation
    out[..., 3, 3] = 1.0
    return out


class RestTRS(tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]):
    """The nodes' translation, rotation and scale at rest: a 3-tuple also readable by name.

    ``rest["rotation"]`` and ``rest.rotation`` are ``rest[1]``.

    Attributes
    ----------
    translation : (N, 3) float array
    rotation : (N, 4) float array
        Quaternions (x, y, z, w).
    scale : (N, 3) float array
    weights : list of (m,) float arrays or None
        Each node's default morph weights (empty without morph targets); None for a node without
        a mesh.
    """
    weights: list[npt.NDArray[np.float64] | None]

    def __new__(cls, translation: npt.NDArray[np.float64], rotation: npt.NDArray[np.float64],
                scale: npt.NDArray[np.float64], weights: list[npt.NDArray[np.float64] | None]) -> Self:
        self = super().__new__(cls, (translation, rotation, scale))
        self.weights = weights
        return self

    @property
    def translation(self) -> npt.NDArray[np.float64]:
        return tuple.__getitem__(self, 0)

    @property
    def rotation(self) -> npt.NDArray[np.float64]:
        return tuple.__getitem__(self, 1)

    @property
    def scale(self) -> npt.NDArray[np.float64]:
        return tuple.__getitem__(self, 2)

    @overload
    def __getitem__(self, key: SupportsIndex | Literal["translation", "rotation", "scale"]
                    ) -> npt.NDArray[np.float64]: ...
    @overload
    def __getitem__(self, key: Literal["weights"]) -> list[npt.NDArray[np.float64] | None]: ...
    @overload
    def __getitem__(self, key: slice) -> tuple[npt.NDArray[np.float64], ...]: ...
    def __getitem__(self, key: SupportsIndex | str | slice) -> Any:  # Any: what the overloads say
        return getattr(self, key) if isinstance(key, str) else super().__getitem__(key)


def read_rest_pose(nodes: list[dict[str, Any]]) -> tuple[dict[str, npt.NDArray[np.float64]], npt.NDArray[np.bool_],
                                                         npt.NDArray[np.float64], list[Finding]]:
    """Read every node's rest TRS, or its ``matrix``, and their local matrices at rest.

    Returns ``(trs, has_matrix, matrices, findings)``: ``trs`` maps "translation", "rotation" and
    "scale" to (N, 3), (N, 4) and (N, 3) arrays (the defaults where a node has none, ``matrix``
    nodes included), ``has_matrix`` (N,) marks the ``matrix`` nodes, ``matrices`` (N, 4, 4) holds
    each node's ``matrix``, else T · R · S; ARRAY_LENGTH_NOT_IN_LIST per property that is not
    3, 4 or 16 finite numbers (the default stays).
    """
    n = len(nodes)
    values = {key: np.tile(default, (n, 1)) for key, default in _TRS_DEFAULTS.items()}
    has_matrix = np.zeros(n, dtype=bool)
    matrices = np.tile(_IDENTITY, (n, 1, 1))
    findings = []
    for i, node in enumerate(nodes):
        for key, length in _TRS_LENGTHS.items():
            if key not in node:
                continue
            value = node[key]
            if not _is_numbers(value, length):
                findings.append(Finding("ARRAY_LENGTH_NOT_IN_LIST", pointer("nodes", i, key),
                                        f"node {i} '{key}' must be {length} numbers"))
            elif key == "matrix":
                has_matrix[i] = True
                # Column-major: element 12..14 is the translation column.
                matrices[i] = np.asarray(value, dtype=np.float64).reshape(4, 4).T
            else:
                values[key][i] = value
    not_matrix = ~has_matrix
    matrices[not_matrix] = trs_matrices(values["translation"][not_matrix], values["rotation"][not_matrix],
                                        values["scale"][not_matrix])
    return values, has_matrix, matrices, findings


def read_default_weights(nodes: list[dict[str, Any]], meshes: list[dict[str, Any]]
                         ) -> tuple[list[npt.NDArray[np.float64] | None], list[Finding]]:
    """Read each mesh node's default morph weights: node.weights, else mesh.weights, else zeros.

    The nodes' mesh references and the meshes' primitives must have been checked. Returns the
    weights per node (None for a node without a mesh) and NODE_WEIGHTS_INVALID or
    MESH_INVALID_WEIGHTS_COUNT per ``weights`` that is not one finite number per morph target.
    """
    weights: list[npt.NDArray[np.float64] | None] = [None] * len(nodes)
    findings = []
    for i, node in enumerate(nodes):
        if "mesh" not in node:
            continue
        mesh_index = node["mesh"]
        count = target_count(meshes[mesh_index])
        weights[i] = np.zeros(count)
        for owner, where, code in (
                (node, pointer("nodes", i, "weights"), "NODE_WEIGHTS_INVALID"),
                (meshes[mesh_index], pointer("meshes", mesh_index, "weights"), "MESH_INVALID_WEIGHTS_COUNT")):
            if "weights" not in owner:
                continue
            if _is_numbers(owner["weights"], count):
                weights[i] = np.asarray(owner["weights"], dtype=np.float64)
            else:
                findings.append(Finding(code, where, f"'weights' must be {count} numbers, one per morph target"))
            break
    return weights, findings


def target_count(mesh: dict[str, Any]) -> int:
    """Count a mesh's morph targets: its first primitive's (every primitive must have as many)."""
    primitives = mesh["primitives"]
    return len(primitives[0].get("targets", [])) if primitives else 0


def _is_numbers(value, length):
    # Python's json module accepts NaN and Infinity, which JSON itself does not.
    return (isinstance(value, list) and len(value) == length
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    for v in value))
