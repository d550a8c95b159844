"""core.sampling.scene: node matrices, hierarchy, joint matrices, skinning and morph targets.

Expected values come from outside the code under test: matrices worked by hand, the glTF 2.0 spec's
formulas and the skeletal-animation seed's recipe recomputed here with plain Python loops (its naive
"walk up the parents" global transform, and the vertex-shader sum Σ w_i · jointMatrix_i · p;
tests/helpers/plain_skinning.py). Skinned models are every Khronos model with a skinned mesh node.
"""

import math
import struct
from typing import Any

import numpy as np
import pytest
from helpers import ASSETS

from gltf_sqlerp.core.gltf.accessors import read_accessor
from gltf_sqlerp.core.gltf.errors import GltfError
from gltf_sqlerp.core.gltf.file import GltfFile, read_file
from gltf_sqlerp.core.sampling.scene import Scene
from helpers.plain_skinning import (plain_globals, plain_joint_matrices, plain_skinned_vertex, transform)

KHRONOS = ASSETS / "khronos"
MODELS = sorted(p for p in KHRONOS.rglob("*") if p.suffix in (".gltf", ".glb"))
MODEL_IDS = [str(p.relative_to(KHRONOS)) for p in MODELS]
S = math.sqrt(0.5)  # sin 45° = cos 45°: quaternion of 90° about Z is (0, 0, S, S)


def make_file(document, *buffers):
    return GltfFile(json=document, buffers=list(buffers))


def globals_at_rest(scene):
    return scene.global_matrices(*scene.rest_trs())


def skinned_nodes(gltf):
    return [i for i, n in enumerate(gltf.json.get("nodes", [])) if "skin" in n and "mesh" in n]


def model(name, variant="glTF", ext=".gltf"):
    return read_file(KHRONOS / name / variant / f"{name}{ext}")


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


# ----- every Khronos sample model ----------------------------------------------------------------

def test_the_sample_models_are_there(shared_assets):
    assert KHRONOS == shared_assets / "khronos"
    names = {p.parent.parent.name for p in MODELS}
    assert len(MODELS) >= 20 and names >= {"CesiumMan", "RiggedSimple", "RiggedFigure",
                                           "SimpleSkin", "SimpleMorph", "AnimatedMorphCube"}


@pytest.mark.parametrize("path", MODELS, ids=MODEL_IDS)
def test_model_rest_pose_matches_plain_loops(path):
    gltf = read_file(path)
    scene = Scene(gltf)
    nodes = gltf.json.get("nodes", [])
    assert scene.node_count == len(nodes)
    globals_ = globals_at_rest(scene)
    np.testing.assert_allclose(globals_, np.array(plain_globals(nodes)).reshape(-1, 4, 4),
                               rtol=1e-12, atol=1e-12)
    for i, node in enumerate(nodes):
        if "mesh" not in node:
            continue
        mesh = gltf.json["meshes"][node["mesh"]]
        weights = node.get("weights", mesh.get("weights"))
        got = scene.mesh_positions(i, globals_)
        assert len(got) == len(mesh["primitives"])
        for positions, primitive in zip(got, mesh["primitives"]):
            base = read_accessor(gltf, primitive["attributes"]["POSITION"]).astype(float).tolist()
            assert positions.shape == (len(base), 3) and np.isfinite(positions).all()
            for target, w in zip(primitive.get("targets", []), weights or []):
                offsets = read_accessor(gltf, target["POSITION"]).astype(float).tolist()
                base = [[b[k] + w * o[k] for k in range(3)] for b, o in zip(base, offsets)]
            if "skin" not in node:
                np.testing.assert_allclose(positions, transform(plain_globals(nodes)[i], base),
                                           rtol=1e-9, atol=1e-9)


def _has_skinned_mesh(path):
    return bool(skinned_nodes(read_file(path)))


# Every model with a skinned mesh node, read from the files (RecursiveSkeletons has 84 of them).
SKINNED_MODELS = [p for p in MODELS if _has_skinned_mesh(p)]


