"""glTF-Transform keeps EXT_animation_sqlerp with viewers/gltf-transform/EXT_animation_sqlerp.js.

glTF-Transform (@gltf-transform/core, extensions, functions and cli, pinned in
tests/validator/package.json and installed into .node/ by dev.py) runs under Node.js:
tests/gltf_transform/transform.mjs reads each file with NodeIO, our extension registered, runs one
function with its defaults and writes the result; the CLI runs `copy` with
viewers/gltf-transform/gltf-transform.config.mjs. The files: the project's sample in its fallback
form (.gltf and .glb) and in the draft's required form, and, made here from the fallback form, the
schema-valid required form, a copy with dense LINEAR fallbacks that resample can thin, and a copy
whose channels target their nodes through KHR_animation_pointer; and the hostile corpus' valid
base file (a CUBICSLERP sampler sharing its key times with every other sampler, an animated mesh
node).

What judges the result is outside the code under test: the add-on's core loads each written file
(with its EXT_animation_sqlerp checks) and evaluates every CUBICSLERP curve against the input's, the
Khronos glTF-Validator (with the extension's schema, tests/helpers/gltf_validator.py) reads each file, and
the same runs without our extension show that these checks see what glTF-Transform alone loses.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers.child_job import ROOT, tool
from helpers.gltf_validator import errors, modules_folder, validate_all
from helpers import JOBS, TESTS

from gltf_sqlerp import core
from gltf_sqlerp.core.gltf import read_file

three_player = tool("tools/three_player.py")
corpus = tool("tools/hostile_corpus.py")

HERE = TESTS  # the data folders gltf_transform/ and validator/
SCRIPT = HERE / "gltf_transform" / "transform.mjs"
HOOKS = HERE / "gltf_transform" / "resolve_modules.mjs"
CONFIG = ROOT / "viewers" / "gltf-transform" / "gltf-transform.config.mjs"
PACKAGE_JSON = HERE / "validator" / "package.json"
VARIABLE = "GLTF_SQLERP_VALIDATOR"
SAMPLES = ROOT / "samples"
EXTENSION = "EXT_animation_sqlerp"
POINTER = "KHR_animation_pointer"
TOLERANCE = 1e-6  # |written curve - input curve| per quaternion component, as for the three.js player
TIMEOUT = 600  # seconds for one run of Node.js
OPERATIONS = ("copy", "dedup", "prune", "resample", "weld", "quantize", "cli copy")
INPUTS = ("fallback.gltf", "fallback.glb", "draft.gltf", "required.gltf", "dense.gltf", "pointer.gltf",
          "hostile_base.gltf")
REQUIRED = ("draft.gltf", "required.gltf")  # the inputs that list the extension as required


# ----- running glTF-Transform ---------------------------------------------------------------------

def _node() -> tuple[str, Path]:
    node, modules = shutil.which("node"), modules_folder()
    pinned = json.loads(PACKAGE_JSON.read_text())["dependencies"]["@gltf-transform/core"]
    manifest = modules / "@gltf-transform" / "core" / "package.json"
    installed = json.loads(manifest.read_text()).get("version") if manifest.exists() else None
    if node is None or installed != pinned:
        pytest.fail(f"Node.js and @gltf-transform/core {pinned} are needed in {modules} (found {installed}): "
                    "`python dev.py test` installs them")
    return node, modules


def _run_node(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess:
    node, modules = _node()
    return subprocess.run([node, "--import", HOOKS.as_uri(), *arguments], cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                          env={**os.environ, VARIABLE: str(modules)})


def transform(jobs: list[dict], folder: Path) -> list[dict]:
    """transform.mjs over ``jobs`` (input, output, operation, extension) in one Node.js process."""
    job_path = folder / "jobs.json"
    job_path.write_text(json.dumps(jobs))
    done = _run_node([str(SCRIPT), str(job_path)], folder)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def cli(command: str, source: Path, target: Path, *options: str) -> subprocess.CompletedProcess:
    """`gltf-transform <command> source target [options] --config gltf-transform.config.mjs`."""
    script = modules_folder() / "@gltf-transform" / "cli" / "bin" / "cli.js"
    arguments = [str(script), command, str(source), str(target), *options, "--config", str(CONFIG)]
    return _run_node(arguments, target.parent)


# ----- the input files ----------------------------------------------------------------------------

def required_form(source: Path, folder: Path) -> Path:
    """The schema-valid required form of a fallback-form .gltf, by hand: each extension channel's
    core sampler becomes one STEP key at t_1 holding v_1, and the file requires the extension."""
    document, blob, played = _open(source)
    for a, animation in enumerate(document["animations"]):
        for channel in (c for c in played.animations[a].channels if c.uses_extension):
            cubic = channel.sampler
            animation["samplers"][_spec(animation, channel)["sampler"]] = {
                "input": _append(document, blob, [cubic.times[0]], "SCALAR"),
                "output": _append(document, blob, cubic.keys[0], "VEC4"), "interpolation": "STEP"}
    document["extensionsRequired"] = [EXTENSION]
    return _save(document, blob, folder / "required.gltf")


def dense_form(source: Path, folder: Path) -> Path:
    """A fallback-form .gltf that resample has work to do on, by hand: each extension channel's
    fallback becomes LINEAR keys of its CUBICSLERP curve at 240 per second, and the translation
    channel moves along a straight line keyed at the CUBICSLERP key times, sharing their accessor."""
    document, blob, played = _open(source)
    for a, animation in enumerate(document["animations"]):
        for channel in played.animations[a].channels:
            spec = _spec(animation, channel)
            if channel.uses_extension:
                at = np.linspace(0.0, channel.sampler.times[-1], int(channel.sampler.times[-1] * 240) + 1)
                animation["samplers"][spec["sampler"]] = {
                    "input": _append(document, blob, at, "SCALAR"),
                    "output": _append(document, blob, channel.evaluate(at), "VEC4"), "interpolation": "LINEAR"}
            elif channel.path == "translation":
                shared = next(s["input"] for s in animation["samplers"] if s["interpolation"] == "CUBICSLERP")
                line = np.outer(played.accessor(shared)[:, 0], [0.0, 0.5, 0.0])
                animation["samplers"][spec["sampler"]] = {
                    "input": shared, "output": _append(document, blob, line, "VEC3"), "interpolation": "LINEAR"}
    return _save(document, blob, folder / "dense.gltf")


def pointer_form(source: Path, folder: Path) -> Path:
    """The fallback form with each extension channel's target written as a KHR_animation_pointer to
    "/nodes/{i}/rotation", which the spec allows and the core plays as the node channel."""
    document, blob, _ = _open(source)
    for animation in document["animations"]:
        for channel in (c for c in animation["channels"] if EXTENSION in c.get("extensions", {})):
            node = channel["target"]["node"]
            channel["target"] = {"path": "pointer", "extensions": {POINTER: {"pointer": f"/nodes/{node}/rotation"}}}
    document["extensionsUsed"].append(POINTER)
    return _save(document, blob, folder / "pointer.gltf")


def _open(source: Path) -> tuple[dict, bytearray, core.Document]:
    """A one-buffer .gltf's JSON, its buffer's bytes, and the core's reading of it."""
    document = json.loads(source.read_text())
    return document, bytearray((source.parent / document["buffers"][0]["uri"]).read_bytes()), core.load(str(source))


