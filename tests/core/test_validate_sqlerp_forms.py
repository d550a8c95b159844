"""core.gltf.validation of EXT_animation_sqlerp's channel forms (spec "Channel forms"), its
extension object, and the CUBICSLERP sampler the object references (rotations only, two keys or
more, three output elements per key, a rotation's output format).

Each document is built with helpers.validation_assets: JSON plus one ``data:`` URI buffer packed
with numpy, read through ``gltf_file.parse_bytes`` like a file. Expected codes and pointers come
from the spec (docs/EXT_animation_sqlerp/README.md), the draft extension text and glTF-Validator's
source (lib/src/base/animation.dart), not from the code under test.
"""

import numpy as np
import pytest

from helpers.validation_assets import CHANNEL, CUBIC_SAMPLER, EXT, EXT_SAMPLER, Asset, animation, cubic_rows, errors, of

# --- channel forms (spec "Channel forms") ------------------------------------------------------------

def test_fallback_form_is_valid():
    asset = Asset()
    assert asset.validate([animation(asset)]) == []


def test_draft_form_without_core_sampler_is_accepted():
    asset = Asset()
    assert asset.validate([animation(asset, draft=True)], required=(EXT,)) == []


def test_draft_form_needs_the_extension_declared():
    asset = Asset()
    findings = asset.validate([animation(asset, draft=True)], used=())
    assert errors(findings) == {("UNDEFINED_PROPERTY", CHANNEL),
                                ("UNDECLARED_EXTENSION", f"{CHANNEL}/extensions/{EXT}")}


def test_draft_form_not_required_is_a_warning():
    asset = Asset()
    findings = asset.validate([animation(asset, draft=True)])
    assert [(f.code, f.pointer, f.severity) for f in findings] == [
        ("SQLERP_NOT_REQUIRED", CHANNEL, "warning")]


def test_cubicslerp_as_core_sampler_is_rejected():
    asset = Asset()
    anim = animation(asset, draft=True)
    anim["channels"][0] = {"sampler": 0, "target": {"node": 0, "path": "rotation"}}
    findings = asset.validate([anim])
    # The validator reads it as LINEAR-like: 3 keys need 3 outputs, the sampler has 9.
    assert errors(findings) == {
        ("SQLERP_CORE_SAMPLER", f"{CHANNEL}/sampler"),
        ("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", f"{CHANNEL}/sampler")}
    (count,) = of(findings, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT")
    assert count.message == "Animation sampler output accessor of count 3 expected. Found 9."
    (warning,) = of(findings, "VALUE_NOT_IN_LIST")
    assert warning.pointer == f"{CUBIC_SAMPLER}/interpolation"


def test_cubicslerp_interpolation_of_an_unreferenced_sampler_is_not_in_list():
    asset = Asset()
    anim = animation(asset)
    anim["samplers"].append(dict(anim["samplers"][0]))
    findings = asset.validate([anim])
    assert [(f.code, f.pointer, f.severity) for f in findings] == [
        ("VALUE_NOT_IN_LIST", "/animations/0/samplers/2/interpolation", "warning"),
        ("UNUSED_OBJECT", "/animations/0/samplers/2", "info")]


# --- the extension object and the sampler it references --------------------------------------

def test_unresolved_extension_sampler():
    asset = Asset()
    anim = animation(asset)
    anim["channels"][0]["extensions"][EXT]["sampler"] = 7
    assert errors(asset.validate([anim])) == {("SQLERP_UNRESOLVED_SAMPLER", EXT_SAMPLER)}


def test_extension_sampler_must_be_cubicslerp():
    asset = Asset()
    anim = animation(asset)
    anim["channels"][0]["extensions"][EXT]["sampler"] = 1
    assert errors(asset.validate([anim])) == {("SQLERP_NOT_CUBICSLERP", EXT_SAMPLER)}


@pytest.mark.parametrize("value, code, where", [
    (None, "UNDEFINED_PROPERTY", f"{CHANNEL}/extensions/{EXT}"),
    ("0", "TYPE_MISMATCH", EXT_SAMPLER),
    (-1, "INVALID_INDEX", EXT_SAMPLER),
    (True, "TYPE_MISMATCH", EXT_SAMPLER),
])
def test_extension_object_shape(value, code, where):
    asset = Asset()
    anim = animation(asset)
    if value is None:
        del anim["channels"][0]["extensions"][EXT]["sampler"]
    else:
        anim["channels"][0]["extensions"][EXT]["sampler"] = value
    assert (code, where) in errors(asset.validate([anim]))


def test_unknown_property_in_extension_object_is_a_warning():
    asset = Asset()
    anim = animation(asset)
    anim["channels"][0]["extensions"][EXT]["tension"] = 0.5
    findings = asset.validate([anim])
    assert [(f.code, f.pointer, f.severity) for f in findings] == [
        ("UNEXPECTED_PROPERTY", f"{CHANNEL}/extensions/{EXT}/tension", "warning")]


def test_only_rotations():
    asset = Asset()
    findings = asset.validate([animation(asset, path="translation", draft=True)], required=(EXT,))
    assert errors(findings) == {("SQLERP_NOT_ROTATION", f"{CHANNEL}/target/path")}


def test_too_few_keys():
    asset = Asset()
    findings = asset.validate([animation(asset, keys=1, draft=True)], required=(EXT,))
    assert errors(findings) == {("SQLERP_TOO_FEW_KEYS", f"{CUBIC_SAMPLER}/input")}


def test_output_count_is_three_per_key():
    asset = Asset()
    anim = animation(asset, rows=cubic_rows(3)[:8], draft=True)
    (finding,) = asset.validate([anim], required=(EXT,))
    assert (finding.code, finding.pointer) == ("SQLERP_INVALID_COUNT", f"{CUBIC_SAMPLER}/output")
    assert "9 expected for 3 keys. Found 8." in finding.message


@pytest.mark.parametrize("kind, component, normalized", [
    ("VEC3", 5126, False), ("VEC4", 5125, False), ("VEC4", 5122, False)])
def test_output_format_is_a_rotation_format(kind, component, normalized):
    asset = Asset()
    anim = animation(asset, draft=True)
    rows = cubic_rows(3)[:, :3] if kind == "VEC3" else np.abs(cubic_rows(3)) * 100
    anim["samplers"][0]["output"] = asset.accessor(rows, kind, component, normalized)
    findings = asset.validate([anim], required=(EXT,))
    assert errors(findings) == {("SQLERP_INVALID_FORMAT", f"{CUBIC_SAMPLER}/output")}


@pytest.mark.parametrize("component, scale", [(5122, 32767), (5120, 127)])
def test_normalized_integer_quaternions_are_accepted(component, scale):
    # glTF 2.0 rotation outputs may be normalized (signed) bytes or shorts; decoded c / scale.
    asset = Asset()
    anim = animation(asset, draft=True)
    anim["samplers"][0]["output"] = asset.quaternions(np.round(cubic_rows(3) * scale), component,
                                                      normalized=True)
    assert asset.validate([anim], required=(EXT,)) == []
