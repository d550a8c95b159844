"""The JSON schema of the EXT_animation_sqlerp channel extension object
(docs/EXT_animation_sqlerp/schema) and tests/helpers/sqlerp_schema.py, which applies it to glTF files.

The references come from outside the schema and this project's code:
- the JSON Schema draft 2020-12 meta-schema (through jsonschema);
- the draft's own examples, parsed from ../shared/seeds/EXT_animation_sqlerp.md;
- jsonschema's messages and RFC 6901 pointers, written out by hand;
- the core's validation (``core.load``) of the same hostile objects, which must refuse each file
  the schema refuses, at the same JSON pointer;
- the project's samples and the shared assets.

Every file the suite validates through tests/helpers/gltf_validator.py is held to the schema as well (see
that module), so exported files are covered where they are written. Neither Blender nor Node.js is
needed here, except in the one test of that hook, which runs glTF-Validator.
"""

import copy
import json
import re
import shutil

import pytest
from helpers import sqlerp_schema
from helpers import ASSETS, ROOT, SHARED, tool
from jsonschema import Draft202012Validator
from helpers.sqlerp_schema import EXTENSION, SCHEMA, problems, problems_of_file

from helpers import gltf_validator
from gltf_sqlerp import core

corpus = tool("tools/hostile_corpus.py")
DRAFT = SHARED / "seeds" / "EXT_animation_sqlerp.md"
SPEC = ROOT / "docs" / EXTENSION / "README.md"
SAMPLES = sorted(p for folder in ("samples", "tests") for p in (ROOT / folder).rglob("*")
                 if p.suffix in (".gltf", ".glb"))
ASSET_FILES = sorted(p for p in ASSETS.rglob("*") if p.suffix in (".gltf", ".glb"))
# The first channel of the corpus's base file plays CUBICSLERP sampler 1 through the extension.
CHANNEL0 = f"/animations/0/channels/0/extensions/{EXTENSION}"
JSON_BLOCK = re.compile(r"```json\n(.*?)```", re.DOTALL)

# (name, extension object, [(pointer under the object, jsonschema's message)]), checked on
# channel 0 of the corpus's base file. jsonschema quotes values as Python repr.
HOSTILE = [
    ("missing sampler", {}, [("", "'sampler' is a required property")]),
    ("sampler -1", {"sampler": -1}, [("/sampler", "-1 is less than the minimum of 0")]),
    ("sampler '1'", {"sampler": "1"}, [("/sampler", "'1' is not of type 'integer'")]),
    ("sampler 1.5", {"sampler": 1.5}, [("/sampler", "1.5 is not of type 'integer'")]),
    ("sampler null", {"sampler": None}, [("/sampler", "None is not of type 'integer'")]),
    ("sampler true", {"sampler": True}, [("/sampler", "True is not of type 'integer'")]),
    ("sampler [1]", {"sampler": [1]}, [("/sampler", "[1] is not of type 'integer'")]),
    ("object an array", [1], [("", "[1] is not of type 'object'")]),
    ("object a string", "1", [("", "'1' is not of type 'object'")]),
    ("extensions a list", {"sampler": 1, "extensions": []}, [("/extensions", "[] is not of type 'object'")]),
    ("nested extension a number", {"sampler": 1, "extensions": {"VENDOR_x": 5}},
     [("/extensions/VENDOR_x", "5 is not of type 'object'")]),
]
# Valid for the schema and for the core's links (sampler 1 is the base file's CUBICSLERP sampler).
# JSON Schema 2020-12 defines an integer as a number whose fractional part is zero, so 1.0 is one
# (jsonschema agrees); the core reads it as 1 too (core/sampling/animation.py: int(...)), as
# glTF-Validator does. Members the schema does not name are allowed (the validator only warns).
VALID = [
    ("sampler 1", {"sampler": 1}),
    ("sampler 1.0", {"sampler": 1.0}),
    ("extras an object", {"sampler": 1, "extras": {"note": "x"}}),
    ("extras a number", {"sampler": 1, "extras": 5}),
    ("extensions empty", {"sampler": 1, "extensions": {}}),
    ("unknown member", {"sampler": 1, "note": "x"}),
]


def _document(extension_object, channel=0):
    """The corpus's base document with ``extension_object`` as channel ``channel``'s extension."""
    document, blob = corpus.base_document()
    channels = document["animations"][0]["channels"]
    channels[channel].setdefault("extensions", {})[EXTENSION] = extension_object
    return document, blob


