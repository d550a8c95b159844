"""KHR_animation_pointer channels to a node's TRS or weights are node channels in the core (issue 33).

The pointer grammar is checked against KHR_animation_pointer's "/nodes/{}/rotation" form; the
played values against slerp worked by hand; broken pointers against the errors and JSON pointers
the core must report (glTF-Validator 2.0.0-dev.3.10 only says INCOMPLETE_EXTENSION_SUPPORT for
pointers, so these are our own checks, with the validator's codes for the same faults on plain
channels).
"""

import json
import math

import numpy as np
import pytest
from helpers import tool

from gltf_sqlerp import core
from gltf_sqlerp.core.gltf import GltfError, node_target

pointer_files = tool("tools/pointer_files.py")
POINTER = "KHR_animation_pointer"


def _target(text):
    return {"path": "pointer", "extensions": {POINTER: {"pointer": text}}}


@pytest.mark.parametrize("text, expected", [
    ("/nodes/0/rotation", (0, "rotation")), ("/nodes/12/translation", (12, "translation")),
    ("/nodes/3/scale", (3, "scale")), ("/nodes/7/weights", (7, "weights")),
    ("/nodes/03/rotation", None), ("/nodes/-1/rotation", None), ("/nodes/1.0/rotation", None),
    ("/nodes/１/rotation", None), ("/nodes/1/rotation/0", None), ("nodes/1/rotation", None),
    ("/nodes/1/matrix", None), ("/meshes/0/weights", None), ("/materials/0/emissiveFactor", None),
    ("/nodes//rotation", None), ("", None),
])
def test_which_pointers_are_node_channels(text, expected):
    assert node_target(_target(text)) == expected


@pytest.mark.parametrize("target", [
    {"node": 0, "path": "rotation"}, {"path": "pointer"}, {"path": "pointer", "extensions": []},
    {"path": "pointer", "extensions": {POINTER: {"pointer": 5}}}, {"path": "rotation", "extensions":
                                                                   {POINTER: {"pointer": "/nodes/0/rotation"}}},
    None, [], "pointer",
])
def test_other_targets_are_not_pointers(target):
    assert node_target(target) is None


def _about(axis, degrees):
    half = math.radians(degrees) / 2
    return np.array([*(np.array(axis) * math.sin(half)), math.cos(half)])


def test_a_pointer_rotation_plays_the_slerp_worked_by_hand(tmp_path):
    # "reported": /nodes/0/rotation turns 0, 80, 160, 240, 320 degrees about Z at 0, 0.5, ... 2 s.
    # At 0.25 s the slerp is half-way: 40 degrees; at 0.625 s a quarter past 80: 100 degrees. The
    # plain channel on node 1 turns 40 degrees a key about X: 10 degrees at 0.125 s.
    document = core.load(str(pointer_files.write("reported", tmp_path)))
    channels = {(c.node, c.path): c for c in document.animations[0].channels}
    assert set(channels) == {(0, "rotation"), (1, "rotation")}
    assert channels[(0, "rotation")].pointer == "/animations/0/channels/0"
    played = channels[(0, "rotation")].evaluate([0.25, 0.625])
    for value, degrees in zip(played, (40.0, 100.0)):
        assert min(np.abs(value - _about((0, 0, 1), degrees)).max(),
                   np.abs(value + _about((0, 0, 1), degrees)).max()) < 1e-6
    np.testing.assert_allclose(channels[(1, "rotation")].evaluate([0.125])[0], _about((1, 0, 0), 10.0), atol=1e-6)


def _broken(tmp_path, edit):
    document = pointer_files.build(pointer_files.FILES["reported"])
    edit(document)
    path = tmp_path / "broken.gltf"
    path.write_text(json.dumps(document))
    with pytest.raises(GltfError) as caught:
        core.load(str(path))
    return {(f.code, f.pointer) for f in caught.value.findings}


def _pointer(channel, text):
    def edit(document):
        document["animations"][0]["channels"][channel]["target"] = _target(text)
    return edit


WHERE = f"/animations/0/channels/0/target/extensions/{POINTER}/pointer"


def test_a_pointer_to_a_missing_node_is_refused_at_the_pointer(tmp_path):
    assert ("UNRESOLVED_REFERENCE", WHERE) in _broken(tmp_path, _pointer(0, "/nodes/9/rotation"))


def test_a_pointer_and_a_channel_to_one_node_property_are_duplicate_targets(tmp_path):
    findings = _broken(tmp_path, _pointer(0, "/nodes/1/rotation"))  # channel 3 turns node 1
    assert ("ANIMATION_DUPLICATE_TARGETS", "/animations/0/channels/0/target") in findings


def test_a_pointer_whose_sampler_has_the_wrong_type_is_refused(tmp_path):
    # The rotation keys (VEC4) played as a translation (VEC3), as for a plain channel.
    findings = _broken(tmp_path, _pointer(0, "/nodes/0/translation"))
    assert ("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", "/animations/0/channels/0/sampler") in findings


