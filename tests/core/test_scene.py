"""core.sampling.scene (with the node_tree, rest_pose and skinning it builds on) on documents built
here: node matrices, hierarchy, structural errors and a skinned triangle, every expected value
worked by hand from the glTF 2.0 spec's formulas.

The Khronos sample models, against plain-loop recomputations: test_scene_models.py.
"""

import math
import struct
from typing import Any

import numpy as np
import pytest

from gltf_sqlerp.core.gltf.errors import GltfError
from gltf_sqlerp.core.gltf.file import GltfFile
from gltf_sqlerp.core.sampling.scene import Scene

S = math.sqrt(0.5)  # sin 45° = cos 45°: quaternion of 90° about Z is (0, 0, S, S)


def make_file(document, *buffers):
    return GltfFile(json=document, buffers=list(buffers))


def globals_at_rest(scene):
    return scene.global_matrices(*scene.rest_trs())


# ----- local matrices and hierarchy, by hand -----------------------------------------------------

def test_trs_composition_worked_by_hand():
    # T = (1, 2, 3), R = 90° about Z, S = (2, 3, 4): T·R·S maps x -> 2·y, y -> -3·x, z -> 4·z.
    node = {"translation": [1, 2, 3], "rotation": [0, 0, S, S], "scale": [2, 3, 4]}
    scene = Scene(make_file({"nodes": [node]}))
    expected = [[0, -3, 0, 1], [2, 0, 0, 2], [0, 0, 4, 3], [0, 0, 0, 1]]
    np.testing.assert_allclose(globals_at_rest(scene)[0], expected, atol=1e-12)


def test_child_of_rotated_parent_worked_by_hand():
    # Parent: translate (1,0,0), rotate 90° about Z; child: translate (1,0,0) -> origin (1,1,0).
    # Children are listed before their parents to check the parents-first order.
    nodes = [{"translation": [1, 0, 0]},                                      # 0: grandchild
             {"translation": [1, 0, 0], "children": [0]},                     # 1: child
             {"translation": [1, 0, 0], "rotation": [0, 0, S, S], "children": [1]}]  # 2: root
    scene = Scene(make_file({"nodes": nodes}))
    assert scene.parents.tolist() == [1, 2, -1]
    assert scene.order.tolist() == [2, 1, 0]
    globals_ = globals_at_rest(scene)
    np.testing.assert_allclose(globals_[1][:3, 3], [1, 1, 0], atol=1e-12)
    np.testing.assert_allclose(globals_[0][:3, 3], [1, 2, 0], atol=1e-12)
    # The child's x axis is the parent's y axis after the 90° turn.
    np.testing.assert_allclose(globals_[0][:3, 0], [0, 1, 0], atol=1e-12)


def test_depth_levels_cover_every_node_once_with_parents_earlier():
    nodes = [{"children": [3, 4]}, {}, {"children": [0]}, {"children": [5]}, {}, {}]
    scene = Scene(make_file({"nodes": nodes}))
    assert [level.tolist() for level in scene.depth_levels] == [[1, 2], [0], [3, 4], [5]]
    position = {node: k for k, node in enumerate(scene.order.tolist())}
    assert sorted(position) == list(range(6))
    assert all(position[p] < position[c] for c, p in enumerate(scene.parents.tolist()) if p >= 0)


def test_matrix_node_is_read_column_major_and_wins_over_animation():
    translation_matrix = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 6, 7, 1]  # translate (5, 6, 7)
    nodes = [{"matrix": translation_matrix, "children": [1]}, {"translation": [1, 0, 0]}]
    scene = Scene(make_file({"nodes": nodes}))
    assert scene.has_matrix.tolist() == [True, False]
    np.testing.assert_allclose(scene.rest_matrices[0][:3, 3], [5, 6, 7])
    np.testing.assert_allclose(scene.rest_matrices[0][3], [0, 0, 0, 1])
    translation, rotation, scale = scene.rest_trs()
    translation[0] = [100, 100, 100]  # a matrix node cannot be animated: the matrix stays
    globals_ = scene.global_matrices(translation, rotation, scale)
    np.testing.assert_allclose(globals_[1][:3, 3], [6, 6, 7])


