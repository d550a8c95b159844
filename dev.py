#!/usr/bin/env python3
"""One entry point for development: `python dev.py demo|test|run ...` (see USAGE).

It keeps one virtual environment per pinned Blender, beside this file, each created on first use and
re-used afterwards. `bpy` wheels exist for one CPython each: Blender 4.2 LTS, 4.5 LTS and 5.0 for
3.11, Blender 5.2 LTS and 5.3 for 3.13. The main venv, `.venv`, follows the interpreter that runs
this script: Blender 4.5.4 (requirements-dev.txt) under 3.11, Blender 5.2.3 (requirements-bpy52.txt)
under 3.13; demo, run and the whole test suite use it. The other pinned Blenders get their own venv
(`.venv-bpy42`, `.venv-bpy45`, `.venv-bpy50`, `.venv-bpy52`, `.venv-bpy53`), made with the Python
they need, found as `python3.X` on PATH, through pyenv or with `py -3.X` on Windows, and run the
Blender tests. On a developer's machine a Blender whose Python is not found is skipped, and the
summary says so; under CI (the CI variable set) that fails the run. A hash of its requirement files
is kept in each venv, so editing them reinstalls that venv on the next run.
Editor type stubs (requirements-editor.txt) go to `.venv/editor-stubs`, a folder the venv's python
never imports from, so they cannot shadow the real bpy; pyproject.toml ([tool.pyright]) points pyright
and editors at them.

`test` also installs the tests' npm packages (the Khronos glTF-Validator, pyright, three.js,
Babylon.js' core and loaders, playwright-core and glTF-Transform's core, extensions, functions and
cli, pinned by tests/validator/package.json and package-lock.json) into `.node/` with `npm ci`,
re-done only when those two files change (a hash stamp like the venvs'), and tells the tests where
they are through GLTF_SQLERP_VALIDATOR (the node_modules folder). That needs Node.js 18+ and npm on
PATH. The browser tests (tests/web/test_three_page.py, test_babylon_page.py) need Chromium: `chromium`
on PATH or the CHROMIUM variable; where neither is found and apt-get can install Debian's package
(as root), `test` installs it, else it stops and says how to get one.

Its parts: the venvs in tools/dev_venvs.py, the npm packages and Chromium in
tools/dev_test_tools.py. Standard library only; Linux, macOS and Windows; Python 3.11 or 3.13.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from pathlib import Path

# dev.py's parts, in tools/ (a folder beside this file, imported by its name): the venvs, and the
# npm packages and Chromium of the tests.
from tools.dev_test_tools import CHROMIUM_VARIABLE, REQUIRED_NODE, VALIDATOR_VARIABLE, ensure_chromium, ensure_validator
from tools.dev_venvs import ENVS, KEYS, MAIN_ENVS, PRIMARY, ensure_venv, find_python, say

ROOT = Path(__file__).resolve().parent
NO_TESTS_COLLECTED = 5  # pytest's exit code

USAGE = f"""usage: python dev.py <command> [args]       (Python 3.11 or 3.13)

commands:
  test [pytest args]   run the tests (python -m pytest, tests/ by default) once per pinned Blender:
                       the whole suite with the main venv's Blender ({PRIMARY.bpy} here: 4.5 under
                       Python 3.11, 5.2 under 3.13), then only the Blender tests (-m blender) with
                       each other pinned Blender whose Python is found (all: {KEYS}).
                       The same pytest args go to each run; a -m of yours is combined (`blender and (...)`).
                       Ends with one line per run (and per skipped Blender) and `N passed, N failed`;
                       exits non-zero if any run failed, or under CI if a Blender was skipped.
                       First installs the pinned npm packages (glTF-Validator, pyright, three.js,
                       Babylon.js, playwright-core, glTF-Transform) into .node (needs Node.js {REQUIRED_NODE}+)
                       and, where none is found, Debian's chromium (apt-get, as root) for the
                       browser test.
  test --blender 4.2 [pytest args]
                       only the run of that Blender ({KEYS}; several: --blender 4.2,5.3), as
                       above: the main venv's Blender runs the whole suite (add -m blender for its
                       Blender tests only).
  demo [args]          run tools/demo.py with .venv
  run <script> [args]  run any Python script with .venv (e.g. tools/make_sample.py)
  build [folder]       validate the manifest and build the extension zip (dist/ by default) with
                       Blender's own extension tooling (`blender --command extension build`)
