"""The command line's folder conversion (the pipeline package through pipeline_run.py), no Blender needed.

Every run is a child process, as users run it: ``python pipeline_run.py convert IN OUT``.
"""

import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.terminal import bar_states, on_a_terminal

from gltf_sqlerp import core

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "pipeline_run.py"
FLAMENCO = ROOT / "tools" / "flamenco" / "gltf_sqlerp_convert.js"
CESIUM = "khronos/CesiumMan"
TOLERANCE = "0.1"  # the fastest of the README's table: these tests are about the runs, not the fit
BROKEN = {"asset": {"version": "2.0"}, "nodes": [{}],
          "animations": [{"channels": [{"sampler": 3, "target": {"node": 0, "path": "rotation"}}],
                          "samplers": [{"input": 0, "output": 1}]}]}


def run(*args, timeout=300):
    result = subprocess.run([sys.executable, str(LAUNCHER), *map(str, args)], capture_output=True,
                            text=True, timeout=timeout)
    return result


def report_of(result):
    try:
        return json.loads(result.stdout)
    except ValueError:
        pytest.fail(f"no JSON report (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")


@pytest.fixture
def inputs(tmp_path, shared_assets):
    """A folder of LINEAR-rotation files: CesiumMan as .glb and as .gltf with its .bin and image
    (in a subfolder), a renamed copy, and a broken file."""
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(shared_assets / CESIUM / "glTF-Binary" / "CesiumMan.glb", folder / "a_walk.glb")
    shutil.copy(shared_assets / CESIUM / "glTF-Binary" / "CesiumMan.glb", folder / "b_walk.glb")
    for file in (shared_assets / CESIUM / "glTF").iterdir():
        shutil.copy(file, folder / "sub" / file.name)
    (folder / "c_broken.gltf").write_text(json.dumps(BROKEN))
    return folder


GOOD = ["a_walk.glb", "b_walk.glb", "sub/CesiumMan.gltf"]


def entries(report):
    base = Path(report["input_dir"])
    return {Path(e["input"]).relative_to(base).as_posix(): e for e in report["files"]}


def mtimes(folder):
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_help_and_usage_errors(tmp_path):
    for args in (["--help"], ["convert", "--help"], ["convert-file", "--help"], ["verify", "--help"],
                 ["export", "--help"]):
        result = run(*args)
        assert result.returncode == 0, (args, result.stderr)
        assert "usage:" in result.stdout
    assert "convert-file" in run("--help").stdout
    assert run().returncode == 2
    assert run("convert", tmp_path / "missing", tmp_path / "out").returncode == 2
    assert run("convert", tmp_path, tmp_path / "out", "--tolerance", "0").returncode == 2
    # The core's own ranges: an infinite ratio is refused before any file, not by each one.
    infinite = run("convert", tmp_path, tmp_path / "out", "--min-ratio", "inf")
    assert infinite.returncode == 2 and "--min-ratio must be a number >= 1" in infinite.stderr
    assert run("bogus").returncode == 2


