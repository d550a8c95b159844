"""KHR_animation_pointer channels (material, light and camera properties) in the real Blender: the
export writes them with fewer keys, each within the property tolerance of what the bundled
exporter writes, and no more bytes.

The job (tests/jobs/export_job.py LOOKS, a child process: Blender 4.2 crashes at exit after its
exporter ran) keys a material's Base Color, Emission Color and Roughness, a spot light's colour,
power and cone and a camera's lens and clip distances (Bezier keys with holds, the far clip
CONSTANT), and exports the scene with Blender's "Animation Pointer" option on, by the bundled
exporter alone and with the add-on, with LINEAR samples (the bundled default) and with STEP ones.
The references are outside the code under test: the bundled exporter's own files (their keys are
Blender's values at every frame), read and played here with plain json and numpy, the README's
tolerance rule worked here, and the Khronos glTF-Validator.
"""

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from helpers import gltf_validator, run_job
from helpers import JOBS

pytestmark = pytest.mark.blender

JOB = JOBS / "export_job.py"
FPS = 24.0
FIRST, LAST = 1, 72          # the job's frame range
PER_FRAME = 8                # check times per frame: every frame and half frame among them
FRACTION = 1e-4              # the property tolerance's default (docs/manual/export.md)
POINTERS = {"/materials/0/pbrMetallicRoughness/baseColorFactor", "/materials/0/emissiveFactor",
            "/materials/0/pbrMetallicRoughness/roughnessFactor",
            "/extensions/KHR_lights_punctual/lights/0/color", "/extensions/KHR_lights_punctual/lights/0/intensity",
            "/extensions/KHR_lights_punctual/lights/0/spot.outerConeAngle",
            "/cameras/0/perspective/yfov", "/cameras/0/perspective/znear", "/cameras/0/perspective/zfar"}
# Blender 5.3 writes the spot's inner cone too (Blender's spot blend is a share of the cone).
OPTIONAL = {"/extensions/KHR_lights_punctual/lights/0/spot.innerConeAngle"}
_TYPES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}


@pytest.fixture(scope="module")
def looks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("looks")
    result = run_job(JOB, folder, "LOOKS")
    result["folder"] = folder
    return result


def read_glb(path):
    """(JSON document, binary chunk) of a .glb, by the container's layout (glTF 2.0, 4.4)."""
    data = Path(path).read_bytes()
    magic, _, length = struct.unpack_from("<4sII", data, 0)
    assert magic == b"glTF" and length == len(data)
    json_length, _ = struct.unpack_from("<II", data, 12)
    document = json.loads(data[20:20 + json_length])
    bin_length, _ = struct.unpack_from("<II", data, 20 + json_length)
    start = 28 + json_length
    return document, data[start:start + bin_length]


def accessor(document, blob, index):
    """A float accessor as a (count, width) float64 array."""
    found = document["accessors"][index]
    assert found["componentType"] == 5126 and "sparse" not in found
    view = document["bufferViews"][found["bufferView"]]
    width = _TYPES[found["type"]]
    assert view.get("byteStride", 4 * width) == 4 * width
    start = view.get("byteOffset", 0) + found.get("byteOffset", 0)
    return np.frombuffer(blob, "<f4", found["count"] * width, start).astype(np.float64).reshape(-1, width)


def pointer_samplers(path):
    """{pointer: (interpolation, times (n,), values (n, d))} of every KHR_animation_pointer channel."""
    document, blob = read_glb(path)
    found = {}
    for animation in document["animations"]:
        for channel in animation["channels"]:
            target = channel["target"]
            if target["path"] != "pointer":
                continue
            pointer = target["extensions"]["KHR_animation_pointer"]["pointer"]
            sampler = animation["samplers"][channel["sampler"]]
            times = accessor(document, blob, sampler["input"])[:, 0]
            values = accessor(document, blob, sampler["output"])
            assert pointer not in found
            found[pointer] = (sampler.get("interpolation", "LINEAR"), times, values.reshape(len(times), -1))
    return found


def play(sampler, at):
    """What a reader plays at the times ``at`` (glTF 2.0 Appendix C: clamped ends)."""
    interpolation, times, values = sampler
    if interpolation == "STEP" or len(times) == 1:
        return values[np.clip(np.searchsorted(times, at, side="right") - 1, 0, None)]
    assert interpolation == "LINEAR"
    return np.stack([np.interp(at, times, values[:, c]) for c in range(values.shape[1])], axis=1)


