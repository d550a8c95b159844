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
from conftest import tool

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
