"""The node hierarchy of a glTF asset: local and global matrices, joint matrices, mesh positions.

Order of transforms (glTF 2.0 §3.5.2 and the skeletal-animation seed):
  local(node)  = T · R · S, or ``node.matrix`` (stored column-major),
  global(node) = global(parent) · local(node), computed parents before children,
  joint matrix = global(joint) · inverseBind(joint),
  skinned p    = Σ_i w_i · jointMatrix_i · p  (the skinned mesh node's own transform is ignored),
  morphed p    = base + Σ_j w_j · target_j.POSITION (node.weights, else mesh.weights, else zeros).

The structure (parents, depth levels) is checked and computed once per file; every per-frame
function works on whole arrays, one batched matmul per hierarchy depth.
"""

import math
from collections.abc import Sequence
from typing import Any, Literal, Self, SupportsIndex, cast, overload

import numpy as np
import numpy.typing as npt

from ..gltf import read_accessor
from ..gltf import ERROR, Finding, GltfError, GltfFile, pointer
from .quaternions import to_matrix

_IDENTITY = np.eye(4)
_TRS_LENGTHS = {"translation": 3, "rotation": 4, "scale": 3, "matrix": 16}
_TRS_DEFAULTS = {"translation": (0.0, 0.0, 0.0), "rotation": (0.0, 0.0, 0.0, 1.0),
                 "scale": (1.0, 1.0, 1.0)}


