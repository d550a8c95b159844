"""Where a mesh primitive's vertices go in one pose: morph targets first, then linear blend
skinning, or the mesh node's global matrix when it has no skin (core.sampling.scene's
``mesh_positions`` puts them together).

  morphed p = base + Σ_j w_j · target_j.POSITION,
  skinned p = Σ_i w_i · jointMatrix_i · p  (the skinned mesh node's own transform is ignored).

Accessors are read through core.gltf (decoded once per file); their shapes are checked here, with
the validator's codes and JSON pointers, as a file can hold anything.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..gltf import GltfError, GltfFile, pointer, read_accessor

Influences = Sequence[tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]]


def skin_positions(positions: npt.NDArray[np.float64], joint_matrices: npt.NDArray[np.float64],
                   influences: Influences) -> npt.NDArray[np.float64]:
    """Skin positions by linear blend skinning: Σ_i w_i · jointMatrix_i · p per vertex.

    The weighted matrix sum is built one influence slot at a time (4 per JOINTS_n set), so memory
    stays (V, 4, 4) however many influences a vertex has.

    Parameters
    ----------
    positions : (V, 3) float array
        The vertices, morphed.
    joint_matrices : (J, 4, 4) float array
        global(joint) · inverseBind(joint) per joint of the skin.
    influences : list of ((V, k) int array, (V, k) float array)
        (joints, weights) per JOINTS_n/WEIGHTS_n set: indices into ``joint_matrices`` and their
        weights, which the spec has sum to 1 over all sets.

    Returns
    -------
    (V, 3) float64 array
        The skinned positions.

    Examples
    --------
    >>> import numpy as np
    >>> joints = np.tile(np.eye(4), (2, 1, 1)); joints[0, 0, 3], joints[1, 1, 3] = 1.0, 2.0
    >>> slots = [(np.array([[0, 1]]), np.array([[0.6, 0.4]]))]  # 0.6 of +x, 0.4 of +2y
    >>> skin_positions(np.zeros((1, 3)), joints, slots).round(6).tolist()
    [[0.6, 0.8, 0.0]]
    """
    if len(positions) == 0:
        return np.zeros((0, 3))
    blended = np.zeros((len(positions), 4, 4))
    for joints, weights in influences:
        for slot in range(joints.shape[1]):
            blended += weights[:, slot, None, None] * joint_matrices[joints[:, slot]]
    return np.einsum("vij,vj->vi", blended[:, :3, :3], positions) + blended[:, :3, 3]


def transform_points(matrix: npt.NDArray[np.float64], points: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Apply one (4, 4) affine matrix to (V, 3) points."""
    return points @ matrix[:3, :3].T + matrix[:3, 3]


def morphed_positions(gltf: GltfFile, primitive: dict[str, Any], where: str,
                      weights: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Read a primitive's (V, 3) positions moved by its morph targets' POSITION at ``weights``.

    ``where`` is the primitive's JSON pointer, for errors. A primitive without POSITION has no
    vertices to place (legal): (0, 3).
    """
    attributes = primitive.get("attributes", {})
    if "POSITION" not in attributes:
        return np.zeros((0, 3))
    positions = _vec3(gltf, attributes["POSITION"], None, where + "/attributes/POSITION")
    morphed = positions
    for t, (target, weight) in enumerate(zip(primitive.get("targets", []), weights)):
        if weight != 0.0 and "POSITION" in target:
            offsets = _vec3(gltf, target["POSITION"], len(positions), f"{where}/targets/{t}/POSITION")
            morphed = morphed + weight * offsets
    return morphed


def read_influences(gltf: GltfFile, primitive: dict[str, Any], where: str, vertex_count: int,
                    node: int) -> list[tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]]:
    """Read [(joints (V, 4) int, weights (V, 4) float), ...] for every JOINTS_n/WEIGHTS_n set.

    ``node`` is the skinned mesh node (its skin checked, as core.sampling.scene's Scene does): a
    set without its pair, the wrong shape, a joint index outside the skin, no set at all raise
    GltfError.
    """
    attributes, pairs, n = primitive.get("attributes", {}), [], 0
    skin = gltf.json["nodes"][node]["skin"]
    joint_count = len(gltf.json["skins"][skin]["joints"])
    while f"JOINTS_{n}" in attributes or f"WEIGHTS_{n}" in attributes:
        key = f"JOINTS_{n}"
        if key not in attributes or f"WEIGHTS_{n}" not in attributes:
            raise GltfError("MESH_PRIMITIVE_JOINTS_WEIGHTS_MISMATCH", where + "/attributes",
                            f"JOINTS_{n} and WEIGHTS_{n} must come together")
        joints = read_accessor(gltf, attributes[key])
        weights = read_accessor(gltf, attributes[f"WEIGHTS_{n}"])
        if joints.shape != (vertex_count, 4) or weights.shape != (vertex_count, 4):
            raise GltfError("MESH_PRIMITIVE_ACCESSOR_INVALID_FORMAT", where + "/attributes/" + key,
                            f"JOINTS_{n}/WEIGHTS_{n} must be {vertex_count} VEC4 elements")
        if joints.dtype.kind not in "iu" or joints.min() < 0 or joints.max() >= joint_count:
            raise GltfError("ACCESSOR_JOINTS_INDEX_OOB", where + "/attributes/" + key,
                            f"joint indices must be integers below {joint_count} "
                            f"(the joints of skin {skin})")
        pairs.append((joints.astype(np.intp), weights.astype(np.float64, copy=False)))
        n += 1
    if not pairs:
        raise GltfError("NODE_SKIN_WITH_NON_SKINNED_MESH", pointer("nodes", node, "skin"),
                        f"node {node} has a skin but {where} has no JOINTS_0/WEIGHTS_0")
    return pairs


def _vec3(gltf, index, count, where):
    values = read_accessor(gltf, index)  # decoded once per file, read-only
    if values.ndim != 2 or values.shape[1] != 3 or (count is not None and len(values) != count):
        raise GltfError("MESH_PRIMITIVE_ACCESSOR_INVALID_FORMAT", where,
                        f"expected {count or 'n'} VEC3 elements, found shape {values.shape}")
    return values.astype(np.float64, copy=False)  # KHR_mesh_quantization: plain integers
