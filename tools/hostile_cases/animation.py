"""Hostile cases of the animation data: key times, output counts against the interpolation,
CUBICSLERP samplers and the extensions a file declares or requires."""

from .asset import EXTENSION
from .registry import A, C0, CHANNEL_PTR, S1, SAMPLER_PTR, apply_all, case, delete_at, gltf, set_at

# --- key times ---


def _times(values):
    def arrays(data):
        data[0] = [[v] for v in values]
        if len(values) != 2:  # keep every sampler's output count matching
            raise ValueError("two key times")
    return arrays


for _name, _values, _code, _pointer in [
        ("nan", [0.0, float("nan")], "ACCESSOR_INVALID_FLOAT", "/accessors/0"),
        ("infinity", [0.0, float("inf")], "ACCESSOR_INVALID_FLOAT", "/accessors/0"),
        ("negative", [-1.0, 1.0], "ACCESSOR_ANIMATION_INPUT_NEGATIVE", SAMPLER_PTR + "/0/input"),
        ("decreasing", [1.0, 0.5], "ACCESSOR_ANIMATION_INPUT_NON_INCREASING",
         SAMPLER_PTR + "/0/input"),
        ("equal", [0.5, 0.5], "ACCESSOR_ANIMATION_INPUT_NON_INCREASING", SAMPLER_PTR + "/1/input")]:
    case(f"times_{_name}", _code, _pointer, f"key times {_values}", ("times",))(
        gltf(arrays=_times(_values)))

case("times_min_lies", "ACCESSOR_MIN_MISMATCH", "/accessors/0/min/0",
     "key times 0, 1 with min declared -1", ("times",))(gltf(set_at(("accessors", 0, "min"), [-1.0])))
case("times_max_beyond_float32", "ACCESSOR_MAX_MISMATCH", "/accessors/0/max/0",
     "key times 0, 1 with max declared 1e308 (infinity in float32)", ("times",))(
         gltf(set_at(("accessors", 0, "max"), [1e308])))
case("times_without_bounds", "ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS",
     SAMPLER_PTR + "/0/input", "key times without min/max", ("times",))(
         gltf(delete_at(("accessors", 0, "min"))))

# --- output counts against the interpolation ---


def _shorten(index, count):
    def arrays(data):
        data[index] = data[index][:count]
    return arrays


case("count_linear_rotation", "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
     CHANNEL_PTR + "/0/sampler", "LINEAR rotation with 1 value for 2 keys",
     ("count",))(gltf(arrays=_shorten(1, 1)))
case("count_linear_translation_extra", "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
     CHANNEL_PTR + "/1/sampler", "LINEAR translation with 3 values for 2 keys",
     ("count",))(gltf(arrays=lambda d: d[3].append([4, 5, 6])))
case("count_step", "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", CHANNEL_PTR + "/2/sampler",
     "STEP scale with 1 value for 2 keys", ("count",))(gltf(arrays=_shorten(4, 1)))
case("count_cubicspline", "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
     CHANNEL_PTR + "/3/sampler", "CUBICSPLINE translation with 2 values for 2 keys (6 needed)",
     ("count",))(gltf(arrays=_shorten(5, 2)))


def _one_key_cubicspline(document):
    # A one-key input of its own for the CUBICSPLINE sampler, with 3 outputs.
    accessors = document["accessors"]
    accessors.append(dict(accessors[0], count=1))
    accessors[5]["count"] = 3
    document["animations"][0]["samplers"][4]["input"] = len(accessors) - 1


case("cubicspline_one_key", "ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS",
     SAMPLER_PTR + "/4/input", "CUBICSPLINE sampler with one key", ("count",))(
         gltf(_one_key_cubicspline))

# --- CUBICSLERP ---

case("sqlerp_on_translation", "SQLERP_NOT_ROTATION", CHANNEL_PTR + "/3/target/path",
     "a translation channel plays the CUBICSLERP sampler", ("sqlerp",))(
         gltf(set_at(A + ("channels", 3, "extensions"), {EXTENSION: {"sampler": 1}})))
case("sqlerp_on_scale_only", "SQLERP_NOT_ROTATION", CHANNEL_PTR + "/2/target/path",
     "a scale channel plays the CUBICSLERP sampler", ("sqlerp",))(
         gltf(set_at(A + ("channels", 2, "extensions"), {EXTENSION: {"sampler": 1}})))


def _one_key_sqlerp(document):
    accessors = document["accessors"]
    accessors.append(dict(accessors[0], count=1))
    accessors[2]["count"] = 3
    document["animations"][0]["samplers"][1]["input"] = len(accessors) - 1


case("sqlerp_one_key", "SQLERP_TOO_FEW_KEYS", SAMPLER_PTR + "/1/input",
     "a CUBICSLERP sampler with one key (3 quaternions)", ("sqlerp",))(gltf(_one_key_sqlerp))


def _set_row(index, row, value):
    def arrays(data):
        data[index] = list(data[index])
        data[index][row] = value
    return arrays


