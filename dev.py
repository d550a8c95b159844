#!/usr/bin/env python3
"""One entry point for development: `python dev.py demo|test|run ...` (see USAGE).

On first use it creates `.venv` beside this file with the pinned packages of requirements-dev.txt
(the real Blender 4.5.4 as the `bpy` module, numpy, pytest, hypothesis) and re-uses it afterwards. A
hash of the requirement files is kept in the venv, so editing them reinstalls on the next run.
Editor type stubs (requirements-editor.txt) go to `.venv/editor-stubs`, a folder the venv's python
never imports from, so they cannot shadow the real bpy; pyrightconfig.json points editors at them.

Standard library only; Linux, macOS and Windows; Python 3.11 (the only CPython with bpy 4.5 wheels).
"""

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
REQUIREMENTS = ROOT / "requirements-dev.txt"
EDITOR_REQUIREMENTS = ROOT / "requirements-editor.txt"
EDITOR_STUBS = VENV / "editor-stubs"
STAMP = VENV / "requirements.sha256"
REQUIRED_PYTHON = (3, 11)

USAGE = """usage: python dev.py <command> [args]

commands:
  test [pytest args]   run the tests with the project's venv (python -m pytest, tests/ by default)
  demo [args]          run tools/demo.py with the project's venv
  run <script> [args]  run any Python script with the project's venv (e.g. tools/make_sample.py)
"""


def say(message):
    print(f"dev.py: {message}", flush=True)


def require_python_311():
    if sys.version_info[:2] == REQUIRED_PYTHON:
        return
    found = ".".join(map(str, sys.version_info[:3]))
    sys.exit(
        f"dev.py: Python 3.11 is required, this is Python {found} ({sys.executable}).\n"
        "The pinned Blender module (bpy 4.5.4) is published for CPython 3.11 only.\n"
        "Get 3.11 from https://www.python.org/downloads/ (Windows/macOS installers), your package\n"
        "manager (e.g. `apt install python3.11`, `brew install python@3.11`), `pyenv install 3.11`\n"
        "or `uv python install 3.11`, then run this script with it, e.g. `python3.11 dev.py test`\n"
        "(Windows: `py -3.11 dev.py test`).")


def venv_python():
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def requirements_hash():
    digest = hashlib.sha256()
    for path in (REQUIREMENTS, EDITOR_REQUIREMENTS):
        # Normalise line endings so a checkout with CRLF does not count as a change.
        digest.update(path.read_bytes().replace(b"\r\n", b"\n"))
    return digest.hexdigest()


def venv_works():
    """True when the venv's interpreter runs and is a 3.11 (a moved or upgraded Python breaks it)."""
    python = venv_python()
    if not python.exists():
        return False
    probe = f"import sys; sys.exit(0 if sys.version_info[:2] == {REQUIRED_PYTHON} else 1)"
    return subprocess.run([str(python), "-c", probe], stdin=subprocess.DEVNULL).returncode == 0


def run_checked(command, what):
    result = subprocess.run([str(part) for part in command], stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        sys.exit(f"dev.py: {what} failed (exit code {result.returncode}); fix the cause and run again.")


def pip(*args):
    return [venv_python(), "-m", "pip", "--disable-pip-version-check", "--no-input", *args]


def ensure_venv():
    """Create or update .venv so that it matches the pinned requirements; return its python."""
    wanted = requirements_hash()
    if not venv_works():
        say(f"creating .venv with Python {sys.version.split()[0]} ({sys.executable}) ...")
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        say("installing pinned packages (first run only, ~400 MB) ...")
    elif STAMP.exists() and STAMP.read_text().strip() == wanted:
        return venv_python()
    else:
        say("requirement files changed (or the last install did not finish): updating .venv ...")

    # The stamp goes only after a complete install, so an interrupted one is redone next time.
    STAMP.unlink(missing_ok=True)
    run_checked(pip("install", "-r", REQUIREMENTS), "installing requirements-dev.txt")
    say("installing editor type stubs into .venv/editor-stubs (not importable by the venv) ...")
    run_checked(pip("install", "--upgrade", "--no-deps", "--target", EDITOR_STUBS,
                    "-r", EDITOR_REQUIREMENTS), "installing requirements-editor.txt")
    STAMP.write_text(wanted + "\n")
    say(".venv is ready")
    return venv_python()


def run(command, cwd=None):
    """Run a command and return its exit code (file arguments stay relative to the caller's folder)."""
    return subprocess.run([str(part) for part in command], cwd=cwd).returncode


def main(argv):
    require_python_311()
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if argv else 2
    command, args = argv[0], argv[1:]
    if command not in ("test", "demo", "run") or (command == "run" and not args):
        print(f"dev.py: unknown command or missing script: {' '.join(argv)!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    python = ensure_venv()
    if command == "test":
        # From the root, where pytest.ini says `testpaths = tests`.
        return run([python, "-m", "pytest", *args], cwd=ROOT)
    if command == "demo":
        return run([python, ROOT / "tools" / "demo.py", *args])
    return run([python, *args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
