"""core.gltf.validation on the JSON shape of every object outside the animations (core/gltf/validation/shape.py,
issue 18): one change at a time to the project's sample (samples/sqlerp_arm.gltf), each a value of
the wrong JSON type, length, range or kind that Blender's bundled importer would otherwise meet (a
Python exception half way, or a scene built from nonsense). The reference is Khronos glTF-Validator
itself, run on the same files: each case's (code, JSON pointer) is what it reports, and core.load
refuses the file naming it. Every error of ours must be one the validator reports too.

What the validator only warns about (VALUE_NOT_IN_LIST of an alphaMode, a sampler filter or wrap
mode) stays a warning and the file loads (WARNING_CASES); one warning is refused all the same, a
sparse accessor's index type, which Blender's importer cannot use (STRICTER). An image of type
"image/gif" is refused with the validator's error for the texture showing it.
"""


import pytest

from helpers.sample_changes import BASE, SAMPLE, written_and_validated
from helpers.sample_changes import all_of as _all
from helpers.sample_changes import delete_at as _delete
from helpers.sample_changes import set_at as _set
from helpers import ASSETS
from gltf_sqlerp import core
from gltf_sqlerp.core.gltf.file import read_file
from gltf_sqlerp.core.gltf.validation import validate

PRIMITIVE = ("meshes", 0, "primitives", 0)
P = "/meshes/0/primitives/0"
PRIMITIVE_ATTRIBUTES = BASE["meshes"][0]["primitives"][0]["attributes"]
SPARSE = "/accessors/2/sparse"
# A 1x1 PNG: the images and textures of the cases are valid unless a case breaks them.
PNG = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwAD"
       "hgGAWjR9awAAAABJRU5ErkJggg==")





def _material(**material):
    """Material 0 on the arm's mesh, with one texture showing one PNG image. The mesh gets texture
    coordinates (a view of its positions' bytes read as VEC2), which a textured material needs."""
    def change(document):
        document["images"] = [{"uri": PNG}]
        document["textures"] = [{"source": 0}]
        document["materials"] = [material]
        position = document["accessors"][PRIMITIVE_ATTRIBUTES["POSITION"]]
        view = document["bufferViews"][position["bufferView"]]
        document["bufferViews"].append({**view, "byteLength": position["count"] * 8})
        document["accessors"].append({"bufferView": len(document["bufferViews"]) - 1,
                                      "componentType": 5126, "count": position["count"], "type": "VEC2"})
        primitive = document["meshes"][0]["primitives"][0]
        primitive["attributes"]["TEXCOORD_0"] = len(document["accessors"]) - 1
        primitive["material"] = 0
    return change


def _textured(**texture_part):
    """A textured material whose texture, sampler or image is changed by ``texture_part``."""
    def change(document):
        _material(pbrMetallicRoughness={"baseColorTexture": {"index": 0}})(document)
        document["samplers"] = [texture_part.get("sampler", {})]
        document["textures"][0]["sampler"] = 0
        document["textures"][0].update(texture_part.get("texture", {}))
        document["images"][0] = _without_none({**document["images"][0], **texture_part.get("image", {})})
    return change


def _without_none(item):
    """``item`` without the keys whose value is None: how a case deletes a property."""
    return {key: value for key, value in item.items() if value is not None}


def _sparse(**sparse):
    """Accessor 2 (the mesh's weights) gets a sparse substitution of one element."""
    def change(document):
        part = {"bufferView": 3, "componentType": 5125}
        document["accessors"][2]["sparse"] = _without_none(
            {"count": 1, "indices": part, "values": {"bufferView": 2}, **sparse})
    return change


def _camera(**camera):
    def change(document):
        document["cameras"] = [camera]
        document["nodes"][0]["camera"] = 0
    return change


PERSPECTIVE = {"yfov": 0.8, "znear": 0.1}