def trs_matrices(translation: npt.ArrayLike, rotation: npt.ArrayLike, scale: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """T · R · S as (..., 4, 4) from (..., 3), (..., 4), (..., 3)."""
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
    """(translation (N,3), rotation (N,4), scale (N,3)) of the nodes at rest.

    Also readable by name (``rest["rotation"]``, ``rest.weights``): ``weights`` lists each node's
    default morph weights (empty without morph targets), or None for nodes without a mesh.
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


class Scene:
    """The node hierarchy of one GltfFile (checked once, on construction)."""

    def __init__(self, gltf: GltfFile) -> None:
        self.gltf = gltf
        document = gltf.json
        self.nodes = _array(document, "nodes")
        self.meshes = _array(document, "meshes")
        self.skins = _array(document, "skins")
        self.node_count = len(self.nodes)
        findings = []
        self.parents = self._link_children(findings)
        findings += self._check_references()
        self._read_rest_pose(findings)
        if not findings:  # weights need valid mesh references
            self._read_default_weights(findings)
        errors = [f for f in findings if f.severity == ERROR]
        if errors:
            raise GltfError.from_findings(errors)
        self.depth_levels = depth_levels(self.parents)
        self.order = (np.concatenate(self.depth_levels) if self.depth_levels
                      else np.zeros(0, dtype=np.intp))

    # ----- structure, checked once ------------------------------------------------------------

    def _link_children(self, findings):
        parents = np.full(self.node_count, -1, dtype=np.intp)
        for i, node in enumerate(self.nodes):
            children = node.get("children", [])
            if not isinstance(children, list):
                findings.append(Finding("TYPE_MISMATCH", pointer("nodes", i, "children"),
                                        f"node {i} 'children' must be an array"))
                continue
            for j, child in enumerate(children):
                where = pointer("nodes", i, "children", j)
                if not _is_index(child, self.node_count):
                    findings.append(Finding("UNRESOLVED_REFERENCE", where,
                                            f"node {i} lists child {child!r}, which is no node"))
                elif parents[child] != -1:
                    findings.append(Finding("NODE_PARENT_OVERRIDE", where,
                                            f"node {child} already has parent {parents[child]}; "
                                            f"node {i} cannot be a second parent"))
                else:
                    parents[child] = i
        if not findings:
            findings += _loops(parents)
        return parents

    def _check_references(self):
        findings = []
        for i, node in enumerate(self.nodes):
            for key, table in (("mesh", self.meshes), ("skin", self.skins)):
                if key in node and not _is_index(node[key], len(table)):
                    findings.append(Finding("UNRESOLVED_REFERENCE", pointer("nodes", i, key),
                                            f"node {i} uses {key} {node[key]!r}, which is missing"))
        for s, skin in enumerate(self.skins):
            joints = skin.get("joints")
            if not isinstance(joints, list) or not joints:
                findings.append(Finding("UNDEFINED_PROPERTY", pointer("skins", s, "joints"),
                                        f"skin {s} needs a non-empty 'joints' array"))
                continue
            for j, joint in enumerate(joints):
                if not _is_index(joint, self.node_count):
                    findings.append(Finding("UNRESOLVED_REFERENCE",
                                            pointer("skins", s, "joints", j),
                                            f"skin {s} joint {j}: {joint!r} is no node"))
        for m, mesh in enumerate(self.meshes):
            primitives = mesh.get("primitives")
            if not isinstance(primitives, list) or not all(isinstance(p, dict) for p in primitives):
                findings.append(Finding("TYPE_MISMATCH", pointer("meshes", m, "primitives"),
                                        f"mesh {m} 'primitives' must be an array of objects"))
                continue
            # The fuzzer found non-object 'attributes' and non-array 'targets' raising TypeError
            # here and in mesh_positions: they are TYPE_MISMATCH errors of the file.
            shapeless = [p for p, primitive in enumerate(primitives)
                         if not isinstance(primitive.get("attributes", {}), dict)
                         or not isinstance(primitive.get("targets", []), list)
                         or not all(isinstance(t, dict) for t in primitive.get("targets", []))]
            if shapeless:
                findings.append(Finding("TYPE_MISMATCH", pointer("meshes", m, "primitives", shapeless[0]),
                                        f"mesh {m} primitive {shapeless[0]}: 'attributes' must be an "
                                        "object and 'targets' an array of objects"))
                continue
            counts = [len(p.get("targets", [])) for p in primitives]
            for p, count in enumerate(counts):
                if count != counts[0]:  # one weight per target must fit every primitive
                    findings.append(Finding("MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT",
                                            pointer("meshes", m, "primitives", p),
                                            f"primitive {p} has {count} morph targets, primitive 0 "
                                            f"has {counts[0]}"))
        return findings

    def _read_rest_pose(self, findings):
        n = self.node_count
        values = {key: np.tile(default, (n, 1)) for key, default in _TRS_DEFAULTS.items()}
        self.has_matrix = np.zeros(n, dtype=bool)
        self.rest_matrices = np.tile(_IDENTITY, (n, 1, 1))
        for i, node in enumerate(self.nodes):
            for key, length in _TRS_LENGTHS.items():
                if key not in node:
                    continue
                value = node[key]
                if not _is_numbers(value, length):
                    findings.append(Finding("ARRAY_LENGTH_NOT_IN_LIST", pointer("nodes", i, key),
                                            f"node {i} '{key}' must be {length} numbers"))
                elif key == "matrix":
                    self.has_matrix[i] = True
                    # Column-major: element 12..14 is the translation column.
                    self.rest_matrices[i] = np.asarray(value, dtype=np.float64).reshape(4, 4).T
                else:
                    values[key][i] = value
        self._rest = values
        self.rest_matrix_nodes = self.has_matrix
        not_matrix = ~self.has_matrix
        self.rest_matrices[not_matrix] = trs_matrices(
            values["translation"][not_matrix], values["rotation"][not_matrix],
            values["scale"][not_matrix])

    # ----- per-frame evaluation ----------------------------------------------------------------

    def rest_trs(self) -> RestTRS:
        """Copies of the nodes' own TRS (defaults for ``matrix`` nodes, see ``has_matrix``)."""
        weights = [None if w is None else w.copy() for w in self._weights]
        return RestTRS(self._rest["translation"].copy(), self._rest["rotation"].copy(),
                       self._rest["scale"].copy(), weights)

    def local_matrices(self, translation: npt.ArrayLike, rotation: npt.ArrayLike,
                       scale: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """(..., N, 4, 4) local matrices; ``matrix`` nodes keep it (animation can't target them)."""
        local = trs_matrices(translation, rotation, scale)
        local[..., self.has_matrix, :, :] = self.rest_matrices[self.has_matrix]
        return local

    def global_matrices(self, translation: npt.ArrayLike, rotation: npt.ArrayLike,
                        scale: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """(..., N, 4, 4) global matrices, parents first: one batched matmul per depth level."""
        matrices = self.local_matrices(translation, rotation, scale)
        for level in self.depth_levels[1:]:
            matrices[..., level, :, :] = (matrices[..., self.parents[level], :, :]
                                          @ matrices[..., level, :, :])
        return matrices

    def joint_matrices(self, skin: int, globals_: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """(..., J, 4, 4) = global(joint) · inverseBind(joint) for skin index ``skin``."""
        joints = np.asarray(self.skins[skin]["joints"], dtype=np.intp)
        return globals_[..., joints, :, :] @ self.inverse_bind_matrices(skin)

    def inverse_bind_matrices(self, skin: int) -> npt.NDArray[np.float64]:
        """(J, 4, 4) inverse bind matrices of a skin; identity when the skin has none."""
        joint_count = len(self.skins[skin]["joints"])
        index = self.skins[skin].get("inverseBindMatrices")
        if index is None:
            return np.tile(_IDENTITY, (joint_count, 1, 1))
        matrices = self._accessor(index)
        if matrices.shape != (joint_count, 4, 4):
            raise GltfError("INVALID_IBM_ACCESSOR_COUNT",
                            pointer("skins", skin, "inverseBindMatrices"),
                            f"skin {skin} has {joint_count} joints but its inverse bind matrices "
                            f"accessor holds {matrices.shape[0]} elements of shape "
                            f"{matrices.shape[1:]}")
        return matrices

    def morph_weights(self, node: int) -> npt.NDArray[np.float64]:
        """Default morph weights of a node: node.weights, else mesh.weights, else zeros."""
        self._mesh_index(node)
        return self._defaults(node).copy()

    def mesh_positions(self, node: int, globals_: npt.NDArray[np.float64],
                       weights: npt.ArrayLike | None = None) -> list[npt.NDArray[np.float64]]:
        """World positions (V, 3) of each primitive of the node's mesh, for one pose.

        ``globals_`` is (N, 4, 4) from ``global_matrices``; ``weights`` are the node's animated
        morph weights (None: its defaults). Morph targets first, then skinning or global(node).
        """
        mesh_index = self._mesh_index(node)
        weights = self._defaults(node) if weights is None else np.ravel(weights).astype(np.float64)
        if len(weights) != self._target_count(mesh_index):
            raise GltfError("NODE_WEIGHTS_INVALID", pointer("nodes", node, "weights"),
                            f"{len(weights)} morph weights given for the "
                            f"{self._target_count(mesh_index)} targets of mesh {mesh_index}")
        skin = self.nodes[node].get("skin")
        joint_matrices = None if skin is None else self.joint_matrices(skin, globals_)
        out = []
        for p, primitive in enumerate(self.meshes[mesh_index]["primitives"]):
            where = pointer("meshes", mesh_index, "primitives", p)
            positions = self._morphed_positions(primitive, where, weights)
            if joint_matrices is None:
                out.append(_transform_points(globals_[node], positions))
            else:
                influences = self._influences(primitive, where, node, len(positions))
                out.append(skin_positions(positions, joint_matrices, influences))
        return out

    # ----- helpers ------------------------------------------------------------------------------

    def _mesh_index(self, node):
        if "mesh" not in self.nodes[node]:
            raise GltfError("UNDEFINED_PROPERTY", pointer("nodes", node, "mesh"),
                            f"node {node} has no mesh")
        return self.nodes[node]["mesh"]

    def _defaults(self, node):
        # Set for every node with a mesh, the only nodes callers ask for (after _mesh_index).
        return cast(npt.NDArray[np.float64], self._weights[node])

    def _target_count(self, mesh_index):
        primitives = self.meshes[mesh_index]["primitives"]
        return len(primitives[0].get("targets", [])) if primitives else 0

    def _read_default_weights(self, findings):
        """node.weights, else mesh.weights, else zeros, per node with a mesh (None otherwise)."""
        self._weights: list[npt.NDArray[np.float64] | None] = [None] * self.node_count
        for i, node in enumerate(self.nodes):
            if "mesh" not in node:
                continue
            mesh_index = node["mesh"]
            count = self._target_count(mesh_index)
            self._weights[i] = np.zeros(count)
            for owner, where, code in (
                    (node, pointer("nodes", i, "weights"), "NODE_WEIGHTS_INVALID"),
                    (self.meshes[mesh_index], pointer("meshes", mesh_index, "weights"),
                     "MESH_INVALID_WEIGHTS_COUNT")):
                if "weights" not in owner:
                    continue
                if _is_numbers(owner["weights"], count):
                    self._weights[i] = np.asarray(owner["weights"], dtype=np.float64)
                else:
                    findings.append(Finding(code, where, f"'weights' must be {count} numbers, one "
                                                         "per morph target"))
                break

    def _accessor(self, index):
        return read_accessor(self.gltf, index)  # decoded once per file, read-only

    def _vec3(self, index, count, where):
        values = self._accessor(index)
        if values.ndim != 2 or values.shape[1] != 3 or (count is not None and len(values) != count):
            raise GltfError("MESH_PRIMITIVE_ACCESSOR_INVALID_FORMAT", where,
                            f"expected {count or 'n'} VEC3 elements, found shape {values.shape}")
        return values.astype(np.float64, copy=False)  # KHR_mesh_quantization: plain integers

    def _morphed_positions(self, primitive, where, weights):
        attributes = primitive.get("attributes", {})
        if "POSITION" not in attributes:
            return np.zeros((0, 3))  # legal, just nothing to place
        positions = self._vec3(attributes["POSITION"], None, where + "/attributes/POSITION")
        morphed = positions
        for t, (target, weight) in enumerate(zip(primitive.get("targets", []), weights)):
            if weight != 0.0 and "POSITION" in target:
                offsets = self._vec3(target["POSITION"], len(positions),
                                     f"{where}/targets/{t}/POSITION")
                morphed = morphed + weight * offsets
        return morphed

    def _influences(self, primitive, where, node, vertex_count):
        """[(joints (V,k) int, weights (V,k) float), ...] for every JOINTS_n/WEIGHTS_n set."""
        attributes, pairs, n = primitive.get("attributes", {}), [], 0
        joint_count = len(self.skins[self.nodes[node]["skin"]]["joints"])
        while f"JOINTS_{n}" in attributes or f"WEIGHTS_{n}" in attributes:
            key = f"JOINTS_{n}"
            if key not in attributes or f"WEIGHTS_{n}" not in attributes:
                raise GltfError("MESH_PRIMITIVE_JOINTS_WEIGHTS_MISMATCH", where + "/attributes",
                                f"JOINTS_{n} and WEIGHTS_{n} must come together")
            joints = self._accessor(attributes[key])
            weights = self._accessor(attributes[f"WEIGHTS_{n}"])
            if joints.shape != (vertex_count, 4) or weights.shape != (vertex_count, 4):
                raise GltfError("MESH_PRIMITIVE_ACCESSOR_INVALID_FORMAT",
                                where + "/attributes/" + key,
                                f"JOINTS_{n}/WEIGHTS_{n} must be {vertex_count} VEC4 elements")
            if joints.dtype.kind not in "iu" or joints.min() < 0 or joints.max() >= joint_count:
                raise GltfError("ACCESSOR_JOINTS_INDEX_OOB", where + "/attributes/" + key,
                                f"joint indices must be integers below {joint_count} "
                                f"(the joints of skin {self.nodes[node]['skin']})")
            pairs.append((joints.astype(np.intp), weights.astype(np.float64, copy=False)))
            n += 1
        if not pairs:
            raise GltfError("NODE_SKIN_WITH_NON_SKINNED_MESH", pointer("nodes", node, "skin"),
                            f"node {node} has a skin but {where} has no JOINTS_0/WEIGHTS_0")
        return pairs


def skin_positions(positions: npt.NDArray[np.float64], joint_matrices: npt.NDArray[np.float64],
                   influences: Sequence[tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]]
                   ) -> npt.NDArray[np.float64]:
    """Linear blend skinning: Σ_i w_i · jointMatrix_i · p for (V,3) positions.

    The weighted matrix sum is built one influence slot at a time (4 per JOINTS_n set), so memory
    stays (V, 4, 4) however many influences a vertex has.
    """
    if len(positions) == 0:
        return np.zeros((0, 3))
    blended = np.zeros((len(positions), 4, 4))
    for joints, weights in influences:
        for slot in range(joints.shape[1]):
            blended += weights[:, slot, None, None] * joint_matrices[joints[:, slot]]
    return np.einsum("vij,vj->vi", blended[:, :3, :3], positions) + blended[:, :3, 3]


def _transform_points(matrix, points):
    return points @ matrix[:3, :3].T + matrix[:3, 3]


def depth_levels(parents: npt.NDArray[np.intp]) -> list[npt.NDArray[np.intp]]:
    """Index arrays of the nodes at depth 0, 1, 2, ... (roots first); the hierarchy is a forest."""
    level, levels = np.flatnonzero(parents == -1), []
    while level.size:
        levels.append(level)
        level = np.flatnonzero(_members(level, len(parents))[parents])
    return levels


def _members(nodes, count):
    """(count + 1,) mask of ``nodes``, indexable by parent indices (-1, a root's, reads the spare
    last slot, never set): np.isin without its sort, a few times faster on small trees."""
    mask = np.zeros(count + 1, dtype=bool)
    mask[nodes] = True
    return mask


def _loops(parents):
    """NODE_LOOP findings, one per node on a loop (with one parent per node, walking up the
    parents from a node that is no root's descendant must come back round)."""
    reached = parents == -1
    frontier = reached.copy()
    while frontier.any():
        frontier = ~reached & _members(np.flatnonzero(frontier), len(parents))[parents]
        reached |= frontier
    on_loop = set()
    for start in np.flatnonzero(~reached):
        seen, node = [], int(start)
        while node not in seen and node not in on_loop:
            seen.append(node)
            node = int(parents[node])
        if node in seen:
            on_loop.update(seen[seen.index(node):])
    return [Finding("NODE_LOOP", pointer("nodes", i), f"node {i} is part of a node loop")
            for i in sorted(on_loop)]


def _array(document, key):
    value = document.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise GltfError("TYPE_MISMATCH", pointer(key), f"'{key}' must be an array of objects")
    return value


def _is_index(value, size):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size


def _is_numbers(value, length):
    # Python's json module accepts NaN and Infinity, which JSON itself does not.
    return (isinstance(value, list) and len(value) == length
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    for v in value))
