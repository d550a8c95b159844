"""core.conversion.converter on every Khronos sample model here (every form: .gltf, .glb, embedded, quantized):
the output is smaller than the input or nothing is written with a reason; what is written passes
the Khronos glTF-Validator with 0 errors, loads without warnings, keeps every mesh and skin
accessor's values, and plays the original motion within the tolerances in world space.

Independent references: world rotations come from the core's scene evaluation (4x4 matrices
composed through the hierarchy, Scene.global_matrices, every channel of the file played: not the
quaternion composition core.conversion.world measures with), their rotation part by an SVD polar
decomposition written here, at 8 times per original key interval (float64, not the converter's
float32 check times); sizes are the files on disk.
"""

import numpy as np
import pytest
from helpers import ASSETS
from helpers.gltf_validator import errors, validate_all

from gltf_sqlerp import core
from gltf_sqlerp.core.gltf.accessors import read_accessor
from gltf_sqlerp.core.conversion.converter import convert

TOLERANCE, FALLBACK_TOLERANCE = 0.01, 0.1
MODELS = sorted(p for p in (ASSETS / "khronos").rglob("*") if p.suffix in (".gltf", ".glb"))
SAMPLES = 8


def _id(path):
    return f"{path.parent.parent.name}/{path.parent.name}"


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """{source: (report, destination)} of every model at the default tolerances."""
    root = tmp_path_factory.mktemp("converted")
    results = {}
    for source in MODELS:
        destination = root / source.parent.parent.name / source.parent.name / source.name
        destination.parent.mkdir(parents=True)
        results[source] = (convert(source, destination, tolerance_deg=TOLERANCE), destination)
    return results


def test_the_models_are_there():
    names = {p.parent.parent.name for p in MODELS}
    assert {"CesiumMan", "RiggedFigure", "RiggedSimple", "BoxAnimated", "AnimatedCube",
            "InterpolationTest"} <= names and len(MODELS) >= 20


@pytest.mark.parametrize("source", MODELS, ids=_id)
def test_smaller_or_nothing_written_with_a_reason(converted, source):
    report, destination = converted[source]
    if report.written:  # on disk: the file and the buffers it references
        assert report.destination_bytes == _size_with_buffers(destination)
        assert report.destination_bytes < report.source_bytes == _size_with_buffers(source)
    else:
        assert report.reason.startswith("nothing written: ") and len(report.reason) > 30
        assert not destination.exists() and not any(destination.parent.iterdir())


def _size_with_buffers(path):
    gltf = core.load(path).json
    files = [path.parent / b["uri"] for b in gltf.get("buffers", [])
             if "uri" in b and not b["uri"].startswith("data:")]
    return path.stat().st_size + sum(f.stat().st_size for f in files)


def test_the_rigged_models_get_smaller(converted):
    for source, (report, _) in converted.items():
        if source.parent.parent.name in ("CesiumMan", "RiggedSimple", "BoxAnimated"):
            assert report.written, (source, report.reason)
            assert report.converted


def test_written_files_pass_the_validator_and_load_without_warnings(converted):
    written = [destination for report, destination in converted.values() if report.written]
    assert len(written) >= 10
    for destination, result in zip(written, validate_all(written)):
        assert errors(result) == [], destination
        assert core.load(destination).warnings == [], destination


@pytest.mark.parametrize("source", MODELS, ids=_id)
def test_mesh_and_skin_accessors_keep_their_values(converted, source):
    loaded = _written_pair(converted, source)
    if loaded is None:  # nothing written: test_smaller_or_nothing_written_with_a_reason says why
        return
    _, before, after = loaded
    pairs = list(zip(_mesh_accessors(before.json), _mesh_accessors(after.json)))
    assert len(pairs) == len(_mesh_accessors(before.json))
    for old, new in pairs:
        a, b = read_accessor(before.file, old), read_accessor(after.file, new)
        assert a.dtype == b.dtype and np.array_equal(a, b), (old, new)
        keys = ("componentType", "count", "type", "normalized", "min", "max")
        assert {k: before.json["accessors"][old].get(k) for k in keys} == \
            {k: after.json["accessors"][new].get(k) for k in keys}


def _written_pair(converted, source):
    """(the conversion's report, the source and the converted file loaded by the core), or None
    when nothing was written."""
    report, destination = converted[source]
    return (report, core.load(source), core.load(destination)) if report.written else None


def _mesh_accessors(gltf):
    """Accessor indices of every mesh attribute, index list, morph target and skin, in order."""
    found = []
    for mesh in gltf.get("meshes", []):
        for primitive in mesh["primitives"]:
            found += [primitive["attributes"][k] for k in sorted(primitive["attributes"])]
            found += [primitive["indices"]] if "indices" in primitive else []
            for target in primitive.get("targets", []):
                found += [target[k] for k in sorted(target)]
    found += [s["inverseBindMatrices"] for s in gltf.get("skins", []) if "inverseBindMatrices" in s]
    return found


@pytest.mark.parametrize("source", MODELS, ids=_id)
def test_world_rotations_play_the_original_within_the_tolerances(converted, source):
    loaded = _written_pair(converted, source)
    if loaded is None:  # nothing written: test_smaller_or_nothing_written_with_a_reason says why
        return
    report, before, after = loaded
    for animation in range(len(before.animations)):
        times = _sample_times(before.animations[animation])
        exact = _world_rotations(before, animation, times, False)
        for fallback, tolerance in ((False, TOLERANCE), (True, FALLBACK_TOLERANCE)):
            played = _world_rotations(after, animation, times, fallback)
            worst = _angle_deg(exact, played).max()
            assert worst <= tolerance, (source, animation, fallback, worst)
            measured = report.world_max_fallback_deg if fallback else report.world_max_deg
            assert worst <= measured + 1e-4  # the report's figure is honest


def _sample_times(animation):
    """SAMPLES per key interval of every channel, and every key."""
    found = []
    for channel in animation.channels:
        times = channel.sampler.times if channel.fallback is None else channel.fallback.times
        steps = np.arange(SAMPLES) / SAMPLES
        found += [(times[:-1, None] + np.diff(times)[:, None] * steps).ravel(), times]
    return np.unique(np.concatenate(found))


def _world_rotations(document, animation, times, fallback):
    """(T, N, 3, 3) world rotations: every channel played, composed as 4x4 matrices."""
    rest = document.scene.rest_trs()
    trs = {path: np.repeat(value[None], len(times), axis=0)
           for path, value in zip(("translation", "rotation", "scale"), rest)}
    for channel in document.animations[animation].channels:
        if channel.path in trs:
            trs[channel.path][:, channel.node] = channel.evaluate(times, use_fallback=fallback)
    matrices = document.scene.global_matrices(trs["translation"], trs["rotation"], trs["scale"])
    u, _, vt = np.linalg.svd(matrices[..., :3, :3])
    return u @ vt  # the rotation nearest each matrix (scale taken out)


def _angle_deg(a, b):
    cosine = (np.einsum("...ij,...ij->...", a, b) - 1.0) / 2.0
    return np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0)))