def _spec(animation: dict, channel: core.Channel) -> dict:
    """The JSON of a channel the core read from ``animation``."""
    return animation["channels"][int(channel.pointer.rsplit("/", 1)[1])]


def _save(document: dict, blob: bytearray, path: Path) -> Path:
    document["buffers"][0].update(uri=path.with_suffix(".bin").name, byteLength=len(blob))
    path.with_suffix(".bin").write_bytes(bytes(blob))
    path.write_text(json.dumps(document))
    return path


COMPONENTS = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}


def _append(document: dict, blob: bytearray, values, kind: str) -> int:
    """A float32 accessor of ``values`` appended to buffer 0; its index."""
    data = np.asarray(values, dtype=np.float32)
    blob.extend(b"\0" * (-len(blob) % 4))
    document["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": data.nbytes})
    blob.extend(data.tobytes())
    accessor = {"bufferView": len(document["bufferViews"]) - 1, "componentType": 5126,
                "count": data.size // COMPONENTS[kind], "type": kind}
    if kind == "SCALAR":
        accessor.update(min=[float(data.min())], max=[float(data.max())])
    document["accessors"].append(accessor)
    return len(document["accessors"]) - 1


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    return {"fallback.gltf": SAMPLES / "sqlerp_arm.gltf", "fallback.glb": SAMPLES / "sqlerp_arm.glb",
            "draft.gltf": SAMPLES / "sqlerp_arm_required.gltf",
            "required.gltf": required_form(SAMPLES / "sqlerp_arm.gltf", folder),
            "dense.gltf": dense_form(SAMPLES / "sqlerp_arm.gltf", folder),
            "pointer.gltf": pointer_form(SAMPLES / "sqlerp_arm.gltf", folder),
            "hostile_base.gltf": Path(corpus.write_base(folder / "hostile"))}


def _output(folder: Path, name: str, operation: str) -> Path:
    """Each written file in a folder of its own: a .gltf's .bin keeps its name from the input's buffer."""
    path = folder / f"{name.replace('.', '_')}_{operation.replace(' ', '_')}" / f"out{Path(name).suffix}"
    path.parent.mkdir()
    return path


@pytest.fixture(scope="module")
def written(inputs, tmp_path_factory) -> dict[tuple[str, str], tuple[Path, dict]]:
    """(input, operation) -> (written file, transform.mjs's result or the CLI's output)."""
    folder = tmp_path_factory.mktemp("written")
    api = [(name, operation) for name in INPUTS for operation in OPERATIONS if operation != "cli copy"]
    jobs = [{"input": str(inputs[name]), "output": str(_output(folder, name, operation)),
             "operation": operation} for name, operation in api]
    result = {key: (Path(job["output"]), outcome) for key, job, outcome in zip(api, jobs, transform(jobs, folder))}
    for name in INPUTS:
        target = _output(folder, name, "cli copy")
        done = cli("copy", inputs[name], target)
        said = done.stdout + done.stderr  # the CLI logs its errors to stdout
        outcome = {"messages": [said]} if done.returncode == 0 else {"error": said}
        result[(name, "cli copy")] = (target, outcome)
    return result


@pytest.fixture(scope="module")
def reports(written) -> dict[tuple[str, str], dict]:
    keys = [key for key, (_, outcome) in written.items() if "error" not in outcome]
    return dict(zip(keys, validate_all([written[key][0] for key in keys])))


# ----- comparing curves with the core -------------------------------------------------------------

def cubic_curves(document) -> dict[tuple[str, str], core.Channel]:
    """(animation name, node name) -> channel, for every channel that plays a CUBICSLERP sampler."""
    nodes = document.json.get("nodes", [])
    return {(animation.name, nodes[channel.node].get("name", str(channel.node))): channel
            for animation in document.animations for channel in animation.channels if channel.uses_extension}


def check_times(channel: core.Channel) -> np.ndarray:
    """Every key time, every interval's middle, 240 per second, and times before and after the keys."""
    keys = channel.sampler.times
    even = np.linspace(keys[0] - 0.25, keys[-1] + 0.25, int((keys[-1] - keys[0] + 0.5) * 240) + 2)
    return np.unique(np.concatenate([keys, (keys[:-1] + keys[1:]) / 2, even]))


def curve_deviations(source: Path, target: Path) -> dict[tuple[str, str], float]:
    """Largest |target - source| (sign-blind) per CUBICSLERP curve of the source, at check_times;
    inf for a curve the target no longer plays through the extension."""
    before, after = cubic_curves(core.load(str(source))), cubic_curves(core.load(str(target)))
    result = {}
    for key, channel in before.items():
        at = check_times(channel)
        result[key] = (float(three_player.deviation(after[key].evaluate(at), channel.evaluate(at)).max())
                       if key in after else float("inf"))
    return result


# ----- the tests ----------------------------------------------------------------------------------

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


def test_without_our_extension_the_curves_are_lost(inputs, tmp_path):
    # The control: glTF-Transform alone. The checks above see what it loses: the fallback form
    # keeps no curve (the nodes play the LINEAR fallback, off the curve by more than the
    # tolerance), the validator reports the orphaned CUBICSLERP samplers, and the required forms are
    # refused.
    names = ("fallback.gltf", "required.gltf", "draft.gltf")
    jobs = [{"input": str(inputs[name]), "output": str(_output(tmp_path, name, "copy")), "operation": "copy",
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
        played = _node_rotation(target, key).evaluate(at)
        worst = max(worst, float(three_player.deviation(played, channel.evaluate(at)).max()))
    return worst


def test_the_cli_without_our_config_refuses_the_required_form(inputs, tmp_path):
    script = modules_folder() / "@gltf-transform" / "cli" / "bin" / "cli.js"
    done = _run_node([str(script), "copy", str(inputs["required.gltf"]), str(tmp_path / "out.gltf")], tmp_path)
    assert done.returncode != 0 and f'Missing required extension, "{EXTENSION}"' in done.stdout + done.stderr


def test_resample_leaves_the_cubicslerp_samplers_alone(inputs, written, tmp_path):
    # README, "resample": the CUBICSLERP samplers come out value for value. The dense LINEAR
    # fallbacks lose keys (resample did work on this file) exactly as glTF-Transform alone resamples
    # them. The translation's keys, at the CUBICSLERP key times through the same accessor, shrink to
    # the line's two ends while the CUBICSLERP samplers keep all theirs.
    source = core.load(str(inputs["dense.gltf"]))
    target = core.load(str(written[("dense.gltf", "resample")][0]))
    job = {"input": str(inputs["dense.gltf"]), "output": str(_output(tmp_path, "dense.gltf", "resample")),
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
                                      _node_rotation(alone, key).evaluate(at)).max() <= TOLERANCE, key
    [line] = [c for c in source.animations[0].channels if c.path == "translation"]
    [moved_line] = [c for c in target.animations[0].channels if c.path == "translation"]
    assert (len(line.sampler.times), len(moved_line.sampler.times)) == (5, 2)
    at = check_times(line)
    assert np.abs(moved_line.evaluate(at) - line.evaluate(at)).max() <= TOLERANCE


def _node_rotation(document, key: tuple[str, str]) -> core.Channel:
    """The rotation channel of node ``key[1]`` in animation ``key[0]``."""
    nodes = [node.get("name") for node in document.json["nodes"]]
    [channel] = [c for a in document.animations if a.name == key[0] for c in a.channels
                 if c.path == "rotation" and nodes[c.node] == key[1]]
    return channel


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
    done = _run_node([str(HERE / "gltf_transform" / "build.mjs"), str(path)], tmp_path)
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


# The CLI's compressing commands. The add-on's core does not read EXT_meshopt_compression, so
# transform.mjs' decompress (glTF-Transform's own decoders, then no compression) writes a copy the
# core can evaluate.
COMPRESSING = ("meshopt", "draco", "optimize")
COMPRESSED_INPUTS = ("fallback.glb", "required.gltf", "draft.gltf", "pointer.gltf")


@pytest.fixture(scope="module")
def compressed(inputs, tmp_path_factory) -> dict[tuple[str, str], tuple[Path, Path]]:
    """(input, command) -> (the CLI's .glb, its decompressed copy)."""
    folder = tmp_path_factory.mktemp("compressed")
    result = {}
    for name in COMPRESSED_INPUTS:
        for command in COMPRESSING:
            target = _output(folder, name.split(".")[0] + ".glb", command)
            done = cli(command, inputs[name], target)
            assert done.returncode == 0, (name, command, done.stdout[-2000:], done.stderr[-2000:])
            result[(name, command)] = (target, target.with_name("decompressed.glb"))
    jobs = [{"input": str(made), "output": str(plain), "operation": "decompress"} for made, plain in result.values()]
    assert all("error" not in outcome for outcome in transform(jobs, folder))
    return result


@pytest.mark.parametrize("name, command", [(n, c) for n in COMPRESSED_INPUTS for c in COMPRESSING])
def test_compressing_commands_keep_the_curves(inputs, compressed, name, command):
    made, plain = compressed[(name, command)]
    [report] = validate_all([made])
    assert errors(report) == []
    document = read_file(made).json
    assert EXTENSION in document["extensionsUsed"]
    assert (EXTENSION in document.get("extensionsRequired", [])) == (name in REQUIRED)
    deviations = curve_deviations(inputs[name], plain)
    assert len(deviations) == 3 and max(deviations.values()) <= TOLERANCE, deviations


# More of the CLI's commands, each once on the sample's fallback form (.glb).
OTHER_COMMANDS = [("sparse",), ("flatten",), ("join",), ("palette",), ("center",), ("dequantize",), ("unweld",),
                  ("reorder",), ("partition", "--animations")]


@pytest.mark.parametrize("command", OTHER_COMMANDS, ids=[c[0] for c in OTHER_COMMANDS])
def test_other_commands_keep_the_curves(inputs, tmp_path, command):
    target = tmp_path / ("out.gltf" if command[0] == "partition" else "out.glb")
    done = cli(command[0], inputs["fallback.glb"], target, *command[1:])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [report] = validate_all([target])
    assert errors(report) == []
    deviations = curve_deviations(inputs["fallback.glb"], target)
    assert len(deviations) == 3 and max(deviations.values()) <= TOLERANCE, deviations


# Files the add-on exports from Blender (bench/bench_export.py's keyed rigs with CUBICSLERP channels,
# every fallback form, 16-bit keys), written by the same child job as the web players' tests.
EXPORT_JOB = JOBS / "three_export_job.py"
EXPORTED_RIGS = "a1,a2,a3"


@pytest.mark.blender
def test_files_the_add_on_exports_survive_optimize(tmp_path):
    done = subprocess.run([sys.executable, str(EXPORT_JOB), str(tmp_path), "--rigs", EXPORTED_RIGS],
                          capture_output=True, text=True, cwd=JOBS, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    written = [Path(p) for p in json.loads(done.stdout.strip().splitlines()[-1])]
    exported = [path for path in written if cubic_curves(core.load(str(path)))]
    assert len(exported) >= 6, [p.name for p in written]  # a1-a3 with a fallback and required
    (tmp_path / "optimized").mkdir()
    made = {path: _output(tmp_path / "optimized", path.name, "optimize") for path in exported}
    for source, target in made.items():
        done = cli("optimize", source, target)
        assert done.returncode == 0, (source.name, done.stdout[-2000:], done.stderr[-2000:])
    plain = {source: target.with_name("decompressed.glb") for source, target in made.items()}
    jobs = [{"input": str(made[s]), "output": str(p), "operation": "decompress"} for s, p in plain.items()]
    assert all("error" not in outcome for outcome in transform(jobs, tmp_path))
    assert [errors(report) for report in validate_all(list(made.values()))] == [[]] * len(made)
    for source, target in made.items():
        required = EXTENSION in read_file(source).json.get("extensionsRequired", [])
        assert (EXTENSION in read_file(target).json.get("extensionsRequired", [])) == required, source.name
        deviations = curve_deviations(source, plain[source])
        assert max(deviations.values()) <= TOLERANCE, (source.name, deviations)