# (name, change, the validator's (code, pointer) the case must be refused with)
CASES = [
    # --- nodes ---
    ("translation a string", _set("nodes", 2, "translation", "abc"), ("TYPE_MISMATCH", "/nodes/2/translation")),
    ("translation of 2", _set("nodes", 2, "translation", [0, 1]), ("ARRAY_LENGTH_NOT_IN_LIST", "/nodes/2/translation")),
    ("translation holding a string", _set("nodes", 2, "translation", [0, "1", 0]),
     ("ARRAY_TYPE_MISMATCH", "/nodes/2/translation")),
    ("rotation of 3", _set("nodes", 1, "rotation", [0, 0, 1]), ("ARRAY_LENGTH_NOT_IN_LIST", "/nodes/1/rotation")),
    ("rotation component 2", _set("nodes", 1, "rotation", [0, 0, 2, 1]), ("VALUE_NOT_IN_RANGE", "/nodes/1/rotation/2")),
    ("scale a string", _set("nodes", 2, "scale", "big"), ("TYPE_MISMATCH", "/nodes/2/scale")),
    ("scale empty", _set("nodes", 2, "scale", []), ("EMPTY_ENTITY", "/nodes/2/scale")),
    ("matrix of 15", _set("nodes", 0, "matrix", [1] + [0] * 14), ("ARRAY_LENGTH_NOT_IN_LIST", "/nodes/0/matrix")),
    ("children a string", _set("nodes", 0, "children", "1"), ("TYPE_MISMATCH", "/nodes/0/children")),
    ("child a string", _set("nodes", 0, "children", [1, "4"]), ("INVALID_INDEX", "/nodes/0/children/1")),
    ("children empty", _set("nodes", 0, "children", []), ("EMPTY_ENTITY", "/nodes/0/children")),
    ("mesh a string", _set("nodes", 4, "mesh", "0"), ("TYPE_MISMATCH", "/nodes/4/mesh")),
    ("skin -1", _set("nodes", 4, "skin", -1), ("INVALID_INDEX", "/nodes/4/skin")),
    ("skin without mesh", _delete("nodes", 4, "mesh"), ("UNSATISFIED_DEPENDENCY", "/nodes/4/skin")),
    ("children twice", _set("nodes", 0, "children", [1, 1]), ("DUPLICATE_ELEMENTS", "/nodes/0/children/1")),
    ("camera a string", _set("nodes", 0, "camera", "0"), ("TYPE_MISMATCH", "/nodes/0/camera")),
    ("node weights of strings", _set("nodes", 4, "weights", ["a"]), ("ARRAY_TYPE_MISMATCH", "/nodes/4/weights")),
    ("node name a number", _set("nodes", 0, "name", 7), ("TYPE_MISMATCH", "/nodes/0/name")),
    ("node extension undeclared", _set("nodes", 0, "extensions", {"EXT_made_up": {}}),
     ("UNDECLARED_EXTENSION", "/nodes/0/extensions/EXT_made_up")),
    ("node extensions a list", _set("nodes", 0, "extensions", []), ("TYPE_MISMATCH", "/nodes/0/extensions")),
    # --- meshes and primitives ---
    ("primitives 5", _set("meshes", 0, "primitives", 5), ("TYPE_MISMATCH", "/meshes/0/primitives")),
    ("primitives empty", _set("meshes", 0, "primitives", []), ("EMPTY_ENTITY", "/meshes/0/primitives")),
    ("primitive a number", _set("meshes", 0, "primitives", [5]), ("ARRAY_TYPE_MISMATCH", "/meshes/0/primitives")),
    ("mesh without primitives", _delete("meshes", 0, "primitives"), ("UNDEFINED_PROPERTY", "/meshes/0")),
    ("mode 99", _set(*PRIMITIVE, "mode", 99), ("VALUE_NOT_IN_RANGE", f"{P}/mode")),
    ("mode a string", _set(*PRIMITIVE, "mode", "x"), ("TYPE_MISMATCH", f"{P}/mode")),
    ("attributes a list", _set(*PRIMITIVE, "attributes", [0]), ("TYPE_MISMATCH", f"{P}/attributes")),
    ("attributes empty", _set(*PRIMITIVE, "attributes", {}), ("EMPTY_ENTITY", f"{P}/attributes")),
    ("attributes missing", _delete(*PRIMITIVE, "attributes"), ("UNDEFINED_PROPERTY", P)),
    ("attribute a string", _set(*PRIMITIVE, "attributes", "POSITION", "0"),
     ("INVALID_INDEX", f"{P}/attributes/POSITION")),
    ("targets an object", _set(*PRIMITIVE, "targets", {"POSITION": 0}), ("TYPE_MISMATCH", f"{P}/targets")),
    ("target a number", _set(*PRIMITIVE, "targets", [0]), ("ARRAY_TYPE_MISMATCH", f"{P}/targets")),
    ("target empty", _set(*PRIMITIVE, "targets", [{}]), ("EMPTY_ENTITY", f"{P}/targets/0")),
    ("indices a string", _set(*PRIMITIVE, "indices", "3"), ("TYPE_MISMATCH", f"{P}/indices")),
    ("mesh weights a string", _set("meshes", 0, "weights", "x"), ("TYPE_MISMATCH", "/meshes/0/weights")),
    # --- skins ---
    ("joints empty", _set("skins", 0, "joints", []), ("EMPTY_ENTITY", "/skins/0/joints")),
    ("joint a string", _set("skins", 0, "joints", [1, "2", 3]), ("INVALID_INDEX", "/skins/0/joints/1")),
    ("joints missing", _delete("skins", 0, "joints"), ("UNDEFINED_PROPERTY", "/skins/0")),
    ("skeleton -1", _set("skins", 0, "skeleton", -1), ("INVALID_INDEX", "/skins/0/skeleton")),
    ("inverse bind matrices a string", _set("skins", 0, "inverseBindMatrices", "4"),
     ("TYPE_MISMATCH", "/skins/0/inverseBindMatrices")),
    # --- materials and texture infos ---
    ("pbr a list", _material(pbrMetallicRoughness=[]), ("TYPE_MISMATCH", "/materials/0/pbrMetallicRoughness")),
    ("base color of 3", _material(pbrMetallicRoughness={"baseColorFactor": [1, 1, 1]}),
     ("ARRAY_LENGTH_NOT_IN_LIST", "/materials/0/pbrMetallicRoughness/baseColorFactor")),
    ("base color above 1", _material(pbrMetallicRoughness={"baseColorFactor": [1, 1, 1, 2]}),
     ("VALUE_NOT_IN_RANGE", "/materials/0/pbrMetallicRoughness/baseColorFactor/3")),
    ("metallic 2", _material(pbrMetallicRoughness={"metallicFactor": 2}),
     ("VALUE_NOT_IN_RANGE", "/materials/0/pbrMetallicRoughness/metallicFactor")),
    ("roughness a string", _material(pbrMetallicRoughness={"roughnessFactor": "1"}),
     ("TYPE_MISMATCH", "/materials/0/pbrMetallicRoughness/roughnessFactor")),
    ("emissive of 2", _material(emissiveFactor=[1, 1]), ("ARRAY_LENGTH_NOT_IN_LIST", "/materials/0/emissiveFactor")),
    ("alpha mode a number", _material(alphaMode=1), ("TYPE_MISMATCH", "/materials/0/alphaMode")),
    ("alpha cutoff -1", _material(alphaMode="MASK", alphaCutoff=-1),
     ("VALUE_NOT_IN_RANGE", "/materials/0/alphaCutoff")),
    ("double sided yes", _material(doubleSided="yes"), ("TYPE_MISMATCH", "/materials/0/doubleSided")),
    ("tex coord -1", _material(emissiveTexture={"index": 0, "texCoord": -1}),
     ("VALUE_NOT_IN_RANGE", "/materials/0/emissiveTexture/texCoord")),
    ("tex coord a string", _material(pbrMetallicRoughness={"baseColorTexture": {"index": 0, "texCoord": "0"}}),
     ("TYPE_MISMATCH", "/materials/0/pbrMetallicRoughness/baseColorTexture/texCoord")),
    ("texture info without index", _material(emissiveTexture={"texCoord": 0}),
     ("UNDEFINED_PROPERTY", "/materials/0/emissiveTexture")),
    ("texture info a string", _material(emissiveTexture="0"), ("TYPE_MISMATCH", "/materials/0/emissiveTexture")),
    ("normal scale a string", _material(normalTexture={"index": 0, "scale": "x"}),
     ("TYPE_MISMATCH", "/materials/0/normalTexture/scale")),
    ("occlusion strength 2", _material(occlusionTexture={"index": 0, "strength": 2}),
     ("VALUE_NOT_IN_RANGE", "/materials/0/occlusionTexture/strength")),
    # --- textures, samplers, images ---
    ("min filter a string", _textured(sampler={"minFilter": "LINEAR"}), ("TYPE_MISMATCH", "/samplers/0/minFilter")),
    ("texture sampler a string", _textured(texture={"sampler": "0"}), ("TYPE_MISMATCH", "/textures/0/sampler")),
    ("image uri and buffer view", _textured(image={"bufferView": 0, "mimeType": "image/png"}),
     ("ONE_OF_MISMATCH", "/images/0")),
    ("image of neither", _textured(image={"uri": None}), ("ONE_OF_MISMATCH", "/images/0")),
    ("image gif", _textured(image={"mimeType": "image/gif"}),
     ("TEXTURE_INVALID_IMAGE_MIME_TYPE", "/textures/0/source")),
    ("image view without type", _textured(image={"uri": None, "bufferView": 0}),
     ("UNSATISFIED_DEPENDENCY", "/images/0/bufferView")),
    ("image uri a number", _textured(image={"uri": 5}), ("TYPE_MISMATCH", "/images/0/uri")),
    # --- accessors ---
    ("sparse count 0", _sparse(count=0), ("VALUE_NOT_IN_RANGE", f"{SPARSE}/count")),
    ("sparse float indices", _sparse(indices={"bufferView": 3, "componentType": 5126}),
     ("VALUE_NOT_IN_LIST", f"{SPARSE}/indices/componentType")),
    ("sparse without values", _sparse(values=None), ("UNDEFINED_PROPERTY", SPARSE)),
    ("sparse indices without view", _sparse(indices={"componentType": 5125}),
     ("UNDEFINED_PROPERTY", f"{SPARSE}/indices")),
    ("sparse a list", _set("accessors", 2, "sparse", []), ("TYPE_MISMATCH", SPARSE)),
    ("accessor max of 2", _set("accessors", 0, "max", [1, 1]), ("ARRAY_LENGTH_NOT_IN_LIST", "/accessors/0/max")),
    ("accessor min a string", _set("accessors", 0, "min", "0"), ("TYPE_MISMATCH", "/accessors/0/min")),
    ("accessor normalized yes", _set("accessors", 1, "normalized", "yes"),
     ("TYPE_MISMATCH", "/accessors/1/normalized")),
    ("accessor count a string", _set("accessors", 0, "count", "28"), ("TYPE_MISMATCH", "/accessors/0/count")),
    ("accessor without type", _delete("accessors", 0, "type"), ("UNDEFINED_PROPERTY", "/accessors/0")),
    ("index min -1", _set("accessors", 3, "min", [-1]), ("INVALID_GL_VALUE", "/accessors/3/min")),
    ("byte offset without view", _all(_delete("accessors", 4, "bufferView"), _set("accessors", 4, "byteOffset", 0)),
     ("UNSATISFIED_DEPENDENCY", "/accessors/4/byteOffset")),
    ("accessor byte offset -4", _set("accessors", 0, "byteOffset", -4),
     ("VALUE_NOT_IN_RANGE", "/accessors/0/byteOffset")),
    # --- buffers and buffer views ---
    ("buffer length 0", _set("buffers", 0, "byteLength", 0), ("VALUE_NOT_IN_RANGE", "/buffers/0/byteLength")),
    ("buffer length a string", _set("buffers", 0, "byteLength", "10"), ("TYPE_MISMATCH", "/buffers/0/byteLength")),
    ("view length 0", _set("bufferViews", 0, "byteLength", 0), ("VALUE_NOT_IN_RANGE", "/bufferViews/0/byteLength")),
    ("view offset a string", _set("bufferViews", 0, "byteOffset", "0"), ("TYPE_MISMATCH", "/bufferViews/0/byteOffset")),
    ("view without buffer", _delete("bufferViews", 0, "buffer"), ("UNDEFINED_PROPERTY", "/bufferViews/0")),
    # --- cameras ---
    ("camera both kinds", _camera(type="perspective", perspective=PERSPECTIVE, orthographic={}),
     ("ONE_OF_MISMATCH", "/cameras/0")),
    ("camera without type", _camera(perspective=PERSPECTIVE), ("UNDEFINED_PROPERTY", "/cameras/0")),
    ("perspective a list", _camera(type="perspective", perspective=[]), ("TYPE_MISMATCH", "/cameras/0/perspective")),
    ("camera yfov 0", _camera(type="perspective", perspective={"yfov": 0, "znear": 0.1}),
     ("VALUE_NOT_IN_RANGE", "/cameras/0/perspective/yfov")),
    ("orthographic without xmag", _camera(type="orthographic", orthographic={"ymag": 1, "zfar": 9, "znear": 0}),
     ("UNDEFINED_PROPERTY", "/cameras/0/orthographic")),
    # --- asset ---
    ("asset missing", _delete("asset"), ("UNDEFINED_PROPERTY", "/")),
    ("asset a string", _set("asset", "2.0"), ("TYPE_MISMATCH", "/asset")),
    ("version missing", _delete("asset", "version"), ("UNDEFINED_PROPERTY", "/asset")),
    ("version a number", _set("asset", "version", 2.0), ("TYPE_MISMATCH", "/asset/version")),
    ("version two", _set("asset", "version", "two"), ("PATTERN_MISMATCH", "/asset/version")),
    ("version 1.0", _set("asset", "version", "1.0"), ("UNKNOWN_ASSET_MAJOR_VERSION", "/asset/version")),
    # --- the root ---
    ("nodes an object", _set("nodes", {}), ("TYPE_MISMATCH", "/nodes")),
    ("materials empty", _set("materials", []), ("EMPTY_ENTITY", "/materials")),
    # Not a node or mesh: the validator itself fails on those ("NoSuchMethodError: ... on null").
    ("material a number", _set("materials", [5]), ("TYPE_MISMATCH", "/materials/0")),
    ("scene nodes a string", _set("scenes", 0, "nodes", "0"), ("TYPE_MISMATCH", "/scenes/0/nodes")),
    ("scene a string", _set("scene", "0"), ("TYPE_MISMATCH", "/scene")),
    ("extensions used of numbers", _set("extensionsUsed", ["EXT_animation_sqlerp", 5]),
     ("ARRAY_TYPE_MISMATCH", "/extensionsUsed/1")),
    ("extensions used twice", _set("extensionsUsed", ["EXT_animation_sqlerp", "EXT_animation_sqlerp"]),
     ("DUPLICATE_ELEMENTS", "/extensionsUsed/1")),
    ("extensions a number", _set("extensions", 5), ("TYPE_MISMATCH", "/extensions")),
    ("required without used", _all(_delete("extensionsUsed"), _set("extensionsRequired", ["EXT_animation_sqlerp"])),
     ("UNSATISFIED_DEPENDENCY", "/extensionsRequired")),
]
# Warnings for the validator, errors here: Blender's importer indexes numpy arrays with the sparse
# indices (float ones raise IndexError, signed ones wrap around), as validate_document refuses an
# accessor's componentType of 9999.
STRICTER = {"sparse float indices"}

