"""What viewers/gltf-transform/EXT_animation_sqlerp.js adds to glTF-Transform, and what it does
with what breaks the rules: the control (glTF-Transform alone loses every CUBICSLERP curve and
refuses the required forms, its CLI too without our config), hostile corpus samplers that break a
rule of the extension, and the README's script API building the required form.

What judges the result is outside the code under test: the add-on's core loads each written file
(with its EXT_animation_sqlerp checks) and evaluates every CUBICSLERP curve against the input's or
against values worked out by hand, and the Khronos glTF-Validator (with the extension's schema,
tests/helpers/gltf_validator.py) reads each file. Every function on every input:
test_gltf_transform_functions.py.
"""

from pathlib import Path

import numpy as np
import pytest

from helpers.child_job import TESTS
from helpers.gltf_transform_inputs import EXTENSION, corpus, made_inputs
from helpers.gltf_transform_runs import (TOLERANCE, check_times, cubic_curves, curve_deviations, node_rotation,
                                         output, run_node, three_player, transform)
from helpers.gltf_validator import errors, modules_folder, validate_all

from gltf_sqlerp import core


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    return made_inputs(tmp_path_factory)


def test_without_our_extension_the_curves_are_lost(inputs, tmp_path):
    # The control: glTF-Transform alone. The checks of test_gltf_transform_functions.py see what it
    # loses: the fallback form keeps no curve (the nodes play the LINEAR fallback, off the curve by
    # more than the tolerance), the validator reports the orphaned CUBICSLERP samplers, and the
    # required forms are refused.
    names = ("fallback.gltf", "required.gltf", "draft.gltf")
    jobs = [{"input": str(inputs[name]), "output": str(output(tmp_path, name, "copy")), "operation": "copy",
             "extension": False} for name in names]
    fallback, required, draft = transform(jobs, tmp_path)
    assert "error" not in fallback
    written = Path(jobs[0]["output"])
    assert list(curve_deviations(inputs[names[0]], written).values()) == [float("inf")] * 3
    source, alone = core.load(str(inputs[names[0]])), core.load(str(written))
    assert EXTENSION not in alone.json.get("extensionsUsed", [])
    assert _played_off_the_curve(source, alone) > 1e-4
    [report] = validate_all([written])
    assert {"VALUE_NOT_IN_LIST", "UNUSED_OBJECT"} <= {m["code"] for m in report["issues"]["messages"]}
    for refused in (required, draft):
        assert f'Missing required extension, "{EXTENSION}"' in refused["error"]


def _played_off_the_curve(source, target) -> float:
    """Largest deviation of what ``target`` plays on each node from ``source``'s CUBICSLERP curves."""
    worst = 0.0
    for key, channel in cubic_curves(source).items():
        at = check_times(channel)
        played = node_rotation(target, key).evaluate(at)
        worst = max(worst, float(three_player.deviation(played, channel.evaluate(at)).max()))
    return worst


def test_the_cli_without_our_config_refuses_the_required_form(inputs, tmp_path):
    script = modules_folder() / "@gltf-transform" / "cli" / "bin" / "cli.js"
    done = run_node([str(script), "copy", str(inputs["required.gltf"]), str(tmp_path / "out.gltf")], tmp_path)
    assert done.returncode != 0 and f'Missing required extension, "{EXTENSION}"' in done.stdout + done.stderr

# Hostile corpus cases whose extension object names no sampler of the animation: dropped on reading.
UNRESOLVED = {"type_sqlerp_sampler_string", "index_sqlerp_sampler_out_of_range"}
# Cases whose CUBICSLERP sampler exists but breaks a rule: kept as they are, with a warning.
BROKEN = {"sqlerp_on_translation", "sqlerp_on_scale_only", "sqlerp_one_key", "sqlerp_zero_value",
          "sqlerp_zero_tangent", "sqlerp_nan_value", "sqlerp_infinite_tangent", "sqlerp_count_two_per_key",
          "sqlerp_count_one_per_key", "sqlerp_vec3_output", "sqlerp_points_to_linear"}


def test_a_sampler_that_breaks_the_rules(tmp_path):
    # The rule of viewers/three/EXT_animation_sqlerp.js: such a channel plays its core sampler. A
    # reference the graph cannot hold is dropped with a warning; the file then plays its core
    # sampler everywhere (the base file's LINEAR fallback) and is valid. Any other broken sampler is
    # written as it was, with a warning: the core refuses the written file with the same error.
    cases = [case for case in corpus.CASES if case.name in UNRESOLVED | BROKEN]
    assert {case.name for case in cases} == UNRESOLVED | BROKEN
    sources = [Path(corpus.write_case(case, tmp_path / case.name)) for case in cases]
    jobs = [{"input": str(source), "output": str(source.parent / ("out" + source.suffix)), "operation": "copy"}
            for source in sources]
    base = core.load(corpus.write_base(tmp_path / "base"))
    [rotation] = [c for c in base.animations[0].channels if c.uses_extension]
    at = np.linspace(-0.25, 1.25, 61)
    for case, job, outcome in zip(cases, jobs, transform(jobs, tmp_path)):
        assert "error" not in outcome, (case.name, outcome["error"][-2000:])
        assert any(m.startswith("warn: EXT_animation_sqlerp") for m in outcome["messages"]), case.name
        if case.name in UNRESOLVED:
            written = core.load(job["output"])
            [played] = [c for c in written.animations[0].channels if c.node == rotation.node and c.path == "rotation"]
            assert not played.uses_extension
            deviation = three_player.deviation(played.evaluate(at), rotation.evaluate(at, use_fallback=True))
            assert deviation.max() <= TOLERANCE, case.name
            assert errors(validate_all([job["output"]])[0]) == [], case.name
        else:
            with pytest.raises(core.GltfError) as refused:
                core.load(job["output"])
            assert case.code in {finding.code for finding in refused.value.findings}, case.name


def _about_z(degrees: float) -> list[float]:
    half = np.radians(degrees) / 2
    return [0.0, 0.0, float(np.sin(half)), float(np.cos(half))]


def test_a_script_builds_the_required_form(tmp_path):
    # The README's script API (createExtension, createAnimationSqlerp, setSampler) in build.mjs: one
    # node turned about Z, v_1 = 0 and v_2 = 90 degrees, b_1 = a_2 = 45 degrees. By hand (as in
    # tests/web/test_three_player.py): at u the keys' slerp is 90u degrees, the tangents' 45, and the
    # outer slerp goes 2u(1 - u) of the way: 30.9375 degrees at u = 1/4, 45 at 1/2, 59.0625 at 3/4.
    path = tmp_path / "turned.gltf"
    done = run_node([str(TESTS / "gltf_transform" / "build.mjs"), str(path)], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    document = core.load(str(path))
    assert document.json["extensionsRequired"] == [EXTENSION]
    [channel] = document.animations[0].channels
    assert channel.uses_extension and channel.fallback is not None and channel.fallback.interpolation == "STEP"
    at = np.array([-0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5])
    wanted = np.array([_about_z(d) for d in (0.0, 0.0, 30.9375, 45.0, 59.0625, 90.0, 90.0)])
    assert three_player.deviation(channel.evaluate(at), wanted).max() < 1e-7
    [report] = validate_all([path])
    assert errors(report) == []
