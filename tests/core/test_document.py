"""The public scripting API: core.load, Document, Animation, Channel, Sampler.

Expected values come from the files themselves (JSON read with ``json``, key data with
``numpy.frombuffer``), from the glTF spec's rules, and from the validator's expected reports.
"""

import base64
import json
import math
from pathlib import Path

import numpy as np
import pytest

from gltf_sqlerp import core
from helpers.plain_skinning import plain_globals, plain_joint_matrices, plain_skinned_primitive
from helpers.raw_gltf import raw_accessor

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_box_animated_channels_and_keys_match_the_file(shared_assets):
    path = shared_assets / "khronos/BoxAnimated/glTF/BoxAnimated.gltf"
    document = json.loads(path.read_text())
    loaded = core.load(path)
    assert len(loaded.animations) == len(document["animations"])
    for animation, spec in zip(loaded.animations, document["animations"]):
        inputs = [spec["samplers"][c["sampler"]]["input"] for c in spec["channels"]]
        assert animation.duration == pytest.approx(max(document["accessors"][i]["max"][0]
                                                       for i in inputs))
        assert [(c.node, c.path) for c in animation.channels] == \
            [(c["target"]["node"], c["target"]["path"]) for c in spec["channels"]]
        for channel, channel_spec in zip(animation.channels, spec["channels"]):
            sampler_spec = spec["samplers"][channel_spec["sampler"]]
            times = raw_accessor(path, sampler_spec["input"])[:, 0]
            values = raw_accessor(path, sampler_spec["output"])
            assert channel.sampler.interpolation == sampler_spec.get("interpolation", "LINEAR")
            assert channel.fallback is None
            got = channel.evaluate(times)
            if channel.path == "rotation":  # the file's keys are unit to float32 precision
                values /= np.linalg.norm(values, axis=1, keepdims=True)
            np.testing.assert_allclose(got, values, atol=1e-7)