# The validator's warnings (the file is valid): kept as warnings, the file loads. Blender's
# importer reads an unknown alphaMode as BLEND, an unknown filter as LINEAR, an unknown wrap mode
# as CLAMP_TO_EDGE.
WARNING_CASES = [
    ("alpha mode SOMETIMES", _material(alphaMode="SOMETIMES"), ("VALUE_NOT_IN_LIST", "/materials/0/alphaMode")),
    ("mag filter 1", _textured(sampler={"magFilter": 1}), ("VALUE_NOT_IN_LIST", "/samplers/0/magFilter")),
    ("wrap s 5", _textured(sampler={"wrapS": 5}), ("VALUE_NOT_IN_LIST", "/samplers/0/wrapS")),
    ("view target 5", _set("bufferViews", 0, "target", 5), ("VALUE_NOT_IN_LIST", "/bufferViews/0/target")),
    ("version 2.1", _set("asset", "version", "2.1"), ("UNKNOWN_ASSET_MINOR_VERSION", "/asset/version")),
]
SEVERITY = {0: "error", 1: "warning"}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """{name: (path, the validator's report)}: every case written beside the sample's .bin, and
    the validator run once on all of them."""
    return written_and_validated(tmp_path_factory.mktemp("shape"), CASES + WARNING_CASES)