case("sqlerp_zero_value", "SQLERP_NON_UNIT_QUATERNION", SAMPLER_PTR + "/1/output",
     "CUBICSLERP value v_1 is (0, 0, 0, 0)", ("sqlerp",))(gltf(arrays=_set_row(2, 1, [0, 0, 0, 0])))
case("sqlerp_zero_tangent", "SQLERP_NON_UNIT_QUATERNION", SAMPLER_PTR + "/1/output",
     "CUBICSLERP out-tangent b_1 is (0, 0, 0, 0)", ("sqlerp",))(
         gltf(arrays=_set_row(2, 2, [0, 0, 0, 0])))
case("sqlerp_nan_value", "SQLERP_NON_UNIT_QUATERNION", SAMPLER_PTR + "/1/output",
     "CUBICSLERP value v_2 holds NaN", ("sqlerp",))(
         gltf(arrays=_set_row(2, 4, [0, 0, float("nan"), 1])))
case("sqlerp_infinite_tangent", "SQLERP_NON_UNIT_QUATERNION", SAMPLER_PTR + "/1/output",
     "CUBICSLERP in-tangent a_2 holds infinity", ("sqlerp",))(
         gltf(arrays=_set_row(2, 3, [float("inf"), 0, 0, 1])))
case("sqlerp_count_two_per_key", "SQLERP_INVALID_COUNT", SAMPLER_PTR + "/1/output",
     "CUBICSLERP output of 4 quaternions for 2 keys", ("sqlerp",))(gltf(arrays=_shorten(2, 4)))
case("sqlerp_count_one_per_key", "SQLERP_INVALID_COUNT", SAMPLER_PTR + "/1/output",
     "CUBICSLERP output of 2 quaternions for 2 keys (LINEAR layout)", ("sqlerp",))(
         gltf(arrays=_shorten(2, 2)))
case("sqlerp_vec3_output", "SQLERP_INVALID_FORMAT", SAMPLER_PTR + "/1/output",
     "CUBICSLERP output accessor of VEC3", ("sqlerp",))(
         gltf(set_at(S1 + ("output",), 5)))
case("sqlerp_as_core_sampler", "SQLERP_CORE_SAMPLER", CHANNEL_PTR + "/0/sampler",
     "the CUBICSLERP sampler is the channel's core sampler", ("sqlerp",))(
         gltf(set_at(C0 + ("sampler",), 1)))
case("sqlerp_points_to_linear", "SQLERP_NOT_CUBICSLERP",
     CHANNEL_PTR + f"/0/extensions/{EXTENSION}/sampler",
     "the extension references the LINEAR sampler 0", ("sqlerp",))(
         gltf(set_at(C0 + ("extensions", EXTENSION, "sampler"), 0)))
case("linear_zero_quaternion", "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
     CHANNEL_PTR + "/0/sampler", "LINEAR rotation key (0, 0, 0, 0)", ("sqlerp",))(
         gltf(arrays=_set_row(1, 1, [0, 0, 0, 0])))
case("linear_nan_quaternion", "ACCESSOR_INVALID_FLOAT", "/accessors/1",
     "LINEAR rotation key holding NaN", ("sqlerp",))(
         gltf(arrays=_set_row(1, 0, [float("nan"), 0, 0, 1])))

# --- extensions ---

# (A required extension Blender's importer manages, such as KHR_draco_mesh_compression, imports:
# tools/pointer_files.py's "required_extensions". Meshopt stores buffer data the core cannot read.)
case("extension_required_unknown", "UNSUPPORTED_EXTENSION", "/extensionsRequired/0",
     "extensionsRequired lists EXT_meshopt_compression, whose buffer data the core cannot read",
     ("extensions",))(
         gltf(apply_all(set_at(("extensionsUsed",), [EXTENSION, "EXT_meshopt_compression"]),
                   set_at(("extensionsRequired",), ["EXT_meshopt_compression"]))))
case("extension_required_made_up", "UNSUPPORTED_EXTENSION", "/extensionsRequired/1",
     "extensionsRequired lists ours and a made-up one", ("extensions",))(
         gltf(apply_all(set_at(("extensionsUsed",), [EXTENSION, "XYZ_evil"]),
                   set_at(("extensionsRequired",), [EXTENSION, "XYZ_evil"]))))
case("extension_required_not_string", "ARRAY_TYPE_MISMATCH", "/extensionsRequired/0",
     "extensionsRequired holds an array instead of a name", ("extensions",))(
         gltf(set_at(("extensionsRequired",), [[EXTENSION]])))
case("extension_name_with_nul", "UNDECLARED_EXTENSION", CHANNEL_PTR + "/0/extensions/EXT\0evil",
     "a channel extension named 'EXT<NUL>evil' (the JSON pointer itself holds a NUL)",
     ("extensions",))(gltf(set_at(C0 + ("extensions", "EXT\0evil"), {})))
case("extension_undeclared", "UNDECLARED_EXTENSION", CHANNEL_PTR + f"/0/extensions/{EXTENSION}",
     "the channel uses EXT_animation_sqlerp without extensionsUsed", ("extensions",))(
         gltf(delete_at(("extensionsUsed",))))
