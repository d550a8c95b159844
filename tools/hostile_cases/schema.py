"""Hostile cases of the JSON schema and the data's extent: wrong JSON types, indices out of range
or negative, accessors and views larger than their data (gigabyte requests in a few hundred
bytes), and broken sparse accessors (on accessor 3, the LINEAR translation)."""

import numpy as np

from .asset import BIN_NAME, EXTENSION, GIB_COUNT, base_document, dump_json
from .registry import A, C0, CHANNEL_PTR, S0, SAMPLER_PTR, case, delete_at, gltf, set_at

# --- wrong JSON types ---

TYPE_CASES = [
    ("animations_object", ("animations",), {}, "TYPE_MISMATCH", "/animations"),
    ("animation_number", ("animations", 0), 5, "TYPE_MISMATCH", "/animations/0"),
    ("channels_string", A + ("channels",), "all", "TYPE_MISMATCH", "/animations/0/channels"),
    ("samplers_empty", A + ("samplers",), [], "EMPTY_ENTITY", "/animations/0/samplers"),
    ("sampler_not_object", S0, [0, 1], "ARRAY_TYPE_MISMATCH", "/animations/0/samplers"),
    ("channel_sampler_string", C0 + ("sampler",), "0", "TYPE_MISMATCH", CHANNEL_PTR + "/0/sampler"),
    ("channel_sampler_nul", C0 + ("sampler",), "0\0", "TYPE_MISMATCH", CHANNEL_PTR + "/0/sampler"),
    ("channel_sampler_float", C0 + ("sampler",), 0.5, "TYPE_MISMATCH", CHANNEL_PTR + "/0/sampler"),
    ("channel_target_array", C0 + ("target",), [1, "rotation"], "TYPE_MISMATCH",
     CHANNEL_PTR + "/0/target"),
    ("target_path_number", C0 + ("target", "path"), 3, "TYPE_MISMATCH",
     CHANNEL_PTR + "/0/target/path"),
    ("target_node_bool", C0 + ("target", "node"), True, "TYPE_MISMATCH",
     CHANNEL_PTR + "/0/target/node"),
    ("sampler_input_null", S0 + ("input",), None, "TYPE_MISMATCH", SAMPLER_PTR + "/0/input"),
    ("sampler_output_object", S0 + ("output",), {"index": 1}, "TYPE_MISMATCH",
     SAMPLER_PTR + "/0/output"),
    ("sampler_interpolation_number", S0 + ("interpolation",), 1, "TYPE_MISMATCH",
     SAMPLER_PTR + "/0/interpolation"),
    ("channel_extensions_array", C0 + ("extensions",), [EXTENSION], "TYPE_MISMATCH",
     CHANNEL_PTR + "/0/extensions"),
    ("sqlerp_sampler_string", C0 + ("extensions", EXTENSION, "sampler"), "1", "TYPE_MISMATCH",
     CHANNEL_PTR + f"/0/extensions/{EXTENSION}/sampler"),
    ("accessor_count_string", ("accessors", 0, "count"), "2", "TYPE_MISMATCH", "/accessors/0/count"),
    ("accessor_count_zero", ("accessors", 0, "count"), 0, "TYPE_MISMATCH", "/accessors/0/count"),
    # The core checks accessors as animation samplers use them (the validator's animation
    # pass): a broken type or componentType is an invalid output format, and the data is not read.
    ("accessor_component_string", ("accessors", 3, "componentType"), "FLOAT",
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", CHANNEL_PTR + "/1/sampler"),
    ("accessor_component_unknown", ("accessors", 0, "componentType"), 5130,
     "ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT", SAMPLER_PTR + "/0/input"),
    ("accessor_type_vec5", ("accessors", 3, "type"), "VEC5",
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", CHANNEL_PTR + "/1/sampler"),
    ("accessor_byte_offset_negative", ("accessors", 3, "byteOffset"), -4, "TYPE_MISMATCH",
     "/accessors/3/byteOffset"),
    ("accessor_normalized_float", ("accessors", 3, "normalized"), True,
     "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", CHANNEL_PTR + "/1/sampler"),
    ("accessor_not_object", ("accessors", 3), "VEC3", "UNRESOLVED_REFERENCE",
     SAMPLER_PTR + "/2/output"),
    ("accessors_object", ("accessors",), {"0": {}}, "UNRESOLVED_REFERENCE",
     SAMPLER_PTR + "/0/input"),
    ("buffer_view_length_string", ("bufferViews", 3, "byteLength"), "24", "TYPE_MISMATCH",
     "/bufferViews/3/byteLength"),
    ("buffer_view_offset_float", ("bufferViews", 3, "byteOffset"), 1.5, "TYPE_MISMATCH",
     "/bufferViews/3/byteOffset"),
    ("buffer_view_stride_string", ("bufferViews", 3, "byteStride"), "12",
     "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE", SAMPLER_PTR + "/2/output"),
    ("buffers_object", ("buffers",), {"uri": BIN_NAME}, "TYPE_MISMATCH", "/buffers"),
    ("buffer_string", ("buffers", 0), BIN_NAME, "TYPE_MISMATCH", "/buffers/0"),
    ("buffer_length_string", ("buffers", 0, "byteLength"), "300", "TYPE_MISMATCH", "/buffers/0/byteLength"),
    ("buffer_length_negative", ("buffers", 0, "byteLength"), -1, "VALUE_NOT_IN_RANGE", "/buffers/0/byteLength"),
    ("buffer_uri_number", ("buffers", 0, "uri"), 7, "TYPE_MISMATCH", "/buffers/0/uri"),
    # Animation targets are checked first: the validation pass stops the load before the
    # hierarchy is read, so the finding is on the target, not on /nodes.
    ("nodes_object", ("nodes",), {"0": {}}, "UNRESOLVED_REFERENCE",
     CHANNEL_PTR + "/0/target/node"),
    ("node_not_object", ("nodes", 0), [1], "UNRESOLVED_REFERENCE",
     CHANNEL_PTR + "/1/target/node"),
    ("node_children_string", ("nodes", 0, "children"), "1", "TYPE_MISMATCH", "/nodes/0/children"),
    ("node_rotation_three_numbers", ("nodes", 1, "rotation"), [0, 0, 1],
     "ARRAY_LENGTH_NOT_IN_LIST", "/nodes/1/rotation"),
    # Not JSON (Python's parser takes NaN): out of range, as the validator says of an infinity.
    ("node_translation_nan", ("nodes", 1, "translation"), [0, float("nan"), 0],
     "VALUE_NOT_IN_RANGE", "/nodes/1/translation/1"),
    ("node_mesh_string", ("nodes", 0, "mesh"), "0", "TYPE_MISMATCH", "/nodes/0/mesh"),
    ("extensions_required_string", ("extensionsRequired",), EXTENSION, "TYPE_MISMATCH",
     "/extensionsRequired"),
]
for _name, _path, _value, _code, _pointer in TYPE_CASES:
    case(f"type_{_name}", _code, _pointer, f"{'/'.join(map(str, _path))} = {_value!r}",
         ("types",))(gltf(set_at(_path, _value)))

case("sampler_without_input", "UNDEFINED_PROPERTY", SAMPLER_PTR + "/0",
     "sampler 0 has no 'input'", ("types",))(gltf(delete_at(S0 + ("input",))))
case("channel_without_target", "UNDEFINED_PROPERTY", CHANNEL_PTR + "/0",
     "channel 0 has no 'target'", ("types",))(gltf(delete_at(C0 + ("target",))))
case("buffer_without_length", "UNDEFINED_PROPERTY", "/buffers/0",
     "buffer 0 has no 'byteLength'", ("types",))(gltf(delete_at(("buffers", 0, "byteLength"))))

# --- indices out of range or negative ---

INDEX_CASES = [
    ("accessor_out_of_range", S0 + ("input",), 99, "UNRESOLVED_REFERENCE", SAMPLER_PTR + "/0/input"),
    ("accessor_negative", S0 + ("output",), -1, "INVALID_INDEX", SAMPLER_PTR + "/0/output"),
    ("accessor_huge", S0 + ("input",), 2 ** 63, "UNRESOLVED_REFERENCE", SAMPLER_PTR + "/0/input"),
    ("buffer_view_out_of_range", ("accessors", 3, "bufferView"), 99, "UNRESOLVED_REFERENCE",
     "/accessors/3/bufferView"),
    ("buffer_view_negative", ("accessors", 3, "bufferView"), -2, "UNRESOLVED_REFERENCE",
     "/accessors/3/bufferView"),
    ("buffer_out_of_range", ("bufferViews", 3, "buffer"), 1, "UNRESOLVED_REFERENCE",
     "/bufferViews/3/buffer"),
    ("buffer_negative", ("bufferViews", 3, "buffer"), -1, "UNRESOLVED_REFERENCE",
     "/bufferViews/3/buffer"),
    ("node_out_of_range", C0 + ("target", "node"), 2, "UNRESOLVED_REFERENCE",
     CHANNEL_PTR + "/0/target/node"),
    ("node_negative", C0 + ("target", "node"), -1, "INVALID_INDEX", CHANNEL_PTR + "/0/target/node"),
    ("sampler_out_of_range", C0 + ("sampler",), 5, "UNRESOLVED_REFERENCE",
     CHANNEL_PTR + "/0/sampler"),
    ("sampler_negative", C0 + ("sampler",), -5, "INVALID_INDEX", CHANNEL_PTR + "/0/sampler"),
    ("sqlerp_sampler_out_of_range", C0 + ("extensions", EXTENSION, "sampler"), 7,
     "SQLERP_UNRESOLVED_SAMPLER", CHANNEL_PTR + f"/0/extensions/{EXTENSION}/sampler"),
    ("child_out_of_range", ("nodes", 0, "children"), [1, 2], "UNRESOLVED_REFERENCE",
     "/nodes/0/children/1"),
    ("child_negative", ("nodes", 0, "children"), [-1], "INVALID_INDEX", "/nodes/0/children/0"),
    ("mesh_out_of_range", ("nodes", 0, "mesh"), 1, "UNRESOLVED_REFERENCE", "/nodes/0/mesh"),
]
for _name, _path, _value, _code, _pointer in INDEX_CASES:
    case(f"index_{_name}", _code, _pointer, f"{'/'.join(map(str, _path))} = {_value!r}",
         ("index",))(gltf(set_at(_path, _value)))

# --- sizes: accessors and views larger than their data ---

SIZE_CASES = [
    ("accessor_past_view", ("accessors", 3, "count"), 3, "ACCESSOR_TOO_LONG", "/accessors/3", ()),
    ("accessor_offset_past_view", ("accessors", 3, "byteOffset"), 4, "ACCESSOR_TOO_LONG",
     "/accessors/3", ()),
    ("view_past_buffer", ("bufferViews", 3, "byteLength"), 4096, "BUFFER_VIEW_TOO_LONG",
     "/bufferViews/3", ()),
    ("view_offset_past_buffer", ("bufferViews", 3, "byteOffset"), 1 << 20, "BUFFER_VIEW_TOO_LONG",
     "/bufferViews/3", ()),
    ("accessor_count_2e31", ("accessors", 0, "count"), GIB_COUNT, "ACCESSOR_TOO_LONG",
     "/accessors/0", ("huge",)),
    ("accessor_count_2e62", ("accessors", 3, "count"), 1 << 62, "ACCESSOR_TOO_LONG",
     "/accessors/3", ("huge",)),
    ("view_length_terabyte", ("bufferViews", 3, "byteLength"), 1 << 40, "BUFFER_VIEW_TOO_LONG",
     "/bufferViews/3", ("huge",)),
    ("buffer_length_2e31", ("buffers", 0, "byteLength"), GIB_COUNT, "BUFFER_BYTE_LENGTH_MISMATCH",
     "/buffers/0", ("huge",)),
]
for _name, _path, _value, _code, _pointer, _tags in SIZE_CASES:
    case(f"size_{_name}", _code, _pointer, f"{'/'.join(map(str, _path))} = {_value!r}",
         ("size",) + _tags)(gltf(set_at(_path, _value)))


def _unbacked_huge(document):
    del document["accessors"][3]["bufferView"]
    document["accessors"][3]["count"] = GIB_COUNT


case("size_unbacked_accessor_2e31", "ACCESSOR_TOO_LARGE", "/accessors/3",
     "an accessor without bufferView (all zeros) of 2^31 elements", ("size", "huge"))(
         gltf(_unbacked_huge))


def _huge_both_counts(document):
    # Key times and values agree (2^31 each), so only the data read can stop it.
    document["accessors"][0]["count"] = GIB_COUNT
    document["accessors"][3]["count"] = GIB_COUNT


case("size_input_and_output_2e31", "ACCESSOR_TOO_LONG", "/accessors/0",
     "key times and translations both claim 2^31 elements in a 24-byte view", ("size", "huge"))(
         gltf(_huge_both_counts))

def _mesh_unbacked_huge(document):
    del document["accessors"][6]["bufferView"]
    document["accessors"][6]["count"] = GIB_COUNT


# Accessors no animation uses: Blender's bundled importer would decode them (meshes), so the core
# checks every accessor's size before the import (core/gltf/validation/bounds.py).
case("size_mesh_positions_2e31", "ACCESSOR_TOO_LONG", "/accessors/6",
     "the mesh's POSITION accessor claims 2^31 vertices in a small view", ("size", "huge"))(
         gltf(set_at(("accessors", 6, "count"), GIB_COUNT)))
case("size_mesh_positions_unbacked_2e31", "ACCESSOR_TOO_LARGE", "/accessors/6",
     "the mesh's POSITION accessor has no bufferView and 2^31 vertices", ("size", "huge"))(
         gltf(_mesh_unbacked_huge))

# --- sparse accessors (on accessor 3, the LINEAR translation) ---


def sparse_case(name, code, pointer_, description, indices, component=5125, count=None,
                index_view=None):
    """Accessor 3 gets a sparse block: ``indices`` stored as ``component`` (a FLOAT or SHORT
    component type is stored as 4 or 2 bytes), values (9, 9, 9) each, both appended to the buffer."""
    def build():
        document, blob = base_document()
        dtype = {5121: "<u1", 5123: "<u2", 5125: "<u4", 5126: "<f4", 5122: "<i2"}[component]
        index_bytes = np.asarray(indices).astype(dtype).tobytes()
        value_bytes = np.full((len(indices), 3), 9, dtype="<f4").tobytes()
        views = document["bufferViews"]
        blob = blob + index_bytes + b"\0" * (-len(index_bytes) % 4)
        views.append({"buffer": 0, "byteOffset": len(blob) - len(index_bytes)
                      - (-len(index_bytes) % 4), "byteLength": len(index_bytes)})
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(value_bytes)})
        blob += value_bytes
        document["buffers"][0]["byteLength"] = len(blob)
        document["accessors"][3]["sparse"] = {
            "count": len(indices) if count is None else count,
            "indices": {"bufferView": len(views) - 2 if index_view is None else index_view,
                        "componentType": component},
            "values": {"bufferView": len(views) - 1}}
        return {"case.gltf": dump_json(document), BIN_NAME: blob}
    case(name, code, pointer_, description, ("sparse",))(build)