def test_other_pointers_are_left_to_the_importer(tmp_path):
    # Material, camera and light pointers are not node channels: the core reads none of them.
    for name in ("camera_light", "material_factors"):
        document = core.load(str(pointer_files.write(name, tmp_path)))
        assert all(c.node in (0, 1, 2) and c.path in ("rotation", "translation")
                   for c in document.animations[0].channels)
        assert len(document.animations[0].channels) == 1


def test_property_pointers_are_read_with_their_samplers(tmp_path):
    # "reported": channel 1 is baseColorFactor (CUBICSPLINE, sampler 1), channel 2 emissiveFactor
    # (LINEAR, sampler 2). Half-way between the emissive keys (0,0,0) at 0 s and (1,0.5,0) at 0.5 s:
    # (0.5, 0.25, 0). The colour's Hermite segment at u = 1/2 is (p0 + p1)/2 + h(m0 - m1)/8 with
    # h = 0.5 s (the out-tangent of key 0 and in-tangent of key 1, per second).
    path = pointer_files.write("reported", tmp_path)
    document = core.load(str(path))
    colour, emission = document.animations[0].pointer_channels
    assert (colour.target, colour.index, colour.sampler_index) == \
        ("/materials/0/pbrMetallicRoughness/baseColorFactor", 1, 1)
    assert (emission.target, emission.index, emission.sampler_index) == ("/materials/0/emissiveFactor", 2, 2)
    np.testing.assert_allclose(emission.evaluate([0.25])[0], [0.5, 0.25, 0.0], atol=1e-7)
    rows = np.array(pointer_files.FILES["reported"][1].values, dtype=np.float32).astype(float)
    p0, m0, p1, m1 = rows[1], rows[2], rows[4], rows[3]
    np.testing.assert_allclose(colour.evaluate([0.25])[0], (p0 + p1) / 2 + 0.5 * (m0 - m1) / 8, atol=1e-6)
    assert document.animations[0].duration == 2.0


def test_pointer_data_that_cannot_play_is_left_out_with_a_reason(tmp_path):
    data = pointer_files.build(pointer_files.FILES["reported"])
    data["accessors"][data["animations"][0]["samplers"][2]["output"]]["count"] -= 1  # 4 values, 5 keys
    path = tmp_path / "short.gltf"
    path.write_text(json.dumps(data))
    animation = core.load(str(path)).animations[0]
    assert [c.index for c in animation.pointer_channels] == [1]
    assert animation.pointer_skipped == ["/animations/0/channels/2 (/materials/0/emissiveFactor): "
                                         "4 outputs for 5 LINEAR keys"]


def test_a_meshs_weights_play_on_every_node_of_the_mesh(tmp_path):
    # "/meshes/1/weights" (CUBICSPLINE, keys at 0.25, 1.0, 1.75 s) animates node 1, the one node
    # whose mesh is 1, as a node "weights" channel would: one column per morph target. At a key
    # the value is the key's: (1, 0) at 1.0 s.
    data = pointer_files.build(pointer_files.FILES["mesh_weights"])
    data["nodes"].append({"name": "Twin", "mesh": 1})
    data["scenes"][0]["nodes"].append(len(data["nodes"]) - 1)
    path = tmp_path / "twins.gltf"
    path.write_text(json.dumps(data))
    animation = core.load(str(path)).animations[0]
    weights = {c.node: c for c in animation.channels if c.path == "weights"}
    assert sorted(weights) == [1, len(data["nodes"]) - 1] and animation.pointer_skipped == []
    for channel in weights.values():
        assert channel.pointer == "/animations/0/channels/0"
        np.testing.assert_allclose(channel.evaluate([1.0, 2.0]), [[1.0, 0.0], [0.5, 0.5]], atol=1e-7)


def test_a_node_keeps_its_first_weights_channel(tmp_path):
    # Blender's importer takes a node's first weights channel of an animation, node or mesh; so
    # does the core (a plain "weights" channel on node 1 after the mesh pointer loses).
    data = pointer_files.build(pointer_files.FILES["mesh_weights"])
    channels = data["animations"][0]["channels"]
    channels.append({"sampler": channels[0]["sampler"], "target": {"node": 1, "path": "weights"}})
    path = tmp_path / "both.gltf"
    path.write_text(json.dumps(data))
    weights = [c for c in core.load(str(path)).animations[0].channels if c.path == "weights"]
    assert [(c.node, c.pointer) for c in weights] == [(1, "/animations/0/channels/0")]


def test_a_meshs_weights_with_the_wrong_count_are_left_out(tmp_path):
    data = pointer_files.build(pointer_files.FILES["mesh_weights"])
    data["meshes"][1]["primitives"][0]["targets"].pop()  # 18 values, now 9 keys x 1 target expected
    data["meshes"][1]["weights"].pop()
    path = tmp_path / "short.gltf"
    path.write_text(json.dumps(data))
    animation = core.load(str(path)).animations[0]
    assert [c.path for c in animation.channels] == ["scale"]
    assert animation.pointer_skipped == ["/animations/0/channels/0 (/meshes/1/weights): "
                                         "18 outputs for 3 CUBICSPLINE keys"]