@pytest.mark.parametrize("path", SKINNED_MODELS, ids=lambda p: str(p.relative_to(KHRONOS)))
def test_bind_pose_gives_back_the_mesh_positions(path):
    # Bind pose: global(joint_j) = inverse(inverseBind_j), so every joint matrix is the identity
    # and, with weights summing to 1, skinning returns p itself, whatever the rest pose is.
    gltf = read_file(path)
    scene = Scene(gltf)
    for node in skinned_nodes(gltf):
        skin = gltf.json["skins"][gltf.json["nodes"][node]["skin"]]
        globals_ = globals_at_rest(scene)
        globals_[skin["joints"]] = np.linalg.inv(read_accessor(gltf, skin["inverseBindMatrices"]))
        mesh = gltf.json["meshes"][gltf.json["nodes"][node]["mesh"]]
        for positions, primitive in zip(scene.mesh_positions(node, globals_), mesh["primitives"]):
            base = read_accessor(gltf, primitive["attributes"]["POSITION"])
            np.testing.assert_allclose(positions, base, atol=1e-5 * float(np.ptp(base)))


def rest_placement(gltf, node):
    """The one matrix that places the skinned mesh of ``node`` at rest, from plain loops.

    Every skinned model here is authored with all of a skin's joint matrices equal at rest
    (asserted): the rest pose is the bind pose moved as one body. For the older four that body
    moves rigidly, by a node's global (SimpleSkin's node 0, CesiumMan's 2, RiggedFigure's 1,
    RiggedSimple's root "Z_UP": its "Armature" node's -90° turn about Z lies between the mesh node
    and the root and is ignored for skinned vertices, as the spec says). RecursiveSkeletons binds
    each skin in its skeleton's own frame while the skeletons hang from each other with scale 0.3:
    its rest poses are the bind pose scaled by 0.3, 0.09, ... about a moved origin.
    """
    skin = gltf.json["skins"][gltf.json["nodes"][node]["skin"]]
    ibms = read_accessor(gltf, skin["inverseBindMatrices"]).tolist()
    matrices = np.array(plain_joint_matrices(plain_globals(gltf.json["nodes"]), skin["joints"], ibms))
    np.testing.assert_allclose(matrices, np.broadcast_to(matrices[0], matrices.shape),
                               atol=1e-6 * np.abs(matrices[0]).max())
    return matrices[0]


@pytest.mark.parametrize("path", SKINNED_MODELS, ids=lambda p: str(p.relative_to(KHRONOS)))
def test_rest_pose_is_the_bind_pose_placed_as_one_body(path):
    gltf = read_file(path)
    nodes = gltf.json["nodes"]
    scene = Scene(gltf)
    globals_ = globals_at_rest(scene)
    for node in skinned_nodes(gltf):
        placement = rest_placement(gltf, node)
        # A similarity: orthogonal columns of one length (rigid where that length is 1).
        linear = placement[:3, :3]
        size = float(np.cbrt(abs(np.linalg.det(linear))))
        np.testing.assert_allclose(linear.T @ linear, size ** 2 * np.eye(3), atol=1e-6 * size ** 2)
        primitive = gltf.json["meshes"][nodes[node]["mesh"]]["primitives"][0]
        accessor_index = primitive["attributes"]["POSITION"]
        (positions,) = scene.mesh_positions(node, globals_)
        base = read_accessor(gltf, accessor_index)
        extent = float(np.ptp(base))
        assert np.isfinite(positions).all()
        # Inside the ball around the placed centre of the accessor's own bounding box (JSON min/max).
        accessor = gltf.json["accessors"][accessor_index]
        low, high = np.array(accessor["min"]), np.array(accessor["max"])
        centre = transform(placement.tolist(), [(low + high) / 2])[0]
        radius = size * np.linalg.norm(high - low) / 2
        assert np.linalg.norm(positions - centre, axis=1).max() <= radius + 1e-5 * size
        np.testing.assert_allclose(positions, transform(placement.tolist(), base.tolist()),
                                   atol=1e-6 * size * extent)


def perturbed_rotations(nodes):
    """A pose away from rest: every TRS node turned by its own small rotation."""
    out = []
    for i, node in enumerate(nodes):
        x, y, z, w = node.get("rotation", [0, 0, 0, 1])
        q = [x + 0.3 * math.sin(i), y + 0.2 * math.cos(i), z + 0.25 * math.sin(2 * i), w]
        norm = math.sqrt(sum(c * c for c in q))
        out.append([c / norm for c in q])
    return out