sparse_case("sparse_index_out_of_range", "ACCESSOR_SPARSE_INDEX_OOB", "/accessors/3/sparse/indices",
            "sparse index 7 in an accessor of 2 elements", indices=[7])
sparse_case("sparse_index_2e32", "ACCESSOR_SPARSE_INDEX_OOB", "/accessors/3/sparse/indices",
            "sparse index 0xFFFFFFFF", indices=[0xFFFFFFFF])
sparse_case("sparse_not_increasing", "ACCESSOR_SPARSE_INDICES_NON_INCREASING",
            "/accessors/3/sparse/indices", "sparse indices 1, 0", indices=[1, 0])
sparse_case("sparse_repeated_index", "ACCESSOR_SPARSE_INDICES_NON_INCREASING",
            "/accessors/3/sparse/indices", "sparse indices 1, 1", indices=[1, 1])
sparse_case("sparse_float_indices", "VALUE_NOT_IN_LIST", "/accessors/3/sparse/indices/componentType",
            "sparse indices of component type FLOAT", indices=[0], component=5126)
sparse_case("sparse_signed_indices", "VALUE_NOT_IN_LIST", "/accessors/3/sparse/indices/componentType",
            "sparse indices of component type SHORT", indices=[0], component=5122)
sparse_case("sparse_count_above_count", "ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE",
            "/accessors/3/sparse/count", "sparse count 3 in an accessor of 2 elements",
            indices=[0, 1], count=3)
sparse_case("sparse_count_2e31", "ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE", "/accessors/3/sparse/count",
            "sparse count 2^31 in an accessor of 2 elements", indices=[0], count=GIB_COUNT)
sparse_case("sparse_index_view_missing", "UNRESOLVED_REFERENCE",
            "/accessors/3/sparse/indices/bufferView", "sparse indices in buffer view 40",
            indices=[0], index_view=40)