def test_batched_poses_follow_the_parent_rotation():
    # Parent rotates by angle a about Z, child at (1,0,0): child origin = (cos a, sin a, 0).
    scene = Scene(make_file({"nodes": [{"children": [1]}, {"translation": [1, 0, 0]}]}))
    angles = np.linspace(0.0, 3.0, 7)
    translation, rotation, scale = (np.repeat(a[None], len(angles), 0) for a in scene.rest_trs())
    rotation[:, 0] = np.stack([0 * angles, 0 * angles, np.sin(angles / 2), np.cos(angles / 2)], -1)
    globals_ = scene.global_matrices(translation, rotation, scale)
    assert globals_.shape == (7, 2, 4, 4)
    expected = [[math.cos(a), math.sin(a), 0.0] for a in angles]
    np.testing.assert_allclose(globals_[:, 1, :3, 3], expected, atol=1e-12)


def test_rest_trs_defaults_and_weights():
    nodes = [{"mesh": 0, "weights": [0.25, 0.75]}, {"mesh": 0}, {"rotation": [0, 0, 0, 1]}]
    meshes = [{"primitives": [{"attributes": {}, "targets": [{}, {}]}], "weights": [0.5, 0.5]}]
    scene = Scene(make_file({"nodes": nodes, "meshes": meshes}))
    rest = scene.rest_trs()
    np.testing.assert_array_equal(rest["translation"], np.zeros((3, 3)))
    np.testing.assert_array_equal(rest.rotation, [[0, 0, 0, 1]] * 3)
    np.testing.assert_array_equal(rest[2], np.ones((3, 3)))
    # node.weights override mesh.weights; nodes without a mesh have none.
    weights = [None if w is None else w.tolist() for w in rest.weights]
    assert weights == [[0.25, 0.75], [0.5, 0.5], None]
    assert scene.morph_weights(1).tolist() == [0.5, 0.5]


# ----- structural errors, with the validator's codes and JSON pointers ---------------------------

@pytest.mark.parametrize("document, code, where", [
    ({"nodes": [{"children": [1]}]}, "UNRESOLVED_REFERENCE", "/nodes/0/children/0"),
    ({"nodes": [{"children": [1, 5]}, {}]}, "UNRESOLVED_REFERENCE", "/nodes/0/children/1"),
    ({"nodes": [{"children": [2]}, {"children": [2]}, {}]},
     "NODE_PARENT_OVERRIDE", "/nodes/1/children/0"),
    ({"nodes": [{}, {"children": [2]}, {"children": [1]}]}, "NODE_LOOP", "/nodes/1"),
    ({"nodes": [{"mesh": 3}]}, "UNRESOLVED_REFERENCE", "/nodes/0/mesh"),
    ({"nodes": [{}], "skins": [{"joints": [0, 4]}]}, "UNRESOLVED_REFERENCE", "/skins/0/joints/1"),
    ({"nodes": [{"translation": [1, 2]}]}, "ARRAY_LENGTH_NOT_IN_LIST", "/nodes/0/translation"),
    ({"nodes": [{"mesh": 0, "weights": [1]}],
      "meshes": [{"primitives": [{"attributes": {}, "targets": [{}, {}]}]}]},
     "NODE_WEIGHTS_INVALID", "/nodes/0/weights"),
    ({"nodes": [{"mesh": 0}],
      "meshes": [{"weights": [1, 2, 3], "primitives": [{"attributes": {}, "targets": [{}, {}]}]}]},
     "MESH_INVALID_WEIGHTS_COUNT", "/meshes/0/weights"),
    ({"nodes": [], "meshes": [{"primitives": [{"attributes": {}, "targets": [{}]},
                                              {"attributes": {}}]}]},
     "MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT", "/meshes/0/primitives/1"),
])
def test_structural_errors_raise_with_pointer(document, code, where):
    with pytest.raises(GltfError) as caught:
        Scene(make_file(document))
    assert (caught.value.code, caught.value.pointer) == (code, where)