def _write(folder, document, blob):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / corpus.BIN_NAME).write_bytes(blob)
    path = folder / "case.gltf"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _draft_examples():
    """The JSON examples of the draft, which have trailing commas (not JSON): stripped."""
    return [json.loads(re.sub(r",(\s*[\]}])", r"\1", block)) for block in JSON_BLOCK.findall(DRAFT.read_text())]


def _extension_count(document):
    return len(list(sqlerp_schema.extension_objects(document)))


# ----- (a) the schema itself ----------------------------------------------------------------------

def test_the_schema_is_a_valid_self_contained_draft_2020_12_schema():
    Draft202012Validator.check_schema(SCHEMA)  # against the draft 2020-12 meta-schema
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"] == sqlerp_schema.SCHEMA_PATH.name == f"animation.channel.{EXTENSION}.schema.json"
    assert SCHEMA["type"] == "object" and SCHEMA["required"] == ["sampler"]
    assert {key: SCHEMA["properties"]["sampler"][key] for key in ("type", "minimum")} == {
        "type": "integer", "minimum": 0}
    assert set(SCHEMA["properties"]) == {"sampler", "extensions", "extras"}
    # Self-contained: no reference to the core schemas, which the project does not ship.
    assert "$ref" not in sqlerp_schema.SCHEMA_PATH.read_text(encoding="utf-8")


# ----- (b) the draft's examples -------------------------------------------------------------------

def test_the_drafts_examples_are_valid():
    examples = _draft_examples()
    assert len(examples) == 2  # with a fallback, and the draft's required form
    for example in examples:
        assert _extension_count(example) == 1
        assert problems(example) == []
    # The draft's required form lacks channel.sampler: a core-schema problem, not this schema's.
    assert "sampler" not in examples[1]["animations"][0]["channels"][0]


def test_the_specs_examples_are_json_and_valid():
    """docs/EXT_animation_sqlerp/README.md: both examples parse as strict JSON and pass, and the
    required one is the schema-valid form (a core sampler, and extensionsRequired)."""
    text = SPEC.read_text(encoding="utf-8")
    fallback, required = (json.loads(block) for block in JSON_BLOCK.findall(text))
    for example in (fallback, required):
        assert _extension_count(example) == 1 and problems(example) == []
    channel = required["animations"][0]["channels"][0]
    assert required["extensionsRequired"] == [EXTENSION]
    assert required["animations"][0]["samplers"][channel["sampler"]]["interpolation"] == "STEP"
    assert f"(schema/{sqlerp_schema.SCHEMA_PATH.name})" in text


# ----- (c) hostile and valid extension objects ----------------------------------------------------