def test_convert_folder_reports_resumes_and_keeps_going_after_a_broken_file(inputs, tmp_path):
    output = tmp_path / "out"
    first = run("convert", inputs, output, "--tolerance", TOLERANCE, "--jobs", "2")
    report = report_of(first)
    assert first.returncode == 1, first.stderr  # the broken file
    files = entries(report)
    assert sorted(files) == sorted(GOOD + ["c_broken.gltf"])
    assert report["counts"] == {"converted": 3, "unchanged": 0, "skipped": 0, "failed": 1}
    broken = files["c_broken.gltf"]
    assert broken["status"] == "failed"
    assert broken["error"]["code"] == "UNRESOLVED_REFERENCE"
    assert broken["error"]["pointer"] == "/animations/0/samplers/0/input"
    assert "/animations/0/channels/0/sampler" in [f["pointer"] for f in broken["error"]["findings"]]
    assert not (output / "c_broken.gltf").exists()
    for name in GOOD:
        entry = files[name]
        assert entry["status"] == "converted" and entry["converted_channels"] > 0
        assert entry["keys_after"] < entry["keys_before"]
        document = core.load(output / name)
        played = [c for a in document.animations for c in a.channels if c.path == "rotation"]
        cubic = [c for c in played if c.sampler.interpolation == "CUBICSLERP"]
        # Rewritten channels are CUBICSLERP with a reduced fallback, or LINEAR keys alone.
        assert len(cubic) == entry["cubicslerp_channels"] <= entry["converted_channels"]
        assert all(c.fallback is not None and c.fallback.interpolation in ("LINEAR", "CUBICSPLINE")
                   for c in cubic)
        if name.endswith(".glb"):  # one file holds it all: what the user ships is smaller
            assert output.joinpath(name).stat().st_size < inputs.joinpath(name).stat().st_size
    assert (output / "sub" / "CesiumMan_img0.jpg").is_file()  # a .gltf takes its files along
    journal = [json.loads(line) for line in (output / ".gltf_sqlerp_convert.jsonl").read_text().splitlines()]
    assert sorted(r["file"] for r in journal) == sorted(GOOD + ["c_broken.gltf"])

    before = mtimes(output)
    again = run("convert", inputs, output, "--tolerance", TOLERANCE)
    report = report_of(again)
    assert again.returncode == 1  # the broken file is tried again, and fails again
    assert report["counts"] == {"converted": 0, "unchanged": 0, "skipped": 3, "failed": 1}
    assert {n for n, e in entries(report).items() if e["status"] == "skipped"} == set(GOOD)
    after = mtimes(output)
    assert {p: t for p, t in after.items() if p.suffix != ".jsonl"} == \
        {p: t for p, t in before.items() if p.suffix != ".jsonl"}

    # A lost output (or one whose input changed) is redone, and only that one.
    (output / "b_walk.glb").unlink()
    edit_glb(inputs / "a_walk.glb")  # the input changed after its conversion
    (inputs / "c_broken.gltf").unlink()
    third = run("convert", inputs, output, "--tolerance", TOLERANCE)
    report = report_of(third)
    assert third.returncode == 0, third.stderr
    assert report["ok"] and report["counts"] == {"converted": 2, "unchanged": 0, "skipped": 1,
                                                 "failed": 0}
    assert {n for n, e in entries(report).items() if e["status"] == "converted"} == \
        {"a_walk.glb", "b_walk.glb"}


def edit_glb(path):
    """Change a GLB's bytes and keep it valid: a note in its asset's extras."""
    import struct
    from gltf_sqlerp.core.conversion.files import glb_bytes
    data = path.read_bytes()
    json_length = struct.unpack_from("<I", data, 12)[0]
    document = json.loads(data[20:20 + json_length])
    document["asset"]["extras"] = {"edited": True}
    rest = data[20 + json_length:]
    chunk = rest[8:8 + struct.unpack_from("<I", rest, 0)[0]] if rest else None
    path.write_bytes(glb_bytes(document, chunk))


def statuses(report):
    return {name: entry["status"] for name, entry in entries(report).items()}


def test_convert_redoes_a_file_when_what_decides_its_output_changes(inputs, tmp_path):
    """Up to date: the same input and referenced files (contents, not times), options and tool."""
    (inputs / "c_broken.gltf").unlink()
    output = tmp_path / "out"
    assert set(statuses(report_of(run("convert", inputs, output, "--tolerance", TOLERANCE))).values()) \
        == {"converted"}
    for path in list(inputs.rglob("*")) + list(output.rglob("*")):
        os.utime(path)  # touched, not changed: nothing is redone
    touched = report_of(run("convert", inputs, output, "--tolerance", TOLERANCE))
    assert set(statuses(touched).values()) == {"skipped"}
    assert all(e["reason"].startswith("up to date") for e in touched["files"])

    image = inputs / "sub" / "CesiumMan_img0.jpg"  # a file the .gltf references, one byte changed
    image.write_bytes(image.read_bytes()[:-1] + bytes([image.read_bytes()[-1] ^ 1]))
    referenced = report_of(run("convert", inputs, output, "--tolerance", TOLERANCE))
    assert statuses(referenced) == {"a_walk.glb": "skipped", "b_walk.glb": "skipped",
                                    "sub/CesiumMan.gltf": "converted"}
    assert (output / "sub" / "CesiumMan_img0.jpg").read_bytes() == image.read_bytes()

    finer = report_of(run("convert", inputs, output, "--tolerance", "0.05"))  # another option
    assert set(statuses(finer).values()) == {"converted"} and finer["tolerance_deg"] == 0.05
    recorded = core.load(output / "a_walk.glb").json["asset"]["extras"]["gltf_sqlerp_convert"]
    assert recorded["options"]["tolerance_deg"] == 0.05
    assert recorded["tool"] == f"gltf_sqlerp {core_version()}"


