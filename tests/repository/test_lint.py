"""ruff over the whole repository (settings in pyproject.toml: pycodestyle, pyflakes, bugbear,
blind excepts, and noqa comments that silence nothing), run by the test command so that a new
finding fails it. The run in a child process is what a developer types: ``python -m ruff check .``."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ruff(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_ruff_finds_nothing():
    done = ruff("check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]


def test_ruff_reads_the_settings_and_would_report(tmp_path):
    """The control: with this repository's settings, a file with an unused import, a blind except
    and a noqa that silences nothing is reported three times."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\ntry:\n    pass\nexcept Exception:\n    pass\nx = 1  # noqa: E501\n")
    done = ruff("check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad), cwd=tmp_path)
    assert done.returncode == 1
    assert all(code in done.stdout for code in ("F401", "BLE001", "RUF100")), done.stdout
