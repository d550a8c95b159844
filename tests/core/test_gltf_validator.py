"""The real Khronos glTF-Validator (the pinned npm package) on our samples and on its own test cases.

This checks the tool that later tests use to hold every file the exporter writes to 0 errors, and
what spec "Channel forms" says the validator reports for each channel form
of EXT_animation_sqlerp. The validator does not know the extension: it sees the CUBICSLERP samplers
as core samplers with an unknown interpolation. Beyond the animation, the samples also get warnings
and hints about their mesh and skin (ACCESSOR_JOINTS_USED_ZERO_WEIGHT, NODE_SKINNED_MESH_NON_ROOT,
BUFFER_VIEW_TARGET_MISSING): no errors, and not what the spec's channel forms are about, so they are not
asserted here.

No test here needs Blender. A missing Node.js or validator fails them (see gltf_validator.py).
"""

import json
import shutil
import struct

import pytest
from helpers import ASSETS, ROOT
from helpers.gltf_validator import ERROR, INFO, WARNING, errors, pinned_version, validate, validate_all
from helpers.raw_gltf import raw_accessor

SAMPLES = ROOT / "samples"
FALLBACK_FORM = [SAMPLES / "sqlerp_arm.gltf", SAMPLES / "sqlerp_arm.glb"]
REQUIRED_DRAFT_FORM = SAMPLES / "sqlerp_arm_required.gltf"
EXTENSION = "EXT_animation_sqlerp"
CASES = sorted((ASSETS / "validator").rglob("*.gltf"))


def _json(path):
    """The glTF JSON of a .gltf or .glb file."""
    data = path.read_bytes()
    if path.suffix != ".glb":
        return json.loads(data)
    length, kind = struct.unpack_from("<I4s", data, 12)  # the first chunk is the JSON one
    assert kind == b"JSON"
    return json.loads(data[20:20 + length])


def _cubicslerp_samplers(document):
    """JSON pointers of the samplers with interpolation CUBICSLERP."""
    return [f"/animations/{a}/samplers/{s}"
            for a, animation in enumerate(document["animations"])
            for s, sampler in enumerate(animation["samplers"]) if sampler["interpolation"] == "CUBICSLERP"]


def _about_the_extension(report):
    """(severity, code, pointer) of every message on animations or the extension lists, sorted."""
    return sorted((m["severity"], m["code"], m["pointer"]) for m in report["issues"]["messages"]
                  if m["pointer"].startswith(("/animations/", "/extensionsUsed/", "/extensionsRequired/")))


def _doc_prediction(document):
    """Section 3, fallback form: a warning VALUE_NOT_IN_LIST for the string "CUBICSLERP" and infos
    UNSUPPORTED_EXTENSION and UNUSED_OBJECT (the CUBICSLERP samplers, referenced only from the
    extension), and nothing else about the animation."""
    samplers = _cubicslerp_samplers(document)
    assert samplers, "the file has CUBICSLERP samplers, else this checks nothing"
    return sorted([(WARNING, "VALUE_NOT_IN_LIST", f"{s}/interpolation") for s in samplers]
                  + [(INFO, "UNUSED_OBJECT", s) for s in samplers]
                  + [(INFO, "UNSUPPORTED_EXTENSION", f"/extensionsUsed/{document['extensionsUsed'].index(EXTENSION)}")])


def _copy_sample(tmp_path, document):
    """Write ``document`` as a .gltf beside a copy of the sample's .bin; return its path."""
    shutil.copy(SAMPLES / "sqlerp_arm.bin", tmp_path / "sqlerp_arm.bin")
    path = tmp_path / "variant.gltf"
    path.write_text(json.dumps(document))
    return path


