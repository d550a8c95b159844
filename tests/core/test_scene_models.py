"""core.sampling.scene on every Khronos sample model: rest poses, skinning and morph targets.

Expected values come from outside the code under test: the glTF 2.0 spec's formulas and the
skeletal-animation seed's recipe recomputed here with plain Python loops (its naive "walk up the
parents" global transform, and the vertex-shader sum Σ w_i · jointMatrix_i · p;
tests/helpers/plain_skinning.py). Skinned models are every Khronos model with a skinned mesh node.
Documents built by hand: test_scene.py.
"""

import math

import numpy as np
import pytest
from helpers import ASSETS

from gltf_sqlerp.core.gltf.accessors import read_accessor
from gltf_sqlerp.core.gltf.errors import GltfError
from gltf_sqlerp.core.gltf.file import read_file
from gltf_sqlerp.core.sampling.scene import Scene
from helpers.plain_skinning import (plain_globals, plain_joint_matrices, plain_skinned_vertex, transform)

KHRONOS = ASSETS / "khronos"
MODELS = sorted(p for p in KHRONOS.rglob("*") if p.suffix in (".gltf", ".glb"))
MODEL_IDS = [str(p.relative_to(KHRONOS)) for p in MODELS]


def globals_at_rest(scene):
    return scene.global_matrices(*scene.rest_trs())


def skinned_nodes(gltf):
    return [i for i, n in enumerate(gltf.json.get("nodes", [])) if "skin" in n and "mesh" in n]


def model(name, variant="glTF", ext=".gltf"):
    return read_file(KHRONOS / name / variant / f"{name}{ext}")


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