@pytest.mark.parametrize("name, value, expected", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_extension_object_is_rejected_at_its_pointer(name, value, expected):
    assert problems(_document(value)[0]) == [f"{CHANNEL0}{pointer}: {message}" for pointer, message in expected]


def test_pointers_follow_rfc_6901_and_the_channel_index():
    document = {"animations": [{"channels": [{}, {}, {}, {"extensions": {EXTENSION: {
        "sampler": "1", "extensions": {"a/b~c": 5}}}}]}]}
    where = f"/animations/0/channels/3/extensions/{EXTENSION}"
    assert problems(document) == [f"{where}/extensions/a~1b~0c: 5 is not of type 'object'",
                                  f"{where}/sampler: '1' is not of type 'integer'"]


@pytest.mark.parametrize("name, value", VALID, ids=[v[0] for v in VALID])
def test_a_valid_extension_object_passes(name, value):
    assert problems(_document(value)[0]) == []


@pytest.mark.parametrize("document", [
    [], {"animations": {}}, {"animations": [5]}, {"animations": [{"channels": "all"}]},
    {"animations": [{"channels": [[1]]}]}, {"animations": [{"channels": [{"extensions": [EXTENSION]}]}]},
    {"animations": [{"channels": [{"extensions": "x"}]}]}, {"animations": None},
], ids=lambda document: json.dumps(document))
def test_containers_of_the_wrong_type_are_left_to_the_core(document):
    # The core reports these (TYPE_MISMATCH, ARRAY_TYPE_MISMATCH); the schema has no object to check.
    assert problems(document) == []


# ----- (d) the same objects through the core, and the hostile corpus --------------------------------

def _core_errors(path):
    """(code, pointer) of the core's errors for the file, [] when it loads."""
    try:
        core.load(path)
    except core.GltfError as error:
        return [(f.code, f.pointer) for f in error.findings if f.severity == "error"]
    return []


@pytest.mark.parametrize("name, value, expected", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_the_core_refuses_what_the_schema_refuses_at_the_same_pointer(tmp_path, name, value, expected):
    path = _write(tmp_path, *_document(value))
    found = _core_errors(path)
    assert {CHANNEL0 + pointer for pointer, _ in expected} <= {pointer for _, pointer in found}, found


@pytest.mark.parametrize("name, value", VALID, ids=[v[0] for v in VALID])
def test_the_core_loads_what_the_schema_accepts(tmp_path, name, value):
    path = _write(tmp_path, *_document(value))
    assert problems_of_file(path) == []
    assert _core_errors(path) == []


@pytest.mark.parametrize("kind", ["gltf", "glb"])
def test_the_corpus_base_file_passes(tmp_path, kind):
    path = corpus.write_base(tmp_path, kind)
    assert _extension_count(sqlerp_schema.read_json(path)) == 1
    assert problems_of_file(path) == []


def test_every_corpus_file_the_schema_refuses_the_core_refuses_there(tmp_path):
    refused, unreadable = {}, []
    for case in corpus.CASES + corpus.IMPORTER_CASES:
        try:
            path = corpus.write_case(case, tmp_path / case.name)
        except (OSError, NotImplementedError):  # symlink cases on Windows: no JSON of interest
            continue
        try:
            found = sqlerp_schema.findings(sqlerp_schema.read_json(path))
        except (OSError, sqlerp_schema.Unreadable):
            unreadable.append(case.name)  # broken containers and JSON: the core's INVALID_JSON & co.
            continue
        if found:
            refused[case.name] = (path, found)
    assert "type_sqlerp_sampler_string" in refused  # the check is not vacuous
    assert "glb_cut_in_half" in unreadable and "json_syntax_error" in unreadable
    for name, (path, found) in refused.items():
        core_pointers = {pointer for _, pointer in _core_errors(path)}
        for pointer, message in found:
            assert pointer in core_pointers, f"{name}: schema says {pointer}: {message}; core: {core_pointers}"


# ----- (e) files on disk: samples, shared assets, .glb reading, the validator hook ------------------

def test_the_samples_are_found_and_pass():
    assert {p.name for p in SAMPLES} >= {"sqlerp_arm.gltf", "sqlerp_arm.glb", "sqlerp_arm_required.gltf"}
    for path in SAMPLES:
        assert _extension_count(sqlerp_schema.read_json(path)) > 0, path
        assert problems_of_file(path) == [], path


def test_the_shared_assets_pass():
    """Third-party files (Khronos samples, glTF-Validator's cases, mocap); none uses the extension
    today, so this mostly shows that real files of every shape go through without a crash."""
    assert len(ASSET_FILES) >= 20
    for path in ASSET_FILES:
        try:
            assert problems_of_file(path) == [], path
        except sqlerp_schema.Unreadable:
            pass  # a deliberately broken validator case: glTF-Validator reports it


def test_a_glb_is_read_from_its_json_chunk(tmp_path):
    document, blob = _document({"sampler": "1"})
    path = tmp_path / "case.glb"
    path.write_bytes(corpus.glb_bytes(json.dumps(document).encode(), blob))
    assert problems_of_file(path) == [f"{CHANNEL0}/sampler: '1' is not of type 'integer'"]
    cut = tmp_path / "cut.glb"
    cut.write_bytes(path.read_bytes()[:40])
    with pytest.raises(sqlerp_schema.Unreadable):
        problems_of_file(cut)


def test_the_validator_reports_include_schema_errors(tmp_path):
    """glTF-Validator itself never looks inside the extension object: the sample with a string
    sampler has 0 errors of its own, and the one error is the schema's, counted in numErrors."""
    sample = ROOT / "samples" / "sqlerp_arm.gltf"
    document = json.loads(sample.read_text(encoding="utf-8"))
    broken = copy.deepcopy(document)
    channels = broken["animations"][0]["channels"]
    channel = next(c for c, item in enumerate(channels) if EXTENSION in item.get("extensions", {}))
    channels[channel]["extensions"][EXTENSION]["sampler"] = "1"
    shutil.copy(sample.with_suffix(".bin"), tmp_path / "sqlerp_arm.bin")
    paths = [tmp_path / "same.gltf", tmp_path / "broken.gltf"]
    paths[0].write_text(json.dumps(document), encoding="utf-8")
    paths[1].write_text(json.dumps(broken), encoding="utf-8")
    same, report = gltf_validator.validate_all(paths)
    pointer = f"/animations/0/channels/{channel}/extensions/{EXTENSION}/sampler"
    assert gltf_validator.errors(same) == []
    assert gltf_validator.errors(report) == [(gltf_validator.SCHEMA_CODE, pointer)]
    assert report["issues"]["numErrors"] == 1
    assert [m["message"] for m in report["issues"]["messages"] if m["code"] == gltf_validator.SCHEMA_CODE] == [
        "'1' is not of type 'integer'"]
