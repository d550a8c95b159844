"""core.gltf.accessors.read_accessor on the Khronos sample models in the shared assets.

Expected values come from the models themselves: the JSON min/max of each accessor, the same model
stored as .gltf, .glb, embedded and KHR_mesh_quantization variants, inverse bind matrices that must
be affine, and BoxAnimated's key times as its JSON states them.
"""

import numpy as np
import pytest

from helpers.accessor_files import FLOAT, UNSIGNED_BYTE

from gltf_sqlerp.core.gltf.accessors import read_accessor
from gltf_sqlerp.core.gltf.file import read_file

KHRONOS = "khronos"

MODELS = ["AnimatedCube/glTF/AnimatedCube.gltf",
          "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
          "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb",
          "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
          "AnimatedTriangle/glTF/AnimatedTriangle.gltf",
          "AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf",
          "BoxAnimated/glTF/BoxAnimated.gltf",
          "BoxAnimated/glTF-Binary/BoxAnimated.glb",
          "BoxAnimated/glTF-Embedded/BoxAnimated.gltf",
          "CesiumMan/glTF/CesiumMan.gltf",
          "CesiumMan/glTF-Binary/CesiumMan.glb",
          "InterpolationTest/glTF/InterpolationTest.gltf",
          "InterpolationTest/glTF-Binary/InterpolationTest.glb",
          "RiggedFigure/glTF/RiggedFigure.gltf",
          "RiggedFigure/glTF-Binary/RiggedFigure.glb",
          "RiggedSimple/glTF/RiggedSimple.gltf",
          "RiggedSimple/glTF-Binary/RiggedSimple.glb",
          "SimpleMorph/glTF/SimpleMorph.gltf",
          "SimpleMorph/glTF-Embedded/SimpleMorph.gltf",
          "SimpleSkin/glTF/SimpleSkin.gltf",
          "SimpleSkin/glTF-Embedded/SimpleSkin.gltf"]

VARIANTS = [("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", "AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"),
            ("AnimatedTriangle/glTF/AnimatedTriangle.gltf", "AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf"),
            ("BoxAnimated/glTF/BoxAnimated.gltf", "BoxAnimated/glTF-Binary/BoxAnimated.glb"),
            ("BoxAnimated/glTF/BoxAnimated.gltf", "BoxAnimated/glTF-Embedded/BoxAnimated.gltf"),
            ("CesiumMan/glTF/CesiumMan.gltf", "CesiumMan/glTF-Binary/CesiumMan.glb"),
            ("InterpolationTest/glTF/InterpolationTest.gltf", "InterpolationTest/glTF-Binary/InterpolationTest.glb"),
            ("RiggedFigure/glTF/RiggedFigure.gltf", "RiggedFigure/glTF-Binary/RiggedFigure.glb"),
            ("RiggedSimple/glTF/RiggedSimple.gltf", "RiggedSimple/glTF-Binary/RiggedSimple.glb"),
            ("SimpleMorph/glTF/SimpleMorph.gltf", "SimpleMorph/glTF-Embedded/SimpleMorph.gltf"),
            ("SimpleSkin/glTF/SimpleSkin.gltf", "SimpleSkin/glTF-Embedded/SimpleSkin.gltf")]


@pytest.fixture(scope="module")
def khronos(shared_assets):
    return lambda relative: read_file(shared_assets / KHRONOS / relative)


@pytest.mark.parametrize("first, second", VARIANTS, ids=[a.split("/")[0] + "-" + b.split("/")[1]
                                                         for a, b in VARIANTS])
def test_variants_of_a_model_decode_to_identical_arrays(khronos, first, second):
    a, b = khronos(first), khronos(second)
    items = a.json["accessors"]
    assert len(items) == len(b.json["accessors"])
    for index, item in enumerate(items):
        other = b.json["accessors"][index]
        assert (item["type"], item["componentType"], item["count"]) == \
               (other["type"], other["componentType"], other["count"])
        left, right = read_accessor(a, index), read_accessor(b, index)
        assert left.dtype == right.dtype and np.array_equal(left, right), index


