"""core.gltf.validation outside the animations (core/gltf/validation/document.py, issue 18, 4): one change at a
time to the project's sample (samples/sqlerp_arm.gltf), each a problem that reaches Blender's
bundled importer (a KeyError half way, or a mesh made from nonsense). The reference is Khronos
glTF-Validator itself, run on the same files: each case's (code, JSON pointer) is what it reports,
and core.load refuses the file naming it, before anything could be built."""


import pytest

from helpers.sample_changes import BASE, SAMPLE, written_and_validated
from helpers.sample_changes import set_at as _set
from gltf_sqlerp import core
from gltf_sqlerp.core.gltf.file import read_file
from gltf_sqlerp.core.gltf.validation import validate

PRIMITIVE = BASE["meshes"][0]["primitives"][0]
POSITION = PRIMITIVE["attributes"]["POSITION"]
INDICES = PRIMITIVE["indices"]
POSITION_VIEW = BASE["accessors"][POSITION]["bufferView"]



# (name, change, the validator's (code, pointer) the case must be refused with)
CASES = [
    ("component type 9999", _set("accessors", POSITION, "componentType", 9999),
     ("MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT", "/meshes/0/primitives/0/attributes/POSITION")),
    ("type VEC7", _set("accessors", POSITION, "type", "VEC7"),
     ("MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT", "/meshes/0/primitives/0/attributes/POSITION")),
    ("count -5", _set("accessors", POSITION, "count", -5), ("VALUE_NOT_IN_RANGE", f"/accessors/{POSITION}/count")),
    ("byte stride 1", _set("bufferViews", POSITION_VIEW, "byteStride", 1),
     ("VALUE_NOT_IN_RANGE", f"/bufferViews/{POSITION_VIEW}/byteStride")),
    ("byte stride 14", _set("bufferViews", POSITION_VIEW, "byteStride", 14),
     ("VALUE_MULTIPLE_OF", f"/bufferViews/{POSITION_VIEW}/byteStride")),
    ("byte stride 8 under a VEC3", _set("bufferViews", POSITION_VIEW, "byteStride", 8),
     ("ACCESSOR_SMALL_BYTESTRIDE", f"/accessors/{POSITION}")),
    ("byte offset 2 of floats", _set("accessors", POSITION, "byteOffset", 2),
     ("ACCESSOR_OFFSET_ALIGNMENT", f"/accessors/{POSITION}/byteOffset")),
    ("normalized floats", _set("accessors", POSITION, "normalized", True),
     ("ACCESSOR_NORMALIZED_INVALID", f"/accessors/{POSITION}/normalized")),
    ("indices of floats", _set("accessors", INDICES, "componentType", 5126),
     ("MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT", "/meshes/0/primitives/0/indices")),
    ("attribute accessor 99", _set("meshes", 0, "primitives", 0, "attributes", "NORMAL", 99),
     ("UNRESOLVED_REFERENCE", "/meshes/0/primitives/0/attributes/NORMAL")),
    ("material 99", _set("meshes", 0, "primitives", 0, "material", 99),
     ("UNRESOLVED_REFERENCE", "/meshes/0/primitives/0/material")),
    ("scene node 99", _set("scenes", 0, "nodes", 0, 99), ("UNRESOLVED_REFERENCE", "/scenes/0/nodes/0")),
    ("scene 5", _set("scene", 5), ("UNRESOLVED_REFERENCE", "/scene")),
    ("buffer view -3", _set("accessors", POSITION, "bufferView", -3),
     ("INVALID_INDEX", f"/accessors/{POSITION}/bufferView")),
    ("buffer 3", _set("bufferViews", POSITION_VIEW, "buffer", 3),
     ("UNRESOLVED_REFERENCE", f"/bufferViews/{POSITION_VIEW}/buffer")),
    ("camera 99", _set("nodes", 0, "camera", 99), ("UNRESOLVED_REFERENCE", "/nodes/0/camera")),
    ("camera of no type", _set("cameras", [{"type": "bogus"}]), ("VALUE_NOT_IN_LIST", "/cameras/0/type")),
    ("perspective camera without one", _set("cameras", [{"type": "perspective"}]),
     ("UNDEFINED_PROPERTY", "/cameras/0")),
    ("texture source 7", _set("textures", [{"source": 7}]), ("UNRESOLVED_REFERENCE", "/textures/0/source")),
    ("base color texture 4", _set("materials", [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 4}}}]),
     ("UNRESOLVED_REFERENCE", "/materials/0/pbrMetallicRoughness/baseColorTexture/index")),
]


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """{name: (path, the validator's report)}: every case written beside the sample's .bin, and
    the validator run once on all of them."""
    return written_and_validated(tmp_path_factory.mktemp("document"), CASES)


def test_the_sample_itself_has_no_document_errors():
    assert [f for f in validate(read_file(SAMPLE)) if f.severity == "error"] == []


@pytest.mark.parametrize("name, change, expected", CASES, ids=[c[0] for c in CASES])
def test_a_broken_document_is_refused_as_the_validator_reports_it(cases, name, change, expected):
    path, report = cases[name]
    assert expected in {(m["code"], m["pointer"]) for m in report["issues"]["messages"]}  # the reference
    ours = {(f.code, f.pointer) for f in validate(read_file(path)) if f.severity == "error"}
    assert expected in ours
    with pytest.raises(core.GltfError) as refused:
        core.load(path)
    assert "Traceback" not in str(refused.value) and "\n" not in str(refused.value)
