"""The node hierarchy of a glTF asset: local and global matrices, joint matrices, mesh positions.

Order of transforms (glTF 2.0 §3.5.2 and the skeletal-animation seed):
  local(node)  = T · R · S, or ``node.matrix`` (stored column-major),
  global(node) = global(parent) · local(node), computed parents before children,
  joint matrix = global(joint) · inverseBind(joint),
  skinned p    = Σ_i w_i · jointMatrix_i · p  (the skinned mesh node's own transform is ignored),
  morphed p    = base + Σ_j w_j · target_j.POSITION (node.weights, else mesh.weights, else zeros).

The structure (parents and depth levels: core.sampling.node_tree) is checked and computed once per
file; every per-frame function works on whole arrays, one batched matmul per hierarchy depth. The
vertices' morph targets and skinning are core.sampling.skinning's.
"""

from typing import cast

import numpy as np
import numpy.typing as npt

from ..gltf import ERROR, Finding, GltfError, GltfFile, pointer, read_accessor
from .node_tree import depth_levels, is_index, link_children
from .rest_pose import RestTRS, read_default_weights, read_rest_pose, target_count, trs_matrices
from .skinning import morphed_positions, read_influences, skin_positions, transform_points

_IDENTITY = np.eye(4)


class Scene:
    """The node hierarchy of one GltfFile, checked once, on construction.

    Parameters
    ----------
    gltf : GltfFile
        The parsed file; its accessors are read when a method needs them.

    Raises
    ------
    GltfError
        With every structural error found (the validator's codes and JSON pointers): bad
        ``children`` entries, node loops, missing meshes, skins or joints, primitives with unequal
        morph target counts, TRS, ``matrix`` or ``weights`` of the wrong length.

    Attributes
    ----------
    gltf : GltfFile
    nodes, meshes, skins : list of dict
        The file's arrays (empty where it has none).
    node_count : int
        N, the number of nodes.
    parents : (N,) int array
        Each node's parent, -1 for a root.
    depth_levels : list of (n_d,) int arrays
        The nodes at depth 0, 1, 2, ... (core.sampling.node_tree.depth_levels).
    order : (N,) int array
        Every node once, parents before children: the depth levels one after the other.
    has_matrix : (N,) bool array
        The nodes with a ``matrix``, which animation cannot target; ``rest_matrix_nodes`` is the same array.
    rest_matrices : (N, 4, 4) float array
        Each node's local matrix at rest: its ``matrix``, else T · R · S.

    Examples
    --------
    >>> from gltf_sqlerp.core.gltf import GltfFile
    >>> nodes = [{"translation": [1.0, 0.0, 0.0], "children": [1]}, {"translation": [0.0, 2.0, 0.0]}]
    >>> scene = Scene(GltfFile(json={"nodes": nodes}))
    >>> scene.parents.tolist(), scene.global_matrices(*scene.rest_trs())[1, :3, 3].tolist()
    ([-1, 0], [1.0, 2.0, 0.0])
    """

    def __init__(self, gltf: GltfFile) -> None:
        self.gltf = gltf
        document = gltf.json
        self.nodes = _array(document, "nodes")
        self.meshes = _array(document, "meshes")
        self.skins = _array(document, "skins")
        self.node_count = len(self.nodes)
        self.parents, findings = link_children(self.nodes)
        findings += self._check_references()
        self._rest, self.has_matrix, self.rest_matrices, found = read_rest_pose(self.nodes)
        self.rest_matrix_nodes = self.has_matrix
        findings += found
        self._weights: list[npt.NDArray[np.float64] | None] = []
        if not findings:  # weights need valid mesh references
            self._weights, found = read_default_weights(self.nodes, self.meshes)
            findings += found
        errors = [f for f in findings if f.severity == ERROR]
        if errors:
            raise GltfError.from_findings(errors)
        self.depth_levels = depth_levels(self.parents)
        self.order = (np.concatenate(self.depth_levels) if self.depth_levels
                      else np.zeros(0, dtype=np.intp))

    # ----- structure, checked once ------------------------------------------------------------

    def _check_references(self):
        findings = []
        for i, node in enumerate(self.nodes):
            for key, table in (("mesh", self.meshes), ("skin", self.skins)):
                if key in node and not is_index(node[key], len(table)):
                    findings.append(Finding("UNRESOLVED_REFERENCE", pointer("nodes", i, key),
                                            f"node {i} uses {key} {node[key]!r}, which is missing"))
        for s, skin in enumerate(self.skins):
            joints = skin.get("joints")
            if not isinstance(joints, list) or not joints:
                findings.append(Finding("UNDEFINED_PROPERTY", pointer("skins", s, "joints"),
                                        f"skin {s} needs a non-empty 'joints' array"))
                continue
            for j, joint in enumerate(joints):
                if not is_index(joint, self.node_count):
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

    # ----- per-frame evaluation ----------------------------------------------------------------

    def rest_trs(self) -> RestTRS:
        """Copy the nodes' own translation, rotation and scale, and their default morph weights.

        ``matrix`` nodes get the defaults (see ``has_matrix``): their matrix is never split.

        Returns
        -------
        RestTRS
            (N, 3), (N, 4) and (N, 3) float arrays and the weights: copies the caller may change.
        """
        weights = [None if w is None else w.copy() for w in self._weights]
        return RestTRS(self._rest["translation"].copy(), self._rest["rotation"].copy(),
                       self._rest["scale"].copy(), weights)

    def local_matrices(self, translation: npt.ArrayLike, rotation: npt.ArrayLike,
                       scale: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Compose each node's local matrix T · R · S; ``matrix`` nodes keep their ``matrix``.

        Animation cannot target a node with a ``matrix`` (glTF 2.0), so its TRS are not read.

        Parameters
        ----------
        translation : (..., N, 3) float array
        rotation : (..., N, 4) float array
            Quaternions (x, y, z, w); a non-unit one plays the rotation it points to.
        scale : (..., N, 3) float array

        Returns
        -------
        (..., N, 4, 4) float64 array
        """
        local = trs_matrices(translation, rotation, scale)
        local[..., self.has_matrix, :, :] = self.rest_matrices[self.has_matrix]
        return local

    def global_matrices(self, translation: npt.ArrayLike, rotation: npt.ArrayLike,
                        scale: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Compose each node's global matrix, parents first: one batched matmul per depth level.

        Parameters
        ----------
        translation, rotation, scale : (..., N, 3), (..., N, 4), (..., N, 3) float arrays
            As for ``local_matrices``; leading axes are poses evaluated together.

        Returns
        -------
        (..., N, 4, 4) float64 array
            global(node) = global(parent) · local(node).
        """
        matrices = self.local_matrices(translation, rotation, scale)
        for level in self.depth_levels[1:]:
            matrices[..., level, :, :] = (matrices[..., self.parents[level], :, :]
                                          @ matrices[..., level, :, :])
        return matrices

    def joint_matrices(self, skin: int, globals_: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Compute global(joint) · inverseBind(joint) for every joint of a skin.

        Parameters
        ----------
        skin : int
            The skin's index.
        globals_ : (..., N, 4, 4) float array
            From ``global_matrices``.

        Returns
        -------
        (..., J, 4, 4) float64 array
            In the order of the skin's ``joints``.
        """
        joints = np.asarray(self.skins[skin]["joints"], dtype=np.intp)
        return globals_[..., joints, :, :] @ self.inverse_bind_matrices(skin)

    def inverse_bind_matrices(self, skin: int) -> npt.NDArray[np.float64]:
        """Read a skin's inverse bind matrices; identity matrices when the skin has none.

        Parameters
        ----------
        skin : int
            The skin's index.

        Returns
        -------
        (J, 4, 4) float array
            One per joint; read-only when read from the file (decoded once per file).

        Raises
        ------
        GltfError
            INVALID_IBM_ACCESSOR_COUNT when the accessor holds other than J MAT4 elements.
        """
        joint_count = len(self.skins[skin]["joints"])
        index = self.skins[skin].get("inverseBindMatrices")
        if index is None:
            return np.tile(_IDENTITY, (joint_count, 1, 1))
        matrices = read_accessor(self.gltf, index)  # decoded once per file, read-only
        if matrices.shape != (joint_count, 4, 4):
            raise GltfError("INVALID_IBM_ACCESSOR_COUNT",
                            pointer("skins", skin, "inverseBindMatrices"),
                            f"skin {skin} has {joint_count} joints but its inverse bind matrices "
                            f"accessor holds {matrices.shape[0]} elements of shape "
                            f"{matrices.shape[1:]}")
        return matrices

    def morph_weights(self, node: int) -> npt.NDArray[np.float64]:
        """Copy a mesh node's default morph weights: node.weights, else mesh.weights, else zeros.

        Parameters
        ----------
        node : int
            A node with a mesh.

        Returns
        -------
        (m,) float64 array
            One weight per morph target of the mesh.

        Raises
        ------
        GltfError
            UNDEFINED_PROPERTY for a node without a mesh.
        """
        self._mesh_index(node)
        return self._defaults(node).copy()

    def mesh_positions(self, node: int, globals_: npt.NDArray[np.float64],
                       weights: npt.ArrayLike | None = None) -> list[npt.NDArray[np.float64]]:
        """Place the vertices of each primitive of a node's mesh in world space, for one pose.

        Morph targets first, then skinning, else the node's global matrix (core.sampling.skinning).

        Parameters
        ----------
        node : int
            A node with a mesh.
        globals_ : (N, 4, 4) float array
            From ``global_matrices``, for one pose.
        weights : (m,) float array or None
            The node's animated morph weights; None: its defaults (``morph_weights``).

        Returns
        -------
        list of (V, 3) float64 arrays
            One per primitive; (0, 3) for a primitive without POSITION.

        Raises
        ------
        GltfError
            For a node without a mesh, ``weights`` of the wrong count, and accessors that do not
            fit their primitive (the validator's codes and JSON pointers).
        """
        mesh_index = self._mesh_index(node)
        weights = self._defaults(node) if weights is None else np.ravel(weights).astype(np.float64)
        count = target_count(self.meshes[mesh_index])
        if len(weights) != count:
            raise GltfError("NODE_WEIGHTS_INVALID", pointer("nodes", node, "weights"),
                            f"{len(weights)} morph weights given for the {count} targets of mesh {mesh_index}")
        skin = self.nodes[node].get("skin")
        joint_matrices = None if skin is None else self.joint_matrices(skin, globals_)
        out = []
        for p, primitive in enumerate(self.meshes[mesh_index]["primitives"]):
            where = pointer("meshes", mesh_index, "primitives", p)
            positions = morphed_positions(self.gltf, primitive, where, weights)
            if joint_matrices is None:
                out.append(transform_points(globals_[node], positions))
            else:
                found = read_influences(self.gltf, primitive, where, len(positions), node)
                out.append(skin_positions(positions, joint_matrices, found))
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


def _array(document, key):
    value = document.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise GltfError("TYPE_MISMATCH", pointer(key), f"'{key}' must be an array of objects")
    return value