def test_the_installed_validator_is_the_pinned_one():
    lock = json.loads((ROOT / "tests" / "validator" / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/gltf-validator"]["version"] == pinned_version()
    assert validate(FALLBACK_FORM[0])["validatorVersion"] == pinned_version()


@pytest.mark.parametrize("path", FALLBACK_FORM, ids=lambda path: path.name)
def test_fallback_form_has_no_errors_and_what_the_doc_predicts(path):
    report = validate(path)
    assert errors(report) == []
    assert report["issues"]["numErrors"] == 0
    assert report["issues"]["truncated"] is False
    assert _about_the_extension(report) == _doc_prediction(_json(path))


def test_external_buffers_are_read(tmp_path):
    # The .gltf's buffer is read from the .bin beside it; without the .bin the file fails, so a
    # report with 0 errors has seen the data (accessor bounds, quaternion lengths, key times).
    report = validate(FALLBACK_FORM[0])
    resources = report["info"]["resources"]
    assert [(r["pointer"], r["storage"], r["byteLength"]) for r in resources] == [
        ("/buffers/0", "external", (SAMPLES / "sqlerp_arm.bin").stat().st_size)]
    lonely = tmp_path / "sqlerp_arm.gltf"
    shutil.copy(FALLBACK_FORM[0], lonely)
    assert errors(validate(lonely)) == [("IO_ERROR", "/buffers/0/uri")]


def test_required_draft_form_fails_with_undefined_property():
    # Section 3: "the draft's form fails glTF-Validator with UNDEFINED_PROPERTY": one error per
    # channel without a core sampler, and no other error.
    document = _json(REQUIRED_DRAFT_FORM)
    without_sampler = [f"/animations/{a}/channels/{c}"
                       for a, animation in enumerate(document["animations"])
                       for c, channel in enumerate(animation["channels"]) if "sampler" not in channel]
    assert without_sampler
    report = validate(REQUIRED_DRAFT_FORM)
    assert errors(report) == [("UNDEFINED_PROPERTY", pointer) for pointer in without_sampler]
    assert {m["message"] for m in report["issues"]["messages"] if m["severity"] == ERROR} == {
        "Property 'sampler' must be defined."}


def test_cubicslerp_as_core_sampler_fails_with_invalid_count(tmp_path):
    # Section 3: a channel whose core `sampler` is a CUBICSLERP sampler fails the validator with
    # ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT (3 quaternions per key, LINEAR expects 1).
    document = _json(FALLBACK_FORM[0])
    channel = document["animations"][0]["channels"][0]
    channel["sampler"] = channel["extensions"][EXTENSION]["sampler"]
    report = validate(_copy_sample(tmp_path, document))
    assert errors(report) == [("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", "/animations/0/channels/0/sampler")]


def test_schema_valid_required_form_has_no_errors(tmp_path):
    # Section 3, "required, schema-valid" (the exporter's "no fallback"): each extension channel's
    # core sampler is a one-key STEP sampler holding v_1, and the extension is required.
    source = FALLBACK_FORM[0]
    document = _json(source)
    animation, blob = document["animations"][0], b""
    for channel in animation["channels"]:
        if EXTENSION not in channel.get("extensions", {}):
            continue
        cubic = animation["samplers"][channel["extensions"][EXTENSION]["sampler"]]
        time = float(raw_accessor(source, cubic["input"])[0, 0])
        value = raw_accessor(source, cubic["output"])[1]  # rows a_1, v_1, b_1, ...
        views, accessors = len(document["bufferViews"]), len(document["accessors"])
        document["bufferViews"] += [
            {"buffer": 1, "byteOffset": len(blob), "byteLength": 4},
            {"buffer": 1, "byteOffset": len(blob) + 4, "byteLength": 16}]
        blob += struct.pack("<5f", time, *value)
        document["accessors"] += [
            {"bufferView": views, "componentType": 5126, "count": 1, "type": "SCALAR", "min": [time], "max": [time]},
            {"bufferView": views + 1, "componentType": 5126, "count": 1, "type": "VEC4"}]
        animation["samplers"][channel["sampler"]] = {
            "input": accessors, "interpolation": "STEP", "output": accessors + 1}
    document["buffers"].append({"byteLength": len(blob), "uri": "step.bin"})
    document["extensionsRequired"] = [EXTENSION]
    path = _copy_sample(tmp_path, document)
    (tmp_path / "step.bin").write_bytes(blob)

    report = validate(path)
    assert errors(report) == []
    # The same animation messages as the fallback form (the replaced LINEAR data is left unused).
    assert _about_the_extension(report) == _doc_prediction(document)


# Khronos glTF-Validator's own animation test cases (shared/assets/validator, copied byte for byte
# from KhronosGroup/glTF-Validator test/base/data, see provenance.jsonl): each x.gltf.report.json is
# what the validator (2.0.0-dev.3.0 to 3.9) printed for x.gltf.

@pytest.fixture(scope="module")
def case_reports():
    return dict(zip(CASES, validate_all(CASES)))  # one run of Node.js for all of them


def _expected(case):
    return json.loads(case.with_name(case.name + ".report.json").read_text())


def test_every_case_is_collected():
    assert len(CASES) == 20
    assert any(_expected(case)["issues"]["numErrors"] for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.parent.name}/{case.name}")
def test_validator_case_errors_equal_the_expected_report(case, case_reports):
    report, expected = case_reports[case], _expected(case)
    assert errors(report) == errors(expected)
    # Warnings and infos too, and the counts.
    assert sorted((m["severity"], m["code"], m["pointer"]) for m in report["issues"]["messages"]) == sorted(
        (m["severity"], m["code"], m["pointer"]) for m in expected["issues"]["messages"])
    assert {k: v for k, v in report["issues"].items() if k.startswith("num")} == {
        k: v for k, v in expected["issues"].items() if k.startswith("num")}