@pytest.mark.parametrize("path", SKINNED_MODELS, ids=lambda p: str(p.relative_to(KHRONOS)))
def test_skinning_matches_the_per_vertex_loop(path):
    gltf = read_file(path)
    nodes = gltf.json["nodes"]
    scene = Scene(gltf)
    rotations = perturbed_rotations(nodes)
    translation, _, scale = scene.rest_trs()
    globals_ = scene.global_matrices(translation, np.array(rotations), scale)
    plain = plain_globals(nodes, rotations)
    for node in skinned_nodes(gltf):
        skin = gltf.json["skins"][nodes[node]["skin"]]
        ibms = read_accessor(gltf, skin["inverseBindMatrices"]).tolist()
        joint_matrices = plain_joint_matrices(plain, skin["joints"], ibms)
        np.testing.assert_allclose(scene.joint_matrices(nodes[node]["skin"], globals_),
                                   joint_matrices, rtol=1e-9, atol=1e-9)
        primitive = gltf.json["meshes"][nodes[node]["mesh"]]["primitives"][0]
        base = read_accessor(gltf, primitive["attributes"]["POSITION"])
        joints = read_accessor(gltf, primitive["attributes"]["JOINTS_0"])
        weights = read_accessor(gltf, primitive["attributes"]["WEIGHTS_0"])
        positions = scene.mesh_positions(node, globals_)[0]
        for v in sorted({0, 1, len(base) // 3, len(base) // 2, len(base) - 1}):
            expected = plain_skinned_vertex(base[v].tolist(), [joints[v]], [weights[v]],
                                            joint_matrices)
            np.testing.assert_allclose(positions[v], expected, rtol=1e-9, atol=1e-9)


# ----- morph targets -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["SimpleMorph", "AnimatedMorphCube"])
@pytest.mark.parametrize("weights", [(1.0, 0.0), (0.0, 1.0), (0.3, -0.5)])
def test_morph_positions_are_base_plus_weighted_targets(name, weights):
    gltf = model(name)
    scene = Scene(gltf)
    primitive = gltf.json["meshes"][0]["primitives"][0]
    base = read_accessor(gltf, primitive["attributes"]["POSITION"]).tolist()
    targets = [read_accessor(gltf, t["POSITION"]).tolist() for t in primitive["targets"]]
    morphed = [[b[k] + sum(w * t[v][k] for w, t in zip(weights, targets)) for k in range(3)]
               for v, b in enumerate(base)]
    expected = transform(plain_globals(gltf.json["nodes"])[0], morphed)
    (positions,) = scene.mesh_positions(0, globals_at_rest(scene), np.array(weights)[:, None])
    np.testing.assert_allclose(positions, expected, rtol=1e-12, atol=1e-12)


def test_simple_morph_defaults_come_from_mesh_weights_then_node_weights():
    gltf = model("SimpleMorph")
    primitive = gltf.json["meshes"][0]["primitives"][0]
    base, t0, t1 = (np.array(read_accessor(gltf, i)) for i in
                    (primitive["attributes"]["POSITION"], primitive["targets"][0]["POSITION"],
                     primitive["targets"][1]["POSITION"]))
    scene = Scene(gltf)  # mesh.weights = [0.5, 0.5] in the file
    (positions,) = scene.mesh_positions(0, globals_at_rest(scene))
    np.testing.assert_allclose(positions, base + 0.5 * t0 + 0.5 * t1, atol=1e-12)
    gltf.json["nodes"][0]["weights"] = [0.0, 1.0]
    scene = Scene(gltf)
    (positions,) = scene.mesh_positions(0, globals_at_rest(scene))
    np.testing.assert_allclose(positions, base + t1, atol=1e-12)


def test_quantized_morph_cube_matches_the_float_one():
    # KHR_mesh_quantization stores plain integer positions and moves the dequantization into a node
    # transform; world positions agree with the float file to within one quantization step. The
    # two files list the vertices in different orders, so each vertex is matched to its nearest.
    weights = np.array([0.4, 0.6])
    results = []
    for variant in ("glTF", "glTF-Quantized"):
        gltf = model("AnimatedMorphCube", variant)
        scene = Scene(gltf)
        node = next(i for i, n in enumerate(gltf.json["nodes"]) if "mesh" in n)
        results.append(scene.mesh_positions(node, globals_at_rest(scene), weights)[0])
    step = 3.649e-6 * 100  # the quantized node's scale times its parent's
    distances = np.linalg.norm(results[1][:, None] - results[0][None], axis=-1)
    assert distances.min(axis=0).max() < 2 * step and distances.min(axis=1).max() < 2 * step
    assert np.ptp(results[0]) > 1000 * step  # a real cube, not everything at one point


def test_wrong_number_of_animated_weights():
    gltf = model("SimpleMorph")
    scene = Scene(gltf)
    with pytest.raises(GltfError) as caught:
        scene.mesh_positions(0, globals_at_rest(scene), [1.0, 0.0, 0.0])
    assert caught.value.code == "NODE_WEIGHTS_INVALID"
