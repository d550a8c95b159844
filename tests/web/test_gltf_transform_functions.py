"""glTF-Transform keeps EXT_animation_sqlerp with viewers/gltf-transform/EXT_animation_sqlerp.js:
each of its functions (copy, dedup, prune, resample, weld, quantize through the API, copy through the
CLI with its config) on each input of helpers.gltf_transform_inputs (the project's sample in every
form, a copy with dense fallbacks, the hostile corpus' valid base file).

What judges the result is outside the code under test: the add-on's core loads each written file
(with its EXT_animation_sqlerp checks) and evaluates every CUBICSLERP curve against the input's, and
the Khronos glTF-Validator (with the extension's schema, tests/helpers/gltf_validator.py) reads each
file. The same runs without our extension, broken samplers and the script API:
test_gltf_transform_extension.py; the CLI's other commands: test_gltf_transform_cli.py.
"""

from pathlib import Path

import numpy as np
import pytest

from helpers.gltf_transform_inputs import EXTENSION, INPUTS, REQUIRED, made_inputs
from helpers.gltf_transform_runs import (TOLERANCE, check_times, cli, cubic_curves, curve_deviations, node_rotation,
                                         output, three_player, transform)
from helpers.gltf_validator import errors, validate_all

from gltf_sqlerp import core

OPERATIONS = ("copy", "dedup", "prune", "resample", "weld", "quantize", "cli copy")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    return made_inputs(tmp_path_factory)


@pytest.fixture(scope="module")
def written(inputs, tmp_path_factory) -> dict[tuple[str, str], tuple[Path, dict]]:
    """(input, operation) -> (written file, transform.mjs's result or the CLI's output)."""
    folder = tmp_path_factory.mktemp("written")
    api = [(name, operation) for name in INPUTS for operation in OPERATIONS if operation != "cli copy"]
    jobs = [{"input": str(inputs[name]), "output": str(output(folder, name, operation)),
             "operation": operation} for name, operation in api]
    result = {key: (Path(job["output"]), outcome) for key, job, outcome in zip(api, jobs, transform(jobs, folder))}
    for name in INPUTS:
        target = output(folder, name, "cli copy")
        done = cli("copy", inputs[name], target)
        said = done.stdout + done.stderr  # the CLI logs its errors to stdout
        outcome = {"messages": [said]} if done.returncode == 0 else {"error": said}
        result[(name, "cli copy")] = (target, outcome)
    return result


@pytest.fixture(scope="module")
def reports(written) -> dict[tuple[str, str], dict]:
    keys = [key for key, (_, outcome) in written.items() if "error" not in outcome]
    return dict(zip(keys, validate_all([written[key][0] for key in keys])))


CASES = [(name, operation) for name in INPUTS for operation in OPERATIONS]


@pytest.mark.parametrize("name, operation", CASES)
def test_every_cubicslerp_curve_plays_as_before(inputs, written, name, operation):
    path, outcome = written[(name, operation)]
    assert "error" not in outcome, outcome["error"][-3000:]
    deviations = curve_deviations(inputs[name], path)
    assert len(deviations) >= 1 and max(deviations.values()) <= TOLERANCE, deviations
    # Our extension warns about nothing in these valid files, and nothing goes unregistered.
    assert not [m for m in outcome["messages"] if f"warn: {EXTENSION}" in m or "registered" in m], outcome["messages"]


@pytest.mark.parametrize("name, operation", CASES)
def test_the_validator_finds_no_error(reports, written, name, operation):
    report = reports[(name, operation)]
    assert errors(report) == []
    document = core.load(str(written[(name, operation)][0])).json
    assert EXTENSION in document["extensionsUsed"]
    # The fallback form stays optional, both required forms stay required.
    assert (EXTENSION in document.get("extensionsRequired", [])) == (name in REQUIRED)
    # Every channel has a core sampler (the draft's form became the schema-valid one) that is not
    # a CUBICSLERP one, and every extension object names a CUBICSLERP sampler of its animation.
    for animation in document["animations"]:
        for channel in animation["channels"]:
            assert animation["samplers"][channel["sampler"]]["interpolation"] != "CUBICSLERP"
            if EXTENSION in channel.get("extensions", {}):
                index = channel["extensions"][EXTENSION]["sampler"]
                assert animation["samplers"][index]["interpolation"] == "CUBICSLERP"


def test_the_required_form_made_here_is_valid(inputs):
    # The fixture behind the "required.gltf" cases: schema-valid (0 validator errors), required,
    # and the core plays the same CUBICSLERP curves as in the fallback form it was made from.
    [report] = validate_all([inputs["required.gltf"]])
    assert errors(report) == []
    assert core.load(str(inputs["required.gltf"])).json["extensionsRequired"] == [EXTENSION]
    assert max(curve_deviations(inputs["fallback.gltf"], inputs["required.gltf"]).values()) == 0.0

def test_resample_leaves_the_cubicslerp_samplers_alone(inputs, written, tmp_path):
    # README, "resample": the CUBICSLERP samplers come out value for value. The dense LINEAR
    # fallbacks lose keys (resample did work on this file) exactly as glTF-Transform alone resamples
    # them. The translation's keys, at the CUBICSLERP key times through the same accessor, shrink to
    # the line's two ends while the CUBICSLERP samplers keep all theirs.
    source = core.load(str(inputs["dense.gltf"]))
    target = core.load(str(written[("dense.gltf", "resample")][0]))
    job = {"input": str(inputs["dense.gltf"]), "output": str(output(tmp_path, "dense.gltf", "resample")),
           "operation": "resample", "extension": False}
    [outcome] = transform([job], tmp_path)
    assert "error" not in outcome
    alone = core.load(job["output"])
    before, after = cubic_curves(source), cubic_curves(target)
    assert before.keys() == after.keys()
    for key, channel in before.items():
        moved = after[key]
        assert np.array_equal(moved.sampler.times, channel.sampler.times)
        assert np.array_equal(moved.sampler.values, channel.sampler.values)
        assert moved.fallback is not None and channel.fallback is not None
        assert len(moved.fallback.times) < len(channel.fallback.times) / 4, key
        at = check_times(channel)
        assert three_player.deviation(moved.evaluate(at, use_fallback=True),
                                      node_rotation(alone, key).evaluate(at)).max() <= TOLERANCE, key
    [line] = [c for c in source.animations[0].channels if c.path == "translation"]
    [moved_line] = [c for c in target.animations[0].channels if c.path == "translation"]
    assert (len(line.sampler.times), len(moved_line.sampler.times)) == (5, 2)
    at = check_times(line)
    assert np.abs(moved_line.evaluate(at) - line.evaluate(at)).max() <= TOLERANCE

def test_the_drafts_form_gets_a_one_key_step_fallback(written):
    # The draft's required form (no core sampler) is written in the schema-valid required form:
    # each such channel's core sampler holds v_1 at t_1, as the spec's "Channel forms" table says.
    document = core.load(str(written[("draft.gltf", "copy")][0]))
    channels = [c for a in document.animations for c in a.channels if c.uses_extension]
    assert len(channels) == 3
    for channel in channels:
        assert channel.fallback is not None and channel.fallback.interpolation == "STEP"
        assert list(channel.fallback.times) == [channel.sampler.times[0]]
        at = channel.sampler.times[:1]
        assert three_player.deviation(channel.evaluate(at, use_fallback=True), channel.evaluate(at)).max() < 1e-7
