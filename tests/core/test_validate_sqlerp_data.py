"""core.gltf.validation of the data in EXT_animation_sqlerp's CUBICSLERP samplers: quaternion
lengths (spec "CUBICSLERP Interpolation"), key times, one target per animation, and accessors that
cannot be read.

Each document is built with helpers.validation_assets: JSON plus one ``data:`` URI buffer packed
with numpy, read through ``gltf_file.parse_bytes`` like a file. Expected codes, pointers and messages
come from the spec (docs/EXT_animation_sqlerp/README.md), the draft extension text and
glTF-Validator's source (lib/src/base/animation.dart), not from the code under test.
"""

import json

import numpy as np
import pytest

from helpers.validation_assets import CHANNEL, CUBIC_SAMPLER, EXT, Asset, animation, cubic_rows, errors, of

# --- quaternion lengths (spec "CUBICSLERP Interpolation": a_1 and b_n are never used) ---------------------------

def test_non_unit_value_is_a_warning():
    rows = cubic_rows(3)
    rows[4] *= 1.1  # v_2
    asset = Asset()
    (finding,) = asset.validate([animation(asset, rows=rows, draft=True)], required=(EXT,))
    assert (finding.code, finding.pointer, finding.severity) == (
        "SQLERP_NON_UNIT_QUATERNION", f"{CUBIC_SAMPLER}/output", "warning")
    # v_2 is (0, 0, 0, 1.1) stored as float32: its length is float32(1.1) exactly.
    assert finding.message == (
        "CUBICSLERP quaternion value v_2 (output element 4, accessor indices 16..19) is not of "
        f"unit length: {float(np.float32(1.1))!r}.")


def test_zero_and_nan_quaternions_are_errors():
    rows = cubic_rows(3)
    rows[3] = 0.0      # a_2
    rows[2, 1] = np.nan  # b_1
    asset = Asset()
    findings = asset.validate([animation(asset, rows=rows, draft=True)], required=(EXT,))
    assert [(f.code, f.pointer, f.severity) for f in findings] == [
        ("SQLERP_NON_UNIT_QUATERNION", f"{CUBIC_SAMPLER}/output", "error")] * 2
    assert "out-tangent b_1" in findings[0].message and "in-tangent a_2" in findings[1].message


def test_unused_tangents_may_hold_anything():
    rows = cubic_rows(3)
    rows[0] = 0.0       # a_1: zeros, as the draft's implementation note suggests
    rows[-1] = np.nan   # b_3 = b_n: never read either
    asset = Asset()
    assert asset.validate([animation(asset, rows=rows, draft=True)], required=(EXT,)) == []


# --- key times of the CUBICSLERP sampler --------------------------------------------------------

@pytest.mark.parametrize("times, code, index", [
    ((0.0, 1.0, 1.0), "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", 2),
    ((0.5, -1.0, 2.0), "ACCESSOR_ANIMATION_INPUT_NEGATIVE", 1),
])
def test_times_strictly_increasing_and_non_negative(times, code, index):
    asset = Asset()
    findings = asset.validate([animation(asset, times=times, draft=True)], required=(EXT,))
    assert errors(findings) == {(code, f"{CUBIC_SAMPLER}/input")}
    assert f"element at index {index} " in of(findings, code)[0].message


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_times_are_finite(bad):
    asset = Asset()
    anim = animation(asset, draft=True)
    anim["samplers"][0]["input"] = asset.times([0.0, 1.0, bad], bounds=(0.0, 1.0))
    findings = asset.validate([anim], required=(EXT,))
    (finding,) = [f for f in findings if f.severity == "error"]
    index = len(asset.accessors) - 1
    assert (finding.code, finding.pointer) == ("ACCESSOR_INVALID_FLOAT", f"/accessors/{index}")
    assert finding.message == f"Accessor element at index 2 is {'Infinity' if bad > 0 else 'NaN'}."


def test_times_need_min_and_max():
    asset = Asset()
    anim = animation(asset, draft=True)
    anim["samplers"][0]["input"] = asset.times([0.0, 1.0, 2.0], bounds=None)
    assert errors(asset.validate([anim], required=(EXT,))) == {
        ("ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS", f"{CUBIC_SAMPLER}/input")}


def test_times_without_buffer_view_are_zeros_and_checked():
    # glTF-Validator skips accessors without bufferView; an all-zero key time list is still not
    # strictly increasing, and inside a CUBICSLERP sampler we say so.
    asset = Asset()
    anim = animation(asset, draft=True)
    asset.accessors.append({"componentType": 5126, "count": 3, "type": "SCALAR",
                            "min": [0.0], "max": [0.0]})
    anim["samplers"][0]["input"] = len(asset.accessors) - 1
    findings = asset.validate([anim], required=(EXT,))
    hits = of(findings, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING")
    assert [(f.pointer, f.severity) for f in hits] == [(f"{CUBIC_SAMPLER}/input", "error")] * 2
    assert "index 1 is less than or equal to previous: 0.0 <= 0.0." in hits[0].message


# --- one target per animation -----------------------------------------------------------------

def test_duplicate_target_of_draft_channels():
    asset = Asset()
    anim = animation(asset, draft=True)
    anim["channels"].append(json.loads(json.dumps(anim["channels"][0])))
    assert errors(asset.validate([anim], required=(EXT,))) == {
        ("SQLERP_DUPLICATE_TARGET", f"{CHANNEL}/target")}


def test_duplicate_target_of_fallback_channels_is_the_validators():
    asset = Asset()
    anim = animation(asset)
    anim["channels"].append(json.loads(json.dumps(anim["channels"][0])))
    assert errors(asset.validate([anim])) == {("ANIMATION_DUPLICATE_TARGETS", f"{CHANNEL}/target")}


# --- data that cannot be read becomes findings -------------------------------------------------

def test_accessor_read_errors_become_findings():
    asset = Asset()
    anim = animation(asset, draft=True)
    asset.accessors[anim["samplers"][0]["output"]]["byteOffset"] = 64  # past its buffer view
    findings = asset.validate([anim], required=(EXT,))
    assert ("ACCESSOR_TOO_LONG", f"/accessors/{anim['samplers'][0]['output']}") in errors(findings)