def check_times():
    """Seconds of PER_FRAME checks per frame over the range: every frame and half frame among them."""
    return (FIRST + np.arange((LAST - FIRST) * PER_FRAME + 1) / PER_FRAME) / FPS


def tolerance(values):
    """The README's rule: the fraction of max(1, the largest magnitude over the clip), per component."""
    return FRACTION * max(1.0, float(np.abs(values).max()))


def test_the_job_reduced_every_pointer_channel(looks):
    assert looks["error"] == ""
    paths = {p["path"] for p in looks["properties"]}
    written = set(pointer_samplers(looks["folder"] / "bundled.glb"))
    assert POINTERS <= written <= POINTERS | OPTIONAL
    assert {p.replace("/0/", "/{}/") for p in written} == paths
    assert [p["skipped"] for p in looks["properties"]] == [""] * len(looks["properties"])


@pytest.mark.parametrize("form", ["LINEAR", "STEP"])
def test_pointer_channels_play_within_the_tolerance_with_fewer_keys_and_bytes(looks, form):
    if form == "STEP" and not looks["step"]:
        # Blender 4.2's exporter has no STEP sampling (export_sampling_interpolation_fallback came
        # in 4.4): nothing STEP to reduce there, and nothing written but the LINEAR files.
        import bpy
        assert tuple(bpy.app.version[:2]) < (4, 4)
        assert not (looks["folder"] / "ours_step.glb").exists()
        return
    suffix = "" if form == "LINEAR" else "_step"
    bundled_path, ours_path = (looks["folder"] / f"{name}{suffix}.glb" for name in ("bundled", "ours"))
    bundled, ours = pointer_samplers(bundled_path), pointer_samplers(ours_path)
    assert set(bundled) == set(ours) and POINTERS <= set(ours) <= POINTERS | OPTIONAL
    at = check_times()
    keys = {}
    for pointer, reference in bundled.items():
        interpolation, times, values = reference
        assert interpolation == form and len(times) == LAST - FIRST + 1  # a key per frame
        assert np.allclose(times * FPS, np.arange(FIRST, LAST + 1), atol=1e-4)
        bound = tolerance(values)
        error = np.abs(play(ours[pointer], at) - play(reference, at)).max()
        # The reduced keys are the bundled exporter's own float32 keys: only float64 rounding added.
        assert error <= bound * (1 + 1e-9), (pointer, error, bound)
        assert ours[pointer][0] == form or len(ours[pointer][1]) <= 2  # a still channel: STEP
        keys[pointer] = (len(ours[pointer][1]), len(times))
        assert keys[pointer][0] < keys[pointer][1], (pointer, keys[pointer])
    sizes = {name: path.stat().st_size for name, path in (("bundled", bundled_path), ("ours", ours_path))}
    assert sizes["ours"] <= sizes["bundled"], (sizes, keys)
    reports = gltf_validator.validate_all([bundled_path, ours_path])
    assert [gltf_validator.errors(report) for report in reports] == [[], []]


def test_a_gltf_with_a_separate_bin_is_no_larger_either(looks):
    """Indented JSON costs more per accessor than a GLB's: the shared inputs still pay."""
    sizes = {}
    for name in ("bundled", "ours"):
        path = looks["folder"] / f"{name}_separate.gltf"
        document = json.loads(path.read_text())
        sizes[name] = path.stat().st_size + sum((path.parent / b["uri"]).stat().st_size
                                                for b in document["buffers"])
    assert sizes["ours"] <= sizes["bundled"], sizes
    reports = gltf_validator.validate_all([looks["folder"] / f"{n}_separate.gltf" for n in ("bundled", "ours")])
    assert [gltf_validator.errors(report) for report in reports] == [[], []]


def test_a_looser_tolerance_writes_fewer_keys(looks):
    """The option is the one property tolerance: ten times looser, fewer keys still in its bound."""
    ours, looser = (pointer_samplers(looks["folder"] / name) for name in ("ours.glb", "ours_loose.glb"))
    bundled = pointer_samplers(looks["folder"] / "bundled.glb")
    at = check_times()
    for pointer, reference in bundled.items():
        bound = 10 * tolerance(reference[2])
        assert np.abs(play(looser[pointer], at) - play(reference, at)).max() <= bound * (1 + 1e-9)
    assert sum(len(s[1]) for s in looser.values()) < sum(len(s[1]) for s in ours.values())
