"""core.gltf.validation against Khronos glTF-Validator's own animation test cases and expected reports.

The cases and reports are the validator's (shared/assets/validator/**, Apache-2.0): each
``x.gltf.report.json`` is what glTF-Validator printed for ``x.gltf``. For every case our errors must
be exactly the validator's errors (code and JSON pointer), and the warnings it lists that we
implement must match too. Messages are compared with the validator's text.
"""

import json

import pytest
from helpers import ASSETS

from gltf_sqlerp.core.gltf.file import read_file
from gltf_sqlerp.core.gltf.validation import validate

CASES = sorted((ASSETS / "validator").rglob("*.gltf"))
SEVERITY = {0: "error", 1: "warning", 2: "info"}

# The one deliberate severity change: the validator's error for a non-unit rotation is our warning
# (the animation layer normalizes it). For the comparison it counts as the error it is upstream.
DOWNGRADED = {"ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION"}
# Warning codes of the validator that core.gltf.validation implements.
WARNING_CODES = {"UNEXPECTED_PROPERTY", "VALUE_NOT_IN_LIST", "ANIMATION_CHANNEL_TARGET_NODE_SKIN"}
# Messages we word differently, and why.
REWORDED = {
    # The validator says "output accessor" for a check (and pointer) on the input accessor.
    "ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS",
}


def _expected(case):
    report = json.loads(case.with_name(case.name + ".report.json").read_text())
    return [dict(m, severity=SEVERITY[m["severity"]]) for m in report["issues"]["messages"]]


def _ours(case):
    return validate(read_file(case))


def _case_id(case):
    return f"{case.parent.name}/{case.name}"


def test_every_case_is_collected():
    # A moved assets folder must not turn this file into an empty (passing) parametrization.
    assert len(CASES) == 20
    assert {c.parent.name for c in CASES} == {"animation", "animation_data"}


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_errors_match_the_validator(case):
    expected = {(m["code"], m["pointer"]) for m in _expected(case) if m["severity"] == "error"}
    ours = {(f.code, f.pointer) for f in _ours(case)
            if f.severity == "error" or f.code in DOWNGRADED}
    assert ours == expected


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_reports_hold_only_animation_errors(case):
    # Nothing is filtered out of the reports above: every error they list is about an animation.
    for message in _expected(case):
        if message["severity"] == "error":
            assert message["pointer"].startswith("/animations"), message


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_implemented_warnings_match_the_validator(case):
    expected = {(m["code"], m["pointer"]) for m in _expected(case)
                if m["severity"] == "warning" and m["code"] in WARNING_CODES}
    ours = {(f.code, f.pointer) for f in _ours(case)
            if f.severity == "warning" and f.code in WARNING_CODES}
    assert ours == expected


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_messages_read_like_the_validator(case):
    ours = {(f.code, f.pointer, f.message) for f in _ours(case)}
    expected = {(m["code"], m["pointer"], m["message"]) for m in _expected(case)
                if m["severity"] != "info" and m["code"] not in REWORDED}
    assert expected <= ours


def test_reworded_too_few_elements_names_the_input():
    case = ASSETS / "validator/animation/sampler_too_few_cubic_frames.gltf"
    (finding,) = [f for f in _ours(case) if f.code in REWORDED]
    assert finding.message == ("Animation sampler input accessor with 'CUBICSPLINE' interpolation "
                               "must have at least 2 elements. Got 1.")


def test_non_unit_quaternion_is_a_warning_for_us():
    for name in ("quaternion_non_unit_values.gltf", "quaternion_cubic_non_unit_values.gltf"):
        findings = [f for f in _ours(ASSETS / "validator/animation_data" / name)
                    if f.code in DOWNGRADED]
        assert [f.severity for f in findings] == ["warning"]


def test_valid_case_has_no_errors():
    findings = _ours(ASSETS / "validator/animation/valid.gltf")
    assert [f for f in findings if f.severity == "error"] == []


def test_khronos_sample_models_have_no_findings():
    # Every sample model is valid for glTF-Validator (its animations included), and each reads its
    # keys from buffers, so none of our own data warnings applies either.
    models = sorted(p for p in (ASSETS / "khronos").rglob("*") if p.suffix in (".gltf", ".glb"))
    assert len(models) >= 20
    for model in models:
        assert validate(read_file(model)) == [], model
