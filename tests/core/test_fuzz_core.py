"""Fuzzing the core's glTF reader (issue 6): every malformed or hostile input gets a GltfError.

The property (tests/helpers/fuzz_property.py: ``run_case``): ``core.load`` of a mutated seed file either
succeeds or raises GltfError with a code, a JSON pointer and a message; a loaded document evaluates
every channel, poses and meshes raising nothing but GltfError; no input runs longer than
TIME_LIMIT_S (an interval timer interrupts it: a hang fails instead of stalling the suite), and the
tracemalloc peak of one input stays under MEMORY_LIMIT_MB. The seeds are tiny (the largest is
~20 kB of buffers), so anything near the bound means a hostile length was trusted: the accessor
reader's own cap for unbacked data is 2^24 elements (128 MB as float64), the largest legal
allocation, and 256 MB leaves room for it plus its float64 decoding.

A bounded, reproducible run here (derandomized: the same inputs every time); the long campaign is
``python dev.py run bench/fuzz_campaign.py --minutes 10``. Inputs that escaped once stay below as
plain regression tests.
"""

import copy

import pytest
from hypothesis import HealthCheck, given, settings

from helpers import fuzz_strategies as fs
from gltf_sqlerp import core
from gltf_sqlerp.core.gltf.validation.json_checks import MAX_FINDINGS

MEMORY_LIMIT_MB = 256
TIME_LIMIT_S = 5.0
EXAMPLES = 300


@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=fs.cases())
def test_core_raises_only_gltf_errors(case, tmp_path_factory):
    # deadline=None: the interval timer in run_case is the per-input limit; it interrupts a hang
    # where hypothesis' deadline would only report one after it ended.
    folder = tmp_path_factory.mktemp("fuzz", numbered=True)
    fs.run_case(core, case, folder, MEMORY_LIMIT_MB, TIME_LIMIT_S)


def _seed_case(name, edit):
    seed = next(s for s in fs.SEEDS if s.name == name)
    case = fs.Case(seed.name, seed.kind, copy.deepcopy(seed.json), seed.bin, dict(seed.files))
    edit(case.json)
    case.steps.append(edit.__doc__)
    return case


def _outcome(case, tmp_path):
    return fs.run_case(core, case, tmp_path, MEMORY_LIMIT_MB, TIME_LIMIT_S)[0]


# --- regressions: inputs the fuzzer found escaping (minimized by hand) ---------------------------

def test_non_string_required_extension_is_an_array_type_mismatch(tmp_path):
    def edit(json):
        """extensionsRequired = [[]]"""
        json["extensionsRequired"] = [[]]
    # was: TypeError (unhashable list looked up in a set) in core/document.py; the validator's code
    assert _outcome(_seed_case("valid.gltf", edit), tmp_path) == "GltfError:ARRAY_TYPE_MISMATCH"


def test_many_duplicate_targets_stay_linear(tmp_path):
    def edit(json):
        """2,500 copies of channel 0"""
        json["animations"][0]["channels"] *= 2500
    # was: 3 million ANIMATION_DUPLICATE_TARGETS findings (one per pair), > 10 s and ~1 GB
    case = _seed_case("sampler_output_count_invalid.gltf", edit)
    outcome, peak, seconds = fs.run_case(core, case, tmp_path, MEMORY_LIMIT_MB, TIME_LIMIT_S)
    assert outcome.startswith("GltfError:") and seconds < 2.0 and peak < 64 * 2**20
    error = pytest.raises(core.GltfError, core.load, case.write(tmp_path)).value
    duplicates = [f for f in error.findings if f.code == "ANIMATION_DUPLICATE_TARGETS"]
    assert "2483 more channels after channel 16" in duplicates[16].message


def test_fallback_with_unknown_interpolation_is_ignored(tmp_path):
    def edit(json):
        """the LINEAR fallback of a CUBICSLERP channel gets interpolation ''"""
        json["animations"][0]["samplers"][1]["interpolation"] = ""
    # was: ValueError from interpolation.Evaluator on channel.evaluate(..., use_fallback=True)
    case = _seed_case("sqlerp_arm.gltf", edit)
    assert _outcome(case, tmp_path) == "ok"
    document = core.load(case.write(tmp_path))
    channel = document.animations[0].channels[0]
    assert channel.fallback is None and channel.sampler.interpolation == "CUBICSLERP"
    assert any(w.code == "VALUE_NOT_IN_LIST" for w in document.warnings)


@pytest.mark.parametrize("primitive, code", [
    ({"attributes": None}, "TYPE_MISMATCH"), ({"targets": 3}, "TYPE_MISMATCH"),
    ({"targets": [1]}, "ARRAY_TYPE_MISMATCH")])
def test_shapeless_primitive_is_refused_with_the_validators_code(tmp_path, primitive, code):
    def edit(json):
        """mesh 0 primitive 0 with a non-object attributes / non-array targets"""
        json["meshes"][0]["primitives"][0].update(primitive)
    # was: TypeError in Scene (len(targets)) or in mesh_positions ('in' on None)
    assert _outcome(_seed_case("SimpleSkin.gltf", edit), tmp_path) == f"GltfError:{code}"


def test_findings_are_capped(tmp_path):
    def edit(json):
        """30,000 empty channels"""
        json["animations"][0]["channels"] = [{} for _ in range(30_000)]
    # was: 4 findings per channel kept (515,000 for 2.7 MB of them: 200 MB, 9 s)
    case = _seed_case("valid.gltf", edit)
    outcome, peak, _ = fs.run_case(core, case, tmp_path, MEMORY_LIMIT_MB, TIME_LIMIT_S)
    assert outcome == "GltfError:UNDEFINED_PROPERTY" and peak < 64 * 2**20
    error = pytest.raises(core.GltfError, core.load, case.write(tmp_path)).value
    assert len(error.findings) == MAX_FINDINGS