def core_version():
    import gltf_sqlerp
    return gltf_sqlerp.__version__


def test_the_tool_version_is_part_of_the_fingerprint(tmp_path, shared_assets, monkeypatch):
    from gltf_sqlerp.pipeline import fingerprint
    source = shared_assets / CESIUM / "glTF" / "CesiumMan.gltf"
    options = {"tolerance_deg": 0.1}
    today = fingerprint.fingerprint(source, options)
    assert fingerprint.fingerprint(source, options) == today
    assert fingerprint.fingerprint(source, {"tolerance_deg": 0.2}) != today
    monkeypatch.setattr(fingerprint, "__version__", "99.0.0")
    assert fingerprint.fingerprint(source, options) != today


def test_a_file_with_nothing_to_convert_is_unchanged_and_not_tried_again(tmp_path, shared_assets):
    """SimpleMorph animates morph weights only: no rotation channel to rewrite. Nothing is
    written, the report says 'unchanged' (not 'converted'), and a second run takes that from the
    journal without converting it again."""
    folder = tmp_path / "in"
    shutil.copytree(shared_assets / "khronos" / "SimpleMorph" / "glTF-Embedded", folder)
    output = tmp_path / "out"
    first = report_of(run("convert", folder, output))
    [entry] = first["files"]
    assert entry["status"] == "unchanged" and entry["converted_channels"] == 0
    assert first["counts"] == {"converted": 0, "unchanged": 1, "skipped": 0, "failed": 0}
    assert not list(output.glob("*.gltf"))
    journal = output / ".gltf_sqlerp_convert.jsonl"
    lines = journal.read_text().splitlines()
    second = report_of(run("convert", folder, output))
    assert second["files"][0]["status"] == "unchanged" and "as on" in second["files"][0]["reason"]
    assert journal.read_text().splitlines() == lines  # no child ran
    assert report_of(run("convert", folder, output, "--force"))["counts"]["unchanged"] == 1
    assert len(journal.read_text().splitlines()) == len(lines) + 1