def _validator(report, severity):
    return {(m["code"], m["pointer"]) for m in report["issues"]["messages"]
            if SEVERITY.get(m["severity"]) == severity}


def _ours(path, severity="error"):
    """Our findings of one severity; a file read_file refuses (a buffer's byteLength) has its
    one error."""
    try:
        findings = validate(read_file(path))
    except core.GltfError as refused:
        findings = refused.findings
    return {(f.code, f.pointer) for f in findings if f.severity == severity}


def test_the_cases_cover_every_kind_of_object_and_code():
    pointers = {expected[1].split("/")[1] for _, _, expected in CASES}
    assert {"nodes", "meshes", "skins", "materials", "samplers", "images", "textures", "accessors",
            "buffers", "bufferViews", "cameras", "asset", "scenes", "extensionsUsed", ""} <= pointers
    assert len(CASES) >= 40


@pytest.mark.parametrize("name, change, expected", CASES, ids=[c[0] for c in CASES])
def test_a_misshapen_document_is_refused_as_the_validator_reports_it(cases, name, change, expected):
    path, report = cases[name]
    # The reference: the validator's error (a warning only where we are deliberately stricter).
    assert expected in _validator(report, "warning" if name in STRICTER else "error")
    ours = _ours(path)
    assert expected in ours
    # Every error of ours is one the validator reports too (it often reports more).
    assert ours <= _validator(report, "error") | {expected}
    with pytest.raises(core.GltfError) as refused:
        core.load(path)
    assert expected in {(f.code, f.pointer) for f in refused.value.findings}
    assert "Traceback" not in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("name, change, expected", WARNING_CASES, ids=[c[0] for c in WARNING_CASES])
def test_what_the_validator_only_warns_about_loads_with_a_warning(cases, name, change, expected):
    path, report = cases[name]
    assert expected in _validator(report, "warning")
    assert expected in _ours(path, "warning")
    assert _ours(path) <= _validator(report, "error")
    if not _validator(report, "error"):
        assert expected in {(f.code, f.pointer) for f in core.load(path).warnings}


REAL_FILES = sorted(p for folder in (ASSETS / "khronos", SAMPLE.parent) for p in folder.rglob("*")
                    if p.suffix in (".gltf", ".glb"))


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_files_have_the_shape_the_schema_asks_for(path):
    assert len(REAL_FILES) >= 20
    document = core.load(path)  # raises GltfError on any error
    assert not [f for f in document.warnings if f.code in ("UNEXPECTED_PROPERTY", "VALUE_NOT_IN_LIST")]
