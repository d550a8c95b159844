"""Every fenced example in the README and its manual (docs/manual/*.md) runs as written, from the
repository folder, in the venv that the README's first command makes, and ends by itself.

Blocks marked ``text`` or ``json`` are output shown to the reader, not examples; every other block
is a Python (```python), shell or JavaScript (```js) example. Shell lines run one by one in bash with
this venv's interpreter first on PATH as ``python``; Python blocks run as a script; JavaScript blocks
run as an ES module in headless Chromium, on a page that maps ``three`` as a web page's import map
does, with the repository served at ``/`` (tools/three_page.py). Examples write into
``example_out/`` (git-ignored, not in the zip), removed afterwards unless it was there before.
The opening block is the README's two set-up commands: ``python dev.py demo`` runs here,
``python dev.py test`` is the command running this test (checked to be what .ci/run runs).
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.child_job import tool

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs" / "manual").glob("*.md"))]
OUTPUT_LANGUAGES = {"text", "json"}
EXAMPLE_LANGUAGES = {"", "python", "sh", "shell", "bash", "js"}
SETUP = ["python dev.py demo", "python dev.py test"]
FENCE = re.compile(r"^(?P<indent> *)```(?P<language>[\w-]*)\s*$")


def fenced_blocks(text):
    """(line number, language, code dedented by its fence's indent) of every fenced block."""
    blocks, lines, start = [], text.splitlines(), None
    for number, line in enumerate(lines, 1):
        match = FENCE.match(line)
        if match and start is None:
            start, indent, language, body = number, len(match["indent"]), match["language"], []
        elif match and start is not None:
            blocks.append((start, language, "\n".join(body) + "\n"))
            start = None
        elif start is not None:
            body.append(line[indent:] if line[:indent].strip() == "" else line)
    assert start is None, f"the block opened at line {start} is never closed"
    return blocks


# (where: "README.md:3", language, code) of every block, the README's first
BLOCKS = [(f"{path.relative_to(ROOT).as_posix()}:{line}", language, code) for path in DOCUMENTS
          for line, language, code in fenced_blocks(path.read_text(encoding="utf-8"))]
# An example that needs a service from outside says so in its first line and is not run here.
NEEDS = re.compile(r"^# needs: (?P<service>.+)$")
EXAMPLES = [block for block in BLOCKS[1:] if block[1] not in OUTPUT_LANGUAGES
            and not NEEDS.match(block[2].split("\n")[0])]
NOT_RUN = [block for block in BLOCKS[1:] if NEEDS.match(block[2].split("\n")[0])]


@pytest.fixture(scope="module")
def example_out():
    folder = ROOT / "example_out"
    existed = folder.exists()
    yield folder
    if not existed:
        shutil.rmtree(folder, ignore_errors=True)


def _environment():
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)  # as a user's shell has it: the venv alone finds gltf_sqlerp
    return env


def _run(command, what):
    done = subprocess.run(command, cwd=ROOT, env=_environment(), capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, (f"{what} exited with {done.returncode}:\n"
                                  f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return done


def test_every_block_is_an_example_or_marked_as_output():
    assert BLOCKS, "no fenced block found"
    assert {language for _, language, _ in BLOCKS} <= EXAMPLE_LANGUAGES | OUTPUT_LANGUAGES


def test_only_examples_that_need_an_outside_service_are_not_run():
    """Today one: the Flamenco job submission, which needs a Flamenco Manager to answer."""
    services = [match["service"] for _, _, code in NOT_RUN if (match := NEEDS.match(code.split("\n")[0]))]
    assert services and all(service.startswith("a Flamenco Manager") for service in services)


def test_the_readme_opens_with_the_two_setup_commands():
    where, language, code = BLOCKS[0]
    name, start = where.split(":")
    assert code.split("\n")[:-1] == SETUP and language == "" and name == "README.md" and int(start) <= 3
    assert "dev.py test" in (ROOT / ".ci" / "run").read_text()


def test_the_first_setup_command_runs_and_says_each_thing_once(example_out):
    """The demo: within the tolerance; its export summary once (not also Blender's echo of the
    operator's report and the hook's console line); the channel rows aligned; each validator
    warning's meaning on its line; Blender's own console chatter kept out."""
    done = _run(["bash", "-c", SETUP[0]], SETUP[0])
    out = done.stdout
    assert "this add-on is within the tolerance" in out
    assert out.count("EXT_animation_sqlerp: 3 rotation channels") == 1, out
    rows = [line for line in out.splitlines() if "keys (kept from the import)" in line]
    assert len(rows) == 3 and len({line.index("CUBICSLERP") for line in rows}) == 1, rows
    validator = [line for line in out.splitlines() if line.startswith("  Khronos glTF-Validator, ")]
    assert len(validator) == 2 and all(" 0 errors" in line for line in validator)
    assert "VALUE_NOT_IN_LIST (the draft's CUBICSLERP" in validator[0]
    assert not re.search(r"^(\d\d:\d\d:\d\d \| INFO|Info: |INFO )", out, re.MULTILINE), out


@pytest.mark.parametrize("where, language, code", EXAMPLES, ids=[b[0] for b in EXAMPLES])
def test_example_runs_as_written(where, language, code, example_out, tmp_path):
    stem = "example_" + re.sub(r"\W+", "_", where)
    if language == "js":
        example_out.mkdir(exist_ok=True)
        module = example_out / f"{stem}.mjs"
        module.write_text(code, encoding="utf-8")
        report = tool("tools/three_page.py").run_module(f"/example_out/{module.name}", tmp_path / "page.png")
        assert report["sqlerp"] == {"ok": True} and report["errors"] == [], f"{where} (js): {report}"
        return
    if language == "python":
        script = tmp_path / f"{stem}.py"
        script.write_text(code, encoding="utf-8")
        _run([sys.executable, str(script)], f"{where} (python)")
        return
    for command in (c for c in code.splitlines() if c.strip() and not c.lstrip().startswith("#")):
        _run(["bash", "-c", command], f"{where}: {command}")