def test_an_interrupted_run_leaves_only_complete_files_and_resumes(inputs, tmp_path):
    (inputs / "c_broken.gltf").unlink()
    for name in ("d_walk.glb", "e_walk.glb"):
        shutil.copy(inputs / "a_walk.glb", inputs / name)
    output = tmp_path / "out"
    child = subprocess.Popen([sys.executable, str(LAUNCHER), "convert", str(inputs), str(output),
                              "--tolerance", TOLERANCE, "--jobs", "1", "--report",
                              str(tmp_path / "report.json")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while not any(output.glob("*.glb")) and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGTERM)  # the parent and the child converting the next file
    child.communicate(timeout=60)
    assert child.returncode == 130  # the parent stopped its children and still reported
    stopped = json.loads((tmp_path / "report.json").read_text())
    assert stopped["interrupted"] and not stopped["ok"]
    done = {p.relative_to(output).as_posix() for p in output.rglob("*")
            if p.suffix in (".glb", ".gltf")}
    assert done, "nothing was converted before the interruption"
    for name in done:  # whatever is there is complete
        core.load(output / name)
    leftovers = [p.name for p in output.rglob("*") if p.name.endswith(".tmp")]
    assert not leftovers, leftovers

    resumed = run("convert", inputs, output, "--tolerance", TOLERANCE, "--jobs", "2")
    report = report_of(resumed)
    assert resumed.returncode == 0, resumed.stderr
    status = {n: e["status"] for n, e in entries(report).items()}
    every = {"a_walk.glb", "b_walk.glb", "d_walk.glb", "e_walk.glb", "sub/CesiumMan.gltf"}
    assert set(status) == every
    assert done < every  # the run was interrupted indeed
    assert {n for n, s in status.items() if s == "skipped"} == done
    assert {n for n, s in status.items() if s == "converted"} == every - done


def test_convert_file_and_report_file(tmp_path, shared_assets):
    source = shared_assets / CESIUM / "glTF-Binary" / "CesiumMan.glb"
    target = tmp_path / "deep" / "walk.glb"
    result = run("convert-file", source, target, "--tolerance", TOLERANCE, "--report",
                 tmp_path / "r.json")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["ok"] and report["files"][0]["status"] == "converted"
    again = report_of(run("convert-file", source, target, "--tolerance", TOLERANCE))
    assert again["files"][0]["status"] == "skipped"
    other = report_of(run("convert-file", source, target, "--tolerance", "0.05"))
    assert other["files"][0]["status"] == "converted"  # the options are part of "up to date"
    wrong = run("convert-file", source, tmp_path / "walk.gltf")  # a GLB must be written as .glb
    assert wrong.returncode == 1
    assert report_of(wrong)["files"][0]["error"]["code"] == "ValueError"


def test_convert_file_takes_an_options_object_its_fields_and_the_older_keywords(tmp_path, shared_assets):
    """The scripting API of docs/manual/command-line.md: convert_file(..., tolerance=0.05), the
    keyword it always took, still works beside ConvertOptions and its field names."""
    from gltf_sqlerp import pipeline
    from gltf_sqlerp.core.conversion import ConvertOptions
    source = shared_assets / CESIUM / "glTF-Binary" / "CesiumMan.glb"
    calls = [((), {"tolerance": 0.05}), ((), {"tolerance_deg": 0.05}), ((ConvertOptions(tolerance_deg=0.05),), {})]
    entries = [pipeline.convert_file(source, tmp_path / f"{i}.glb", *options, **keywords)
               for i, (options, keywords) in enumerate(calls)]
    assert [e["status"] for e in entries] == ["converted"] * 3
    assert len({e["fingerprint"] for e in entries}) == 1
    assert len({(tmp_path / f"{i}.glb").read_bytes() for i in range(3)}) == 1
    default = pipeline.convert_file(source, tmp_path / "default.glb")
    assert default["fingerprint"] != entries[0]["fingerprint"]


def test_the_bar_moves_within_a_file_and_a_failure_shows_its_code(tmp_path, shared_assets):
    source = shared_assets / CESIUM / "glTF-Binary" / "CesiumMan.glb"
    code, shown = on_a_terminal(LAUNCHER, "convert-file", source, tmp_path / "walk.glb", "--tolerance", TOLERANCE)
    assert code == 0, shown
    fills = bar_states(shown)
    assert "working: " in shown and fills == sorted(fills) and len(set(fills)) >= 4, fills
    assert "converted: " in shown

    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(source, folder / "walk.glb")
    (folder / "broken.gltf").write_text(json.dumps(BROKEN))
    code, shown = on_a_terminal(LAUNCHER, "convert", folder, tmp_path / "out", "--tolerance", TOLERANCE, "--jobs", "1")
    assert code == 1
    assert "working: walk.glb" in shown  # the parent draws its child's progress
    assert "failed: broken.gltf (invalid glTF: " in shown
    assert "[UNRESOLVED_REFERENCE at /animations/0/samplers/0/input])" in shown


def test_flamenco_job_type_makes_one_task_per_file(tmp_path):
    """Runs the job type's compileJob with a stand-in of Flamenco's `author` API (Node.js)."""
    node = shutil.which("node")
    assert node is not None, "Node.js is needed (python dev.py test installs the validator with it)"
    harness = tmp_path / "harness.js"
    harness.write_text(FLAMENCO.read_text() + """
const tasks = [];
global.author = {
  Task: (name, type) => { const t = {name, type, commands: [], deps: []};
    t.addCommand = (c) => t.commands.push(c); t.addDependency = (d) => t.deps.push(d.name); return t; },
  Command: (type, params) => ({type, params}),
};
const job = {settings: {input_dir: "/farm/in", output_dir: "/farm/out", files: "a.glb; sub/b.gltf\\n",
                         launcher: "/farm/gltf_sqlerp/pipeline_run.py", tolerance: 0.05},
             addTask: (t) => tasks.push(t)};
compileJob(job);
console.log(JSON.stringify({label: JOB_TYPE.label, tasks}));
""")
    result = subprocess.run([node, str(harness)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    compiled = json.loads(result.stdout)
    tasks = compiled["tasks"]
    assert [t["name"] for t in tasks] == ["convert a.glb", "convert sub/b.gltf"]
    args = tasks[1]["commands"][0]["params"]["args"]
    assert args[:4] == ["--python", "/farm/gltf_sqlerp/pipeline_run.py", "--", "convert-file"]
    assert args[4:6] == ["/farm/in/sub/b.gltf", "/farm/out/sub/b.gltf"]
    assert "0.05" in args


def option_actions(parser):
    """(command, option strings, help, required) of every option of ``parser`` and its commands."""
    import argparse
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from ((f"{parser.prog} {name}",) + row[1:] for row in option_actions(sub))
        elif action.option_strings and not isinstance(action, argparse._HelpAction) \
                and action.help != argparse.SUPPRESS:
            yield parser.prog, action.option_strings, action.help, action.required


def test_every_option_says_what_it_does_and_its_default():
    """pipeline_run.py's commands and the tools a newcomer runs first (demo, sqlerp_convert)."""
    sys.path.insert(0, str(ROOT / "tools"))
    # Imported by name: tools/ is on the path at run time only (the line above).
    demo = importlib.import_module("demo")
    sqlerp_convert = importlib.import_module("sqlerp_convert")
    from gltf_sqlerp import pipeline
    rows = [row for parser in (pipeline._parser(), demo.parser(), sqlerp_convert.parser())
            for row in option_actions(parser)]
    assert len(rows) > 30
    missing = [(command, options) for command, options, text, required in rows
               if not text or not (required or "default" in text)]
    assert missing == []


def test_one_wording_and_one_exit_code_per_kind_of_problem(tmp_path):
    """A missing input: exit 2 and '<path>: no such file'; an invalid file: exit 1 and 'invalid
    glTF' with its code and JSON pointer; in pipeline_run.py and the tools a newcomer runs first."""
    missing, broken = tmp_path / "missing.glb", tmp_path / "broken.gltf"
    broken.write_text(json.dumps(BROKEN))
    commands = {
        "convert-file": lambda source: [LAUNCHER, "convert-file", source, tmp_path / "out.gltf"],
        "verify": lambda source: [LAUNCHER, "verify", source],
        "demo": lambda source: [ROOT / "tools" / "demo.py", source, "--core-only"],
        "sqlerp_convert": lambda source: [ROOT / "tools" / "sqlerp_convert.py", source,
                                          tmp_path / "out.gltf"]}
    for name, command in commands.items():
        gone = subprocess.run([sys.executable, *map(str, command(missing))], capture_output=True,
                              text=True, timeout=300)
        assert gone.returncode == 2 and f"{missing}: no such file" in gone.stderr, (name, gone.stderr)
        bad = subprocess.run([sys.executable, *map(str, command(broken))], capture_output=True,
                             text=True, timeout=300)
        assert bad.returncode == 1, (name, bad.stderr)
        assert "invalid glTF" in bad.stderr, (name, bad.stderr)
        assert "[UNRESOLVED_REFERENCE at /animations/0/samplers/0/input]" in bad.stderr, name
