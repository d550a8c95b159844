"""pyright over the whole repository in basic mode with the fake-bpy-module stubs (settings in
pyproject.toml, ``[tool.pyright]``), run by the test command so that a new finding fails it.
``python dev.py test`` installs the pinned pyright from npm into .node/ (tests/validator/package.json)
and the stubs into .venv/editor-stubs."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.gltf_validator import modules_folder

ROOT = Path(__file__).resolve().parents[2]


def pyright(*args, cwd=ROOT):
    node = shutil.which("node")
    script = modules_folder() / "pyright" / "index.js"
    if node is None or not script.exists():
        pytest.fail(f"pyright is not installed in {script.parent}: `python dev.py test` installs it")
    done = subprocess.run([node, str(script), "--outputjson", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=900)
    return json.loads(done.stdout)


def errors(report):
    return [f"{Path(d['file']).relative_to(ROOT) if d['file'].startswith(str(ROOT)) else d['file']}:"
            f"{d['range']['start']['line'] + 1}: {d['message'].splitlines()[0]} ({d.get('rule')})"
            for d in report["generalDiagnostics"] if d["severity"] == "error"]


def test_pyright_finds_no_error():
    report = pyright()
    assert report["summary"]["filesAnalyzed"] > 150  # the whole repository, not an empty selection
    assert errors(report) == []


def test_pyright_reads_the_settings_and_the_stubs(tmp_path):
    """The control: with this repository's settings a file using bpy through the stubs passes, and
    a wrong assignment and an Optional used without a check are errors."""
    good = tmp_path / "good.py"
    good.write_text("import bpy\n\nfps: int = bpy.data.scenes[0].render.fps\n")
    bad = tmp_path / "bad.py"
    bad.write_text("import bpy\n\nx: int = 'one'\nscene = bpy.context.scene.render\n")
    settings = str(ROOT / "pyproject.toml")
    assert errors(pyright("--project", settings, str(good))) == []
    found = errors(pyright("--project", settings, str(bad)))
    assert len(found) == 2 and "reportAssignmentType" in found[0] and "reportOptionalMemberAccess" in found[1], found
