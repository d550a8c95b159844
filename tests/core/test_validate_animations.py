"""core.gltf.validation of core glTF animations where glTF-Validator's own test cases
(test_validator_cases.py) do not reach: rotation lengths and output formats, morph weight counts,
animated skinned nodes, input bounds, JSON types of indices, accessors without data.

Each document is built with helpers.validation_assets: JSON plus one ``data:`` URI buffer packed
with numpy, read through ``gltf_file.parse_bytes`` like a file. Expected codes, pointers and messages
come from the glTF 2.0 spec (§3.11 animation output formats) and glTF-Validator's source
(lib/src/base/animation.dart), not from the code under test.
"""

import numpy as np
import pytest

from helpers.validation_assets import CHANNEL, Asset, errors, of

# --- validator checks its own test cases do not cover ------------------------------------------

def linear_rotation(asset, rows, times=(0.0, 1.0)):
    t = asset.times(times)
    return {"samplers": [{"input": t, "output": asset.quaternions(rows)}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}


def test_zero_rotation_is_an_error_and_non_unit_a_warning():
    asset = Asset()
    findings = asset.validate([linear_rotation(asset, [[0, 0, 0, 0], [0, 0, 0, 2]])], used=())
    code = "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION"
    assert [(f.code, f.pointer, f.severity) for f in findings] == [
        (code, f"{CHANNEL}/sampler", "error"), (code, f"{CHANNEL}/sampler", "warning")]
    assert "indices 0..3 is not of unit length: 0.0." in findings[0].message
    assert "indices 4..7 is not of unit length: 2.0." in findings[1].message


@pytest.mark.parametrize("component, normalized, ok", [
    (5126, False, True), (5121, True, True), (5120, True, True), (5123, True, True),
    (5122, True, True), (5121, False, False), (5125, False, False)])
def test_rotation_output_formats(component, normalized, ok):
    # glTF 2.0 §3.11 table: rotation is VEC4 float or normalized (u)byte / (u)short.
    asset = Asset()
    anim = linear_rotation(asset, [[0, 0, 0, 1], [0, 0, 0, 1]])
    scale = {5126: 1, 5121: 255, 5120: 127, 5123: 65535, 5122: 32767, 5125: 1}[component]
    anim["samplers"][0]["output"] = asset.quaternions(
        [[0, 0, 0, scale], [0, 0, 0, scale]], component, normalized)
    expected = set() if ok else {("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT",
                                  f"{CHANNEL}/sampler")}
    assert errors(asset.validate([anim], used=())) == expected


def test_weights_count_is_keys_times_morph_targets():
    asset = Asset()
    t = asset.times([0.0, 1.0])
    anim = {"samplers": [{"input": t, "output": asset.accessor(np.zeros((5, 1)), "SCALAR")}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]}
    mesh = {"primitives": [{"attributes": {}, "targets": [{}, {}, {}]}]}
    findings = asset.validate([anim], used=(), nodes=[{"mesh": 0}], meshes=[mesh])
    # The stand-in mesh (no attributes, empty targets) is EMPTY_ENTITY for the validator too.
    (finding,) = [f for f in findings if f.severity == "error" and f.pointer.startswith("/animations")]
    assert (finding.code, finding.pointer) == ("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
                                               f"{CHANNEL}/sampler")
    assert finding.message == "Animation sampler output accessor of count 6 expected. Found 5."


def test_skinned_node_trs_is_a_warning():
    asset = Asset()
    anim = linear_rotation(asset, [[0, 0, 0, 1], [0, 0, 0, 1]])
    findings = asset.validate([anim], used=(), nodes=[{"skin": 0}], skins=[{"joints": [0]}])
    # The stand-in node has a skin and no mesh: UNSATISFIED_DEPENDENCY, for the validator too.
    assert [(f.code, f.pointer, f.severity) for f in findings if f.pointer.startswith("/animations")] == [
        ("ANIMATION_CHANNEL_TARGET_NODE_SKIN", f"{CHANNEL}/target/path", "warning")]


def test_input_min_max_must_match_the_data():
    asset = Asset()
    anim = linear_rotation(asset, [[0, 0, 0, 1], [0, 0, 0, 1]])
    asset.accessors[0]["min"], asset.accessors[0]["max"] = [0.5], [1.0]
    findings = asset.validate([anim], used=())
    assert errors(findings) == {("ACCESSOR_MIN_MISMATCH", "/accessors/0/min/0"),
                                ("ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND", "/accessors/0/min/0")}
    (mismatch,) = of(findings, "ACCESSOR_MIN_MISMATCH")
    assert mismatch.message == ("Declared minimum value for this component (0.5) does not match "
                                "actual minimum (0.0).")


@pytest.mark.parametrize("value, code, where", [
    (True, "TYPE_MISMATCH", f"{CHANNEL}/sampler"),
    (0.5, "TYPE_MISMATCH", f"{CHANNEL}/sampler"),
    (-2, "INVALID_INDEX", f"{CHANNEL}/sampler"),
])
def test_json_types_of_indices(value, code, where):
    asset = Asset()
    anim = linear_rotation(asset, [[0, 0, 0, 1], [0, 0, 0, 1]])
    anim["channels"][0]["sampler"] = value
    assert errors(asset.validate([anim], used=())) == {(code, where)}


def test_integral_float_index_is_accepted_like_the_validator():
    asset = Asset()
    anim = linear_rotation(asset, [[0, 0, 0, 1], [0, 0, 0, 1]])
    anim["channels"][0]["sampler"] = 0.0
    assert errors(asset.validate([anim], used=())) == set()


def test_zero_filled_rotation_and_times_are_warned_about():
    asset = Asset()
    asset.accessors += [{"componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0],
                         "max": [0.0]},
                        {"componentType": 5126, "count": 2, "type": "VEC4"}]
    anim = {"samplers": [{"input": 0, "output": 1}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}
    findings = asset.validate([anim], used=())
    assert [(f.code, f.pointer, f.severity) for f in findings] == [
        ("ANIMATION_SAMPLER_ACCESSOR_WITHOUT_DATA", "/animations/0/samplers/0/output", "warning"),
        ("ANIMATION_SAMPLER_ACCESSOR_WITHOUT_DATA", "/animations/0/samplers/0/input", "warning")]