def test_tutorial_example_through_a_whole_document(tmp_path):
    """The tutorial's worked example as a file: at t = 1.2 s the translation is (16, 2, -0.5)."""
    times = np.array([0.0, 0.8, 1.6, 2.4], dtype="<f4")
    values = np.array([[0, 0, 0], [14, 3, -2], [18, 1, 1], [0, 0, 0]], dtype="<f4")
    blob = times.tobytes() + values.tobytes()
    document = {
        "asset": {"version": "2.0"}, "nodes": [{"name": "n"}],
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
        "bufferViews": [{"buffer": 0, "byteLength": 16}, {"buffer": 0, "byteOffset": 16, "byteLength": 48}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR",
                       "min": [0.0], "max": [2.4000000953674316]},
                      {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"}],
        "animations": [{"samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}],
    }
    path = tmp_path / "tutorial.gltf"
    path.write_text(json.dumps(document))
    loaded = core.load(path)
    np.testing.assert_allclose(loaded.animations[0].channels[0].evaluate([1.2])[0],
                               [16.0, 2.0, -0.5], atol=1e-5)
    matrix = loaded.node_matrices(0, 1.2)[0]
    np.testing.assert_allclose(matrix[:3, 3], [16.0, 2.0, -0.5], atol=1e-5)
    np.testing.assert_allclose(loaded.node_matrices(None, 1.2)[0], np.eye(4))


def test_extension_is_default_and_fallback_is_available():
    loaded = core.load(SAMPLES / "sqlerp_arm.gltf")
    document = json.loads((SAMPLES / "sqlerp_arm.gltf").read_text())
    channels = [c for c in loaded.animations[0].channels if c.path == "rotation"]
    assert channels and all(c.sampler.interpolation == "CUBICSLERP" for c in channels)
    for channel, spec in zip(channels, document["animations"][0]["channels"]):
        fallback_spec = document["animations"][0]["samplers"][spec["sampler"]]
        times = raw_accessor(SAMPLES / "sqlerp_arm.gltf", fallback_spec["input"])[:, 0]
        keys = raw_accessor(SAMPLES / "sqlerp_arm.gltf", fallback_spec["output"])
        assert channel.fallback is not None and channel.fallback.interpolation == "LINEAR"
        got = channel.evaluate(times, use_fallback=True)
        np.testing.assert_allclose(np.abs(np.sum(got * keys, axis=1)), 1.0, atol=1e-6)


def test_required_draft_form_has_no_fallback():
    loaded = core.load(SAMPLES / "sqlerp_arm_required.gltf")
    channels = [c for c in loaded.animations[0].channels if c.path == "rotation"]
    assert channels and all(c.fallback is None and c.uses_extension for c in channels)
    times = np.linspace(0, loaded.animations[0].duration, 50)
    np.testing.assert_array_equal(channels[0].evaluate(times, use_fallback=True),
                                  channels[0].evaluate(times))


def test_same_motion_in_gltf_glb_and_required_forms():
    times = np.linspace(0, 2, 81)
    forms = [core.load(SAMPLES / n) for n in ("sqlerp_arm.gltf", "sqlerp_arm.glb",
                                               "sqlerp_arm_required.gltf")]
    for channels in zip(*(f.animations[0].channels for f in forms)):
        results = [c.evaluate(times) for c in channels]
        for other in results[1:]:
            np.testing.assert_array_equal(results[0], other)


def test_wrist_vertices_follow_the_wrist_joint():
    """Vertices weighted 1 to the Wrist move with global(Wrist)·inverseBind(Wrist) (spec §3.7.3)."""
    loaded = core.load(SAMPLES / "sqlerp_arm.gltf")
    wrist, mesh_node = 3, 4
    rest = loaded.mesh_positions(mesh_node, None, 0.0)[0]
    tip = rest[:, 1] > 2.4  # the rings weighted only to the Wrist
    for time in (0.0, 0.5, 1.1, 1.9):
        matrices = loaded.node_matrices(0, time)
        joint = matrices[wrist] @ np.linalg.inv(np.array(
            [[1, 0, 0, 0], [0, 1, 0, 2.0], [0, 0, 1, 0], [0, 0, 0, 1]]))
        expected = (np.c_[rest[tip], np.ones(tip.sum())] @ joint.T)[:, :3]
        np.testing.assert_allclose(loaded.mesh_positions(mesh_node, 0, time)[0][tip], expected,
                                   atol=1e-6)


def test_non_unit_quaternions_are_repaired_with_a_warning(shared_assets):
    path = shared_assets / "validator/animation_data/quaternion_non_unit_values.gltf"
    report = json.loads(path.with_name(path.name + ".report.json").read_text())
    expected = {(m["code"], m["pointer"]) for m in report["issues"]["messages"]}
    loaded = core.load(path)
    assert {(w.code, w.pointer) for w in loaded.warnings} >= expected
    for channel in loaded.animations[0].channels:
        keys = channel.sampler.keys
        np.testing.assert_allclose(np.linalg.norm(keys, axis=1), 1.0, atol=1e-12)


def test_invalid_file_raises_with_code_and_pointer(shared_assets):
    path = shared_assets / "validator/animation/unresolved_channel_sampler.gltf"
    with pytest.raises(core.GltfError) as caught:
        core.load(path)
    assert (caught.value.code, caught.value.pointer) == \
        ("UNRESOLVED_REFERENCE", "/animations/0/channels/0/sampler")
    assert "/animations/0/channels/0/sampler" in str(caught.value)


def test_unknown_required_extension_is_refused(tmp_path):
    document = {"asset": {"version": "2.0"}, "extensionsUsed": ["EXT_made_up"],
                "extensionsRequired": ["EXT_made_up"]}
    path = tmp_path / "required.gltf"
    path.write_text(json.dumps(document))
    with pytest.raises(core.GltfError) as caught:
        core.load(path)
    assert (caught.value.code, caught.value.pointer) == ("UNSUPPORTED_EXTENSION",
                                                         "/extensionsRequired/0")


def test_blenders_import_takes_required_extensions_that_leave_animation_data_alone(tmp_path):
    # Blender's bundled importer decides which required extensions it builds a scene with (it
    # imports a file requiring KHR_lights_punctual; tests/operators/test_import_corpus.py); the import reads
    # the animation taking those (also_required). An extension that stores buffer data the core
    # cannot decode is refused all the same, at its place in the list.
    document = {"asset": {"version": "2.0"}, "extensionsUsed": ["KHR_lights_punctual", "EXT_meshopt_compression"],
                "extensionsRequired": ["KHR_lights_punctual"]}
    path = tmp_path / "required.gltf"
    path.write_text(json.dumps(document))
    with pytest.raises(core.GltfError):
        core.load(path)
    assert core.load(path, also_required=["KHR_lights_punctual"]).animations == []
    document["extensionsRequired"].append("EXT_meshopt_compression")
    path.write_text(json.dumps(document))
    with pytest.raises(core.GltfError) as caught:
        core.load(path, also_required=["KHR_lights_punctual", "EXT_meshopt_compression"])
    assert [(f.code, f.pointer) for f in caught.value.findings] == [("UNSUPPORTED_EXTENSION", "/extensionsRequired/1")]


def test_channel_without_node_is_ignored(tmp_path):
    """glTF 2.0 §3.11: 'When node isn't defined, channel SHOULD be ignored'."""
    source = SAMPLES / "sqlerp_arm_required.gltf"
    document = json.loads(source.read_text())
    del document["animations"][0]["channels"][0]["target"]["node"]
    path = tmp_path / "no_node.gltf"
    path.write_text(json.dumps(document))
    loaded = core.load(path)
    assert [c.node for c in loaded.animations[0].channels] == [2, 3, 0]


def test_quantized_outputs_decode_like_the_float_file(shared_assets):
    """AnimatedMorphCube's quantized variant (normalized integers, KHR_mesh_quantization)
    animates the same weights as the float variant, to the quantization step."""
    floats = core.load(shared_assets / "khronos/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")
    quantized = core.load(shared_assets / "khronos/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf")
    times = np.linspace(0, floats.animations[0].duration, 200)
    a = floats.animations[0].channels[0].evaluate(times)
    b = quantized.animations[0].channels[0].evaluate(times)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, atol=1.0 / 255 + 1e-6)
    assert math.isclose(floats.animations[0].duration, quantized.animations[0].duration,
                        rel_tol=1e-6)


from helpers import ASSETS  # noqa: E402  (collection-time list of the shared models)

KHRONOS_FILES = sorted(p for p in (ASSETS / "khronos").rglob("*")
                       if p.suffix in (".gltf", ".glb"))


@pytest.mark.parametrize("path", KHRONOS_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_khronos_model_loads_evaluates_and_skins(path):
    """Through the public API: every clip evaluates to finite values of the right width at dense
    times; every mesh node poses in every clip; a skinned mesh, at rest and 0.5 s into its first
    clip, is where plain per-vertex skinning (tests/helpers/plain_skinning.py: the node globals
    walked up the parents, jointMatrix = global · inverseBindMatrix, Σ w · jointMatrix · p) puts
    it, on every vertex. (The rest pose need not be the bind pose moved rigidly: RecursiveSkeletons
    binds its skins in each skeleton's own frame and hangs them from each other with scale 0.3.)"""
    loaded = core.load(path)
    widths = {"translation": 3, "rotation": 4, "scale": 3}
    for animation in loaded.animations:
        times = np.linspace(-0.1, animation.duration + 0.1, 257)
        for channel in animation.channels:
            values = channel.evaluate(times)
            assert values.shape[0] == len(times) and np.isfinite(values).all()
            if channel.path in widths:
                assert values.shape[1] == widths[channel.path]
            if channel.path == "rotation":
                np.testing.assert_allclose(np.linalg.norm(values, axis=1), 1.0, atol=1e-6)
    mesh_nodes = [i for i, node in enumerate(loaded.json.get("nodes", [])) if "mesh" in node]
    assert mesh_nodes
    skinned = {}  # (animation, node) -> posed primitives of the skinned nodes, rest and first clip
    for node in mesh_nodes:
        for animation in [None] + list(range(len(loaded.animations))):
            posed = loaded.mesh_positions(node, animation, 0.5)
            for positions in posed:
                assert positions.ndim == 2 and positions.shape[1] == 3
                assert np.isfinite(positions).all()
            if "skin" in loaded.json["nodes"][node] and animation in (None, 0):
                skinned[animation, node] = posed
    for animation in sorted({a for a, _ in skinned}, key=str):
        plain = plain_pose_globals(loaded, animation, 0.5)  # walked once for all skinned nodes
        for node in (n for a, n in skinned if a == animation):
            for posed, reference in zip(skinned[animation, node], plain_skinned_mesh(loaded, node, plain)):
                extent = float(np.ptp(reference)) or 1.0
                np.testing.assert_allclose(posed, reference, rtol=0, atol=1e-9 * extent)


def plain_pose_globals(loaded, animation, time):
    """Every node's global matrix by plain loops over the JSON, with the nodes' TRS at ``time``
    taken from Document.pose (what a clip plays is checked on its own)."""
    translation, rotation, scale, _ = loaded.pose(animation, time)
    return plain_globals([{**spec, "translation": list(t), "rotation": list(r), "scale": list(s)}
                          for spec, t, r, s in zip(loaded.json["nodes"], translation, rotation, scale)])


def plain_skinned_mesh(loaded, node, plain):
    """Per primitive, the node's skinned vertices by plain per-vertex loops over the JSON."""
    skin = loaded.json["skins"][loaded.json["nodes"][node]["skin"]]
    ibms = (loaded.accessor(skin["inverseBindMatrices"]).tolist()
            if "inverseBindMatrices" in skin else None)
    joint_matrices = plain_joint_matrices(plain, skin["joints"], ibms)
    out = []
    for primitive in loaded.json["meshes"][loaded.json["nodes"][node]["mesh"]]["primitives"]:
        attributes = primitive["attributes"]
        sets = range(sum(1 for name in attributes if name.startswith("JOINTS_")))
        out.append(plain_skinned_primitive(
            loaded.accessor(attributes["POSITION"]).tolist(),
            [loaded.accessor(attributes[f"JOINTS_{n}"]).tolist() for n in sets],
            [loaded.accessor(attributes[f"WEIGHTS_{n}"]).tolist() for n in sets], joint_matrices))
    return out