"""


def require_supported_python() -> None:
    if tuple(sys.version_info[:2]) in MAIN_ENVS:
        return
    found = ".".join(map(str, sys.version_info[:3]))
    sys.exit(
        f"dev.py: Python 3.11 or 3.13 is required, this is Python {found} ({sys.executable}).\n"
        "The pinned Blender modules are published for one CPython each: bpy 4.2, 4.5 and 5.0 for\n"
        "3.11, bpy 5.2 and 5.3 for 3.13. Get one from https://www.python.org/downloads/\n"
        "(Windows/macOS installers), your package manager (e.g. `apt install python3.11`,\n"
        "`brew install python@3.13`), `pyenv install 3.13` or `uv python install 3.13`, then run\n"
        "this script with it, e.g. `python3.13 dev.py test` (Windows: `py -3.13 dev.py test`).")


def run(command: Sequence[str | os.PathLike[str]], cwd: str | os.PathLike[str] | None = None) -> int:
    """Run a command and return its exit code (file arguments stay relative to the caller's folder)."""
    return subprocess.run([str(part) for part in command], cwd=cwd).returncode


def split_test_args(args: Sequence[str]) -> tuple[list[str] | None, list[str], str | None]:
    """(--blender keys or None, pytest args, the user's -m expression or None)."""
    keys, rest, marker, items = None, [], None, iter(args)
    for arg in items:
        if arg == "--blender" or arg.startswith("--blender="):
            value = arg.partition("=")[2] or next(items, "")
            keys = (keys or []) + [key.strip() for key in value.split(",") if key.strip()]
        elif arg == "-m":
            marker = next(items, "")
        elif arg.startswith("-m") and not arg.startswith("--"):
            marker = arg[2:]
        else:
            rest.append(arg)
    return keys, rest, marker


def read_results(path: str | os.PathLike[str]) -> dict[str, int]:
    """passed, failed (failures and errors), skipped, Blender tests: counted from pytest's JUnit XML."""
    counts = dict(passed=0, failed=0, skipped=0, blender=0)
    try:
        cases = list(ElementTree.parse(path).iter("testcase"))
    except (OSError, ElementTree.ParseError):  # pytest stopped before writing it (usage error, crash)
        return counts
    for case in cases:
        outcomes = {child.tag for child in case}
        outcome = ("failed" if outcomes & {"failure", "error"} else
                   "skipped" if "skipped" in outcomes else "passed")
        counts[outcome] += 1
        # conftest records the `blender` marker as a property of each Blender test.
        counts["blender"] += any(prop.get("name") == "blender" for prop in case.iter("property"))
    return counts


def test(args: Sequence[str]) -> int:
    keys, pytest_args, marker = split_test_args(args)
    unknown = sorted(set(keys or []) - {env.key for env in ENVS})
    if keys is not None and (unknown or not keys):
        print(f"dev.py: --blender takes {', '.join(env.key for env in ENVS)}, got {unknown or 'nothing'}\n\n"
              f"{USAGE}", file=sys.stderr)
        return 2
    selected = [env for env in ENVS if keys is None or env.key in keys]
    # The npm packages and Chromium first: quick, and a machine without Node.js fails before the
    # venvs download.
    os.environ[VALIDATOR_VARIABLE] = str(ensure_validator())
    os.environ[CHROMIUM_VARIABLE] = ensure_chromium()
    interpreters = {env.key: sys.executable if env is PRIMARY else find_python(env.python_version)
                    for env in selected}
    missing = [env for env in selected if interpreters[env.key] is None]
    for env in missing:
        say(f"no {env.python_name} found (python{env.python_version[0]}.{env.python_version[1]} on PATH, "
            f"pyenv, py -{env.python_version[0]}.{env.python_version[1]}): {env.title} is skipped")
    selected = [env for env in selected if env not in missing]
    # Installs first, so that a failed install runs nothing.
    pythons = [ensure_venv(env, interpreters[env.key]) for env in selected]
    runs = []
    with tempfile.TemporaryDirectory(prefix="gltf_sqlerp_dev_") as scratch:
        for env, python in zip(selected, pythons):
            full = env is PRIMARY
            expression = marker if full else f"blender and ({marker})" if marker else "blender"
            xml = Path(scratch) / f"{env.folder.name}.xml"
            print(f"\n== {env.title} ==", flush=True)
            say(f"{env.folder.name}: {'the whole suite' if full else 'the Blender tests'}"
                f"{f' (-m {expression!r})' if expression else ''}")
            marks = ["-m", expression] if expression else []
            # From the root, where pytest.ini says `testpaths = tests`.
            code = run([python, "-m", "pytest", *pytest_args, *marks, f"--junitxml={xml}"], cwd=ROOT)
            runs.append((env, full, code, read_results(xml)))

    # A run that collects nothing fails, unless the primary run (when there is one) selected no
    # Blender test either: then args such as a core test file simply leave nothing for the others.
    primary = next((counts for env, _, _, counts in runs if env is PRIMARY), None)
    nothing_to_run = primary is not None and primary["blender"] == 0
    print("\n== summary ==")
    status = 0
    for env, full, code, counts in runs:
        ok = code == 0 or (code == NO_TESTS_COLLECTED and not full and nothing_to_run)
        skipped = f", {counts['skipped']} skipped" if counts["skipped"] else ""
        cause = f"killed by signal {-code}" if code < 0 else f"pytest exit code {code}"
        if counts["skipped"]:  # a test that did not run proves nothing: the run fails
            ok, cause = False, f"{cause}; skipped tests fail the run"
        status = status if ok else 1
        if not ok and counts["failed"] == 0:  # crash, usage error, nothing collected: still a failure
            counts["failed"], cause = 1, f"{cause}; counted as 1 failed"
        verdict = "ok" if ok and code == 0 else "ok, none selected" if ok else f"FAILED ({cause})"
        print(f"{env.title}, {'core and Blender tests' if full else 'Blender tests'}: "
              f"{counts['passed']} passed, {counts['failed']} failed{skipped}: {verdict}")
    under_ci = bool(os.environ.get("CI"))
    for env in missing:  # a developer may lack a Python; CI must run every pinned Blender
        print(f"{env.title}: skipped, no {env.python_name} found: "
              + ("FAILED (CI runs every pinned Blender)" if under_ci else f"install {env.python_name} to run it"))
        status = 1 if under_ci else status
    failed = sum(c['failed'] for *_, c in runs) + (len(missing) if under_ci else 0)
    print(f"{sum(c['passed'] for *_, c in runs)} passed, {failed} failed"
          + (f", {len(missing)} Blender(s) skipped" if missing and not under_ci else ""), flush=True)
    return status


# Blender's own extension tooling (what `blender --command extension ...` runs), through the bpy
# module, with an empty user folder so that it writes nothing into the developer's Blender.
BUILD_SCRIPT = """
import os, sys, tempfile
os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="gltf_sqlerp_build_")
import bpy
from bl_pkg import bl_extension_cli
root, output = sys.argv[1], sys.argv[2]
code = bl_extension_cli.cli_extension_handler(["validate", root])
code = code or bl_extension_cli.cli_extension_handler(["build", "--source-dir", root, "--output-dir", output])
sys.stdout.flush()
os._exit(code)
"""


def build_extension(python: str | os.PathLike[str], args: Sequence[str]) -> int:
    """Validate the manifest and build the extension zip into dist/ (or the folder given)."""
    output = Path(args[0]).resolve() if args else ROOT / "dist"
    output.mkdir(parents=True, exist_ok=True)
    return run([python, "-c", BUILD_SCRIPT, ROOT, output])


def main(argv: Sequence[str]) -> int:
    require_supported_python()
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if argv else 2
    command, args = argv[0], argv[1:]
    if command not in ("test", "demo", "run", "build") or (command == "run" and not args):
        print(f"dev.py: unknown command or missing script: {' '.join(argv)!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    if command == "test":
        return test(args)
    python = ensure_venv(PRIMARY)
    if command == "build":
        return build_extension(python, args)
    # The demo checks its export with the glTF-Validator, and the export benchmarks play their files
    # with three.js, when Node.js is there to run them.
    if shutil.which("node") and shutil.which("npm"):
        os.environ[VALIDATOR_VARIABLE] = str(ensure_validator())
    if command == "demo":
        return run([python, ROOT / "tools" / "demo.py", *args])
    return run([python, *args])


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