def test_node_loop_reports_only_the_nodes_on_the_loop():
    # 1 -> 2 -> 1 is a loop; 3 hangs below it without being on it.
    document = {"nodes": [{}, {"children": [2]}, {"children": [1, 3]}, {}]}
    with pytest.raises(GltfError) as caught:
        Scene(make_file(document))
    assert sorted(f.pointer for f in caught.value.findings) == ["/nodes/1", "/nodes/2"]


def test_mesh_positions_of_a_node_without_mesh():
    scene = Scene(make_file({"nodes": [{}]}))
    with pytest.raises(GltfError) as caught:
        scene.mesh_positions(0, globals_at_rest(scene))
    assert (caught.value.code, caught.value.pointer) == ("UNDEFINED_PROPERTY", "/nodes/0/mesh")


# ----- a skinned triangle built here: two JOINTS/WEIGHTS sets, normalized unsigned byte weights ---

def skinned_file(joint_index=1, ibm=True):
    """Two joints translated (1,0,0) and (0,2,0); vertex 0 bound 153/255 to joint 0 (set 0) and
    102/255 to joint 1 (set 1); vertex 1 bound fully to joint 1."""
    positions = struct.pack("<6f", 0, 0, 0, 1, 1, 1)
    joints0 = bytes([0, 0, 0, 0, 1, 0, 0, 0])
    weights0 = bytes([153, 0, 0, 0, 255, 0, 0, 0])
    joints1 = bytes([joint_index, 0, 0, 0, 0, 0, 0, 0])
    weights1 = bytes([102, 0, 0, 0, 0, 0, 0, 0])
    ibms = struct.pack("<32f", *([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * 2))
    data = positions + joints0 + weights0 + joints1 + weights1 + ibms
    views = [(0, 24), (24, 8), (32, 8), (40, 8), (48, 8), (56, 128)]
    kinds = [(5126, False, "VEC3"), (5121, False, "VEC4"), (5121, True, "VEC4"),
             (5121, False, "VEC4"), (5121, True, "VEC4"), (5126, False, "MAT4")]
    accessors = [{"bufferView": i, "componentType": c, "normalized": n, "count": 2, "type": kind}
                 for i, (c, n, kind) in enumerate(kinds)]
    attributes = {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "JOINTS_1": 3, "WEIGHTS_1": 4}
    skin: dict[str, Any] = {"joints": [1, 2]}  # JSON
    if ibm:
        skin["inverseBindMatrices"] = 5
    document = {
        "buffers": [{"byteLength": len(data)}],
        "bufferViews": [{"buffer": 0, "byteOffset": o, "byteLength": n} for o, n in views],
        "accessors": accessors,
        "meshes": [{"primitives": [{"attributes": attributes}]}],
        # The mesh node's own translation must be ignored for skinned vertices (glTF 2.0 §3.7.3).
        "nodes": [{"mesh": 0, "skin": 0, "translation": [50, 50, 50]},
                  {"translation": [1, 0, 0]}, {"translation": [0, 2, 0]}],
        "skins": [skin],
    }
    return make_file(document, data)


@pytest.mark.parametrize("ibm", [True, False])
def test_skinning_with_two_sets_worked_by_hand(ibm):
    scene = Scene(skinned_file(ibm=ibm))
    (positions,) = scene.mesh_positions(0, globals_at_rest(scene))
    # v0 = 0.6·(p + (1,0,0)) + 0.4·(p + (0,2,0)) with p = 0; v1 = p + (0,2,0) with p = (1,1,1).
    np.testing.assert_allclose(positions, [[0.6, 0.8, 0.0], [1.0, 3.0, 1.0]], atol=1e-12)


def test_joint_index_out_of_the_skin():
    scene = Scene(skinned_file(joint_index=2))
    with pytest.raises(GltfError) as caught:
        scene.mesh_positions(0, globals_at_rest(scene))
    assert caught.value.code == "ACCESSOR_JOINTS_INDEX_OOB"
    assert caught.value.pointer == "/meshes/0/primitives/0/attributes/JOINTS_1"