@pytest.mark.parametrize("relative", MODELS)
def test_decoded_values_match_the_json_min_and_max(khronos, relative):
    # Exporters write each accessor's per-component bounds; for matrices they are in storage
    # (column-major) order, so this also checks the matrix layout on real data.
    file = khronos(relative)
    checked = 0
    for index, item in enumerate(file.json["accessors"]):
        if "min" not in item or item.get("normalized"):
            continue
        values = read_accessor(file, index)
        if values.ndim == 3:
            values = values.transpose(0, 2, 1)
        values = values.reshape(len(values), -1)
        for key, reduce in (("min", np.min), ("max", np.max)):
            expected = np.asarray(item[key], dtype=np.float64)
            if item["componentType"] == FLOAT:  # bounds are single precision (spec §3.6.2.5)
                expected = expected.astype(np.float32).astype(np.float64)
            assert reduce(values, axis=0).tolist() == expected.tolist(), (index, key)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("model", ["CesiumMan", "RiggedFigure", "RiggedSimple", "SimpleSkin"])
def test_inverse_bind_matrices_are_affine(khronos, model):
    # Inverse bind matrices are rigid/affine: bottom row (0, 0, 0, 1), translation in column 3.
    file = khronos(f"{model}/glTF/{model}.gltf")
    for skin in file.json["skins"]:
        matrices = read_accessor(file, skin["inverseBindMatrices"])
        assert matrices.shape == (len(skin["joints"]), 4, 4)
        assert np.array_equal(matrices[:, 3, :], np.tile([0.0, 0.0, 0.0, 1.0], (len(matrices), 1)))
        assert np.abs(np.linalg.det(matrices)).min() > 1e-6


def test_box_animated_key_times_and_values(khronos):
    file = khronos("BoxAnimated/glTF/BoxAnimated.gltf")
    animation = file.json["animations"][0]
    for sampler in animation["samplers"]:
        item = file.json["accessors"][sampler["input"]]
        times = read_accessor(file, sampler["input"])[:, 0]
        assert times.shape == (item["count"],)
        assert times[0] == np.float32(item["min"][0]) and times[-1] == np.float32(item["max"][0])
        assert np.all(np.diff(times) > 0)
    rotation_times = read_accessor(file, animation["samplers"][0]["input"])[:, 0]
    assert rotation_times.tolist() == [1.25, 2.5]  # count 2, min 1.25, max 2.5 in the JSON
    rotations = read_accessor(file, animation["samplers"][0]["output"])
    assert rotations.shape == (2, 4)
    assert np.linalg.norm(rotations, axis=1) == pytest.approx([1.0, 1.0], abs=1e-6)
    translations = read_accessor(file, animation["samplers"][1]["output"])
    assert translations.shape == (4, 3) and translations[0].tolist() == [0.0, 0.0, 0.0]


def test_quantized_morph_cube_matches_the_float_model(khronos):
    quantized = khronos("AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf")
    floats = khronos("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")
    q_sampler = quantized.json["animations"][0]["samplers"][0]
    f_sampler = floats.json["animations"][0]["samplers"][0]
    assert quantized.json["accessors"][q_sampler["output"]] == {
        "bufferView": 4, "byteOffset": 0, "componentType": UNSIGNED_BYTE, "count": 254,
        "type": "SCALAR", "normalized": True}

    weights_q = read_accessor(quantized, q_sampler["output"])
    weights_f = read_accessor(floats, f_sampler["output"])
    assert weights_q.dtype == np.float64 and weights_q.shape == weights_f.shape == (254, 1)
    assert np.abs(weights_q - weights_f).max() <= 1 / 255  # within one quantization step
    assert np.abs(weights_q - weights_f).max() > 0  # they really are different encodings
    times_q = read_accessor(quantized, q_sampler["input"])
    times_f = read_accessor(floats, f_sampler["input"])
    assert times_q == pytest.approx(times_f, abs=1e-5)


def test_quantized_morph_cube_positions_dequantize_to_the_float_cube(khronos):
    # KHR_mesh_quantization: ushort positions (stride 8) scaled by the mesh node's scale and offset
    # by its translation give the float model's triangles (vertex order differs between files).
    quantized = khronos("AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf")
    floats = khronos("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")
    node = quantized.json["nodes"][0]

    def triangles(file, scale: np.ndarray | float = 1.0, offset: np.ndarray | float = 0.0):
        primitive = file.json["meshes"][0]["primitives"][0]
        positions = read_accessor(file, primitive["attributes"]["POSITION"]) * scale + offset
        indices = read_accessor(file, primitive["indices"])[:, 0]
        corners = np.round(positions[indices] / 1e-4).astype(int).reshape(-1, 3, 3)
        return sorted(tuple(sorted(map(tuple, triangle))) for triangle in corners)

    dequantized = triangles(quantized, np.array(node["scale"]), np.array(node["translation"]))
    assert dequantized == triangles(floats)
    assert len(dequantized) == 12  # a cube: 6 faces of 2 triangles
