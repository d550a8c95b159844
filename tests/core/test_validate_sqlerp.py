"""core.gltf.validation on small glTF documents built here: the EXT_animation_sqlerp checks
(spec "Channel forms") and validator checks that the validator's own test cases do not cover.

Each document is JSON plus one ``data:`` URI buffer packed with numpy, read through
``gltf_file.parse_bytes`` like a file. Expected codes and pointers come from the spec
(docs/EXT_animation_sqlerp/README.md), the draft extension text and glTF-Validator's source
(lib/src/base/animation.dart), not from the code under test.
"""

import base64
import json

import numpy as np
import pytest

from gltf_sqlerp.core.gltf.file import parse_bytes
from gltf_sqlerp.core.gltf.validation import validate

EXT = "EXT_animation_sqlerp"
S = 0.6, 0.8  # sin and cos of a half angle: (0.6, 0.8) gives unit quaternions
UNIT = np.array([[0, 0, 0, 1], [0, S[0], 0, S[1]], [S[0], 0, 0, S[1]], [0, 0, S[0], S[1]]])
CUBIC_SAMPLER = "/animations/0/samplers/0"
CHANNEL = "/animations/0/channels/0"
EXT_SAMPLER = f"{CHANNEL}/extensions/{EXT}/sampler"
DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}


class Asset:
    """Accessors packed into one buffer; ``validate`` wraps them into a whole document."""

    def __init__(self):
        self.blob, self.views, self.accessors = bytearray(), [], []

    def accessor(self, values, kind, component=5126, normalized=False, bounds=None):
        values = np.asarray(values, dtype=np.float64)
        data = values.astype(DTYPES[component]).tobytes()
        self.blob += bytes(-len(self.blob) % 4)
        self.views.append({"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(data)})
        self.blob += data
        accessor = {"bufferView": len(self.views) - 1, "componentType": component,
                    "count": len(values), "type": kind}
        if normalized:
            accessor["normalized"] = True
        if bounds is not None:
            accessor["min"], accessor["max"] = [bounds[0]], [bounds[1]]
        self.accessors.append(accessor)
        return len(self.accessors) - 1

    def times(self, values, bounds: str | tuple[float, float] | None = "data"):  # "data": its min and max
        values = np.asarray(values, dtype=np.float64)
        if isinstance(bounds, str):
            bounds = (float(values.min()), float(values.max()))
        return self.accessor(values.reshape(-1, 1), "SCALAR", bounds=bounds)

    def quaternions(self, values, component=5126, normalized=False):
        return self.accessor(values, "VEC4", component, normalized)

    def validate(self, animations, used=(EXT,), required=(), nodes=None, **extra):
        """Findings for a document with these animations, one node (or ``nodes``) and ``extra``
        top-level arrays such as meshes or skins."""
        document = {"asset": {"version": "2.0"}, "nodes": nodes or [{"name": "bone"}],
                    "animations": animations, "accessors": self.accessors, **extra}
        if self.blob:
            uri = "data:application/octet-stream;base64," + base64.b64encode(self.blob).decode()
            document["bufferViews"] = self.views
            document["buffers"] = [{"byteLength": len(self.blob), "uri": uri}]
        if used:
            document["extensionsUsed"] = list(used)
        if required:
            document["extensionsRequired"] = list(required)
        return validate(parse_bytes(json.dumps(document).encode()))


def cubic_rows(keys):
    """3 * keys unit quaternions: a_i, v_i, b_i for every key."""
    return UNIT[np.arange(3 * keys) % 4].copy()


def animation(asset, keys=3, rows=None, path="rotation", draft=False, times=None):
    """Sampler 0: CUBICSLERP; sampler 1: LINEAR fallback (fallback form), or the draft form."""
    t = asset.times(np.arange(keys, dtype=float) if times is None else times)
    cubic = asset.quaternions(cubic_rows(keys) if rows is None else rows)
    channel = {"target": {"node": 0, "path": path}, "extensions": {EXT: {"sampler": 0}}}
    samplers = [{"input": t, "interpolation": "CUBICSLERP", "output": cubic}]
    if not draft:
        fallback = asset.quaternions(UNIT[np.arange(keys) % 4])
        samplers.append({"input": t, "interpolation": "LINEAR", "output": fallback})
        channel["sampler"] = 1
    return {"channels": [channel], "samplers": samplers}


def errors(findings):
    return {(f.code, f.pointer) for f in findings if f.severity == "error"}


def of(findings, code):
    return [f for f in findings if f.code == code]


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
