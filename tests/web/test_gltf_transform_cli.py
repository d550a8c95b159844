"""glTF-Transform's command line keeps EXT_animation_sqlerp with
viewers/gltf-transform/gltf-transform.config.mjs: the compressing commands (meshopt, draco, optimize)
on the sample's forms, the other commands once on the sample, and optimize on files the add-on
exports from Blender.

What judges the result is outside the code under test: glTF-Transform's own decoders write an
uncompressed copy, the add-on's core evaluates every CUBICSLERP curve of it against the input's, and
the Khronos glTF-Validator (with the extension's schema, tests/helpers/gltf_validator.py) reads the
compressed file. `copy` through the CLI on every input: test_gltf_transform_functions.py.
"""

from pathlib import Path

import pytest

from helpers import JOBS, run_job
from helpers.gltf_transform_inputs import EXTENSION, REQUIRED, made_inputs
from helpers.gltf_transform_runs import TOLERANCE, cli, cubic_curves, curve_deviations, output, transform
from helpers.gltf_validator import errors, validate_all

from gltf_sqlerp import core
from gltf_sqlerp.core.gltf import read_file


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    return made_inputs(tmp_path_factory)


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
            target = output(folder, name.split(".")[0] + ".glb", command)
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
    written = [Path(p) for p in run_job(EXPORT_JOB, tmp_path, "--rigs", EXPORTED_RIGS, cwd=JOBS, timeout=900)]
    exported = [path for path in written if cubic_curves(core.load(str(path)))]
    assert len(exported) >= 6, [p.name for p in written]  # a1-a3 with a fallback and required
    (tmp_path / "optimized").mkdir()
    made = {path: output(tmp_path / "optimized", path.name, "optimize") for path in exported}
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
