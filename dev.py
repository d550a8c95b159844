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

Standard library only; Linux, macOS and Windows; Python 3.11 or 3.13.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import venv
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PY311, PY313 = (3, 11), (3, 13)
NO_TESTS_COLLECTED = 5  # pytest's exit code

# The pinned glTF-Validator: its npm package.json and lock file, the folder npm installs it into, and
# the variable that tells the tests (tests/helpers/gltf_validator.py) where its node_modules folder is.
VALIDATOR_SPEC = [ROOT / "tests" / "validator" / name for name in ("package.json", "package-lock.json")]
NODE_FOLDER = ROOT / ".node"
VALIDATOR_VARIABLE = "GLTF_SQLERP_VALIDATOR"
REQUIRED_NODE = 18
NPM_PACKAGES = ("gltf-validator", "pyright", "three", "playwright-core", "@gltf-transform/core",
                "@gltf-transform/extensions", "@gltf-transform/functions", "@gltf-transform/cli",
                "@babylonjs/core", "@babylonjs/loaders", "babylonjs-gltf2interface", "typescript", "@types/three")
CHROMIUM_VARIABLE = "CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_HELP = (
    "The browser tests play the sample in headless Chromium (tests/web/test_three_page.py,\n"
    "test_babylon_page.py). Install Chromium or Google Chrome (e.g. `apt install chromium`, `brew\n"
    "install --cask chromium`, `winget install Google.Chrome`) and put it on PATH, or set CHROMIUM to\n"
    "its executable, and run this again.")
NODE_HELP = (
    "The tests check glTF files with the Khronos glTF-Validator, an npm package, so they need Node.js\n"
    f"{REQUIRED_NODE} or newer with npm. Get it from https://nodejs.org/ (Windows/macOS installers), your\n"
    "package manager (e.g. `apt install nodejs npm`, `brew install node`, `winget install\n"
    "OpenJS.NodeJS.LTS`) or nvm (`nvm install --lts`), make sure `node` and `npm` are on PATH, and run\n"
    "this again.")


class Env:
    """One pinned Blender: its venv folder, requirement files (the first one pins `bpy==X`) and the
    CPython its wheel is built for."""

    def __init__(self, key: str, folder: str, requirements: str, python_version: tuple[int, int],
                 editor_requirements: str | None = None):
        self.key, self.folder = key, ROOT / folder
        self.requirements = ROOT / requirements
        self.python_version = python_version
        self.editor_requirements = ROOT / editor_requirements if editor_requirements else None
        self.stamp = self.folder / "requirements.sha256"
        self.bpy = next(line.split("==")[1].strip() for line in self.requirements.read_text().splitlines()
                        if line.startswith("bpy=="))
        self.title = f"Blender {self.bpy} (bpy)"

    @property
    def python_name(self) -> str:
        return "Python {}.{}".format(*self.python_version)

    def python(self) -> Path:
        return self.folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


# The main venv per interpreter running this script: the whole suite, demo and run use it.
MAIN_ENVS: dict[tuple[int, ...], Env] = {
    PY311: Env("4.5", ".venv", "requirements-dev.txt", PY311, "requirements-editor.txt"),
    PY313: Env("5.2", ".venv", "requirements-bpy52.txt", PY313, "requirements-editor.txt")}
# Every other pinned Blender runs the Blender tests in its own venv (the main one's key is skipped).
OTHER_ENVS = [Env("4.2", ".venv-bpy42", "requirements-bpy42.txt", PY311),
              Env("4.5", ".venv-bpy45", "requirements-dev.txt", PY311),
              Env("5.0", ".venv-bpy50", "requirements-bpy50.txt", PY311),
              Env("5.2", ".venv-bpy52", "requirements-bpy52.txt", PY313),
              Env("5.3", ".venv-bpy53", "requirements-bpy53.txt", PY313)]
PRIMARY = MAIN_ENVS.get(tuple(sys.version_info[:2]), MAIN_ENVS[PY311])
ENVS = [PRIMARY] + [env for env in OTHER_ENVS if env.key != PRIMARY.key]
KEYS = ", ".join(sorted(env.key for env in ENVS))

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


def say(message: str) -> None:
    print(f"dev.py: {message}", flush=True)


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


def _version_of(command: Sequence[str]) -> tuple[str, tuple[int, ...]] | None:
    """(real executable, (major, minor)) of a Python command, or None if it does not run or cannot
    make venvs (a pyenv shim of a version that is not selected fails; Debian's python3.X without
    its python3.X-venv package has no ensurepip)."""
    probe = "import sys, venv, ensurepip; print(sys.executable); print(*sys.version_info[:2])"
    try:
        done = subprocess.run([*command, "-c", probe], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.split("\n")
    if done.returncode != 0 or len(lines) < 2 or len(lines[1].split()) != 2:
        return None
    return lines[0].strip(), tuple(int(part) for part in lines[1].split())


def _pyenv_pythons(version: tuple[int, int]) -> list[list[str]]:
    """Interpreters of ``version`` that pyenv installed, newest patch first."""
    pyenv = shutil.which("pyenv")
    root = os.environ.get("PYENV_ROOT")
    if not root and pyenv:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        root = done.stdout.strip() if done.returncode == 0 else None
    folders = Path(root or Path.home() / ".pyenv") / "versions"
    prefix = "{}.{}.".format(*version)
    found = [folder for folder in folders.glob(prefix + "*") if folder.name[len(prefix):].isdigit()]
    found.sort(key=lambda folder: int(folder.name[len(prefix):]), reverse=True)
    executable = "python.exe" if os.name == "nt" else "bin/python{}.{}".format(*version)
    return [[str(folder / executable)] for folder in found]


def find_python(version: tuple[int, int]) -> str | None:
    """A CPython of ``version`` (major, minor): this one, python3.X on PATH, pyenv's, or the Windows
    launcher's; None when there is none. Each candidate is run once to be sure."""
    if tuple(sys.version_info[:2]) == version:
        return sys.executable
    name = "python{}.{}".format(*version)
    candidates = [[path] for path in filter(None, [shutil.which(name)])]
    candidates += _pyenv_pythons(version)
    if os.name == "nt" and shutil.which("py"):
        candidates.append(["py", "-{}.{}".format(*version)])
    for command in candidates:
        found = _version_of(command)
        if found is not None and found[1] == version:
            return found[0]
    return None


def requirements_hash(env: Env) -> str:
    digest = hashlib.sha256()
    for path in filter(None, (env.requirements, env.editor_requirements)):
        # Normalise line endings so a checkout with CRLF does not count as a change.
        digest.update(path.read_bytes().replace(b"\r\n", b"\n"))
    return digest.hexdigest()


def venv_works(env: Env) -> bool:
    """True when the venv's interpreter runs and is the env's Python (a moved or upgraded Python
    breaks it; so does switching the interpreter that runs this script, for the main venv)."""
    if not env.python().exists():
        return False
    found = _version_of([str(env.python())])
    return found is not None and found[1] == env.python_version


def run_checked(command: Sequence[str | os.PathLike[str]], what: str) -> None:
    result = subprocess.run([str(part) for part in command], stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        sys.exit(f"dev.py: {what} failed (exit code {result.returncode}); fix the cause and run again.")


def pip(env: Env, *args: str | os.PathLike[str]) -> list[str | os.PathLike[str]]:
    return [env.python(), "-m", "pip", "--disable-pip-version-check", "--no-input", *args]


# Written into every venv: ``import gltf_sqlerp`` there loads this checkout, whatever its folder is
# called (a .pth file runs its ``import`` line at start-up; the module adds a finder for the name).
CHECKOUT_MODULE = """\"\"\"Written by dev.py: ``import gltf_sqlerp`` loads the checkout at ROOT.\"\"\"
import importlib.abc
import importlib.util
import sys

ROOT = {root!r}


class _Checkout(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "gltf_sqlerp":
            return None
        return importlib.util.spec_from_file_location(
            name, ROOT + "/__init__.py", submodule_search_locations=[ROOT])


sys.meta_path.append(_Checkout())
"""


def link_checkout(env: Env) -> None:
    """Make ``import gltf_sqlerp`` work in the env's venv (rewritten when the checkout moved)."""
    for site in list(env.folder.glob("lib/python3*/site-packages")) + list(env.folder.glob("Lib/site-packages")):
        module = site / "gltf_sqlerp_checkout.py"
        text = CHECKOUT_MODULE.format(root=str(ROOT))
        if not module.exists() or module.read_text() != text:
            module.write_text(text)
            (site / "gltf_sqlerp_checkout.pth").write_text("import gltf_sqlerp_checkout\n")


# fake-bpy-module 20260730 declares ``Context.property`` (an attribute) in the class body that also
# decorates its members with ``@property``: pyright then reads every Context member as a method
# (``bpy.context.scene.render`` fails to type-check). That one declaration is commented out.
_SHADOWING = "\n    property: tuple[AnyType]\n"
_MENDED = "\n    # property: tuple[AnyType]  (commented out by dev.py: it shadows @property)\n"


def mend_stubs(env: Env) -> None:
    """Remove the one stub declaration that breaks pyright (above); nothing when already done."""
    types = env.folder / "editor-stubs" / "bpy-stubs" / "types" / "__init__.pyi"
    if not types.exists():
        return
    text = types.read_text(encoding="utf-8")
    start = text.find("\nclass Context(bpy_struct):")
    at = text.find(_SHADOWING, start)
    if start >= 0 and 0 <= at < text.find("\nclass ", start + 1):
        types.write_text(text[:at] + _MENDED + text[at + len(_SHADOWING):], encoding="utf-8")


def link_for_pyright(env: Env) -> None:
    """``.venv/pyright-paths``: this checkout under its package name (pyright does not run the
    venv's finder) and the bundled glTF add-on of the venv's Blender (``io_scene_gltf2``, which
    bundled_gltf imports), for pyright's ``extraPaths``. Junctions where symlinks need rights."""
    addons = sorted(env.folder.glob("[Ll]ib/*/site-packages/bpy/*/scripts/addons_core/io_scene_gltf2")
                    or env.folder.glob("[Ll]ib/site-packages/bpy/*/scripts/addons_core/io_scene_gltf2"))
    targets = {"gltf_sqlerp": ROOT, **({"io_scene_gltf2": addons[-1]} if addons else {})}
    for name, target in targets.items():
        _link(env.folder / "pyright-paths" / name, target)


def _link(link: Path, target: Path) -> None:
    if link.exists():
        return
    link.parent.mkdir(exist_ok=True)
    try:
        # relative: the venv lives in the checkout, so the link survives moving it
        link.symlink_to(os.path.relpath(target, link.parent), target_is_directory=True)
    except OSError:
        if os.name != "nt":
            raise
        subprocess.run(["cmd", "/c", "mklink", "/J", str(link), str(target)], check=True, capture_output=True)


def ensure_venv(env: Env, interpreter: str | None = None) -> Path:
    """Create or update the env's venv so that it matches its pinned requirements; return its python.
    ``interpreter``: the Python to create it with (this one by default)."""
    python = _ensure_packages(env, interpreter)
    link_checkout(env)
    if env.editor_requirements:
        mend_stubs(env)
        link_for_pyright(env)
    return python


def _ensure_packages(env: Env, interpreter: str | None) -> Path:
    wanted, name = requirements_hash(env), env.folder.name
    if not venv_works(env):
        interpreter = interpreter or sys.executable
        say(f"creating {name} with {env.python_name} ({interpreter}) ...")
        if interpreter == sys.executable:
            venv.EnvBuilder(with_pip=True, clear=True).create(env.folder)
        else:
            run_checked([interpreter, "-m", "venv", "--clear", env.folder], f"creating {name}")
        say(f"installing pinned packages for {env.title} into {name} (first run only, ~400 MB download) ...")
    elif env.stamp.exists() and env.stamp.read_text().strip() == wanted:
        return env.python()
    else:
        say(f"requirement files changed (or the last install did not finish): updating {name} ...")

    # The stamp goes only after a complete install, so an interrupted one is redone next time.
    env.stamp.unlink(missing_ok=True)
    run_checked(pip(env, "install", "-r", env.requirements), f"installing {env.requirements.name}")
    if env.editor_requirements:
        stubs = env.folder / "editor-stubs"
        say(f"installing editor type stubs into {name}/editor-stubs (not importable by the venv) ...")
        run_checked(pip(env, "install", "--upgrade", "--no-deps", "--target", stubs,
                        "-r", env.editor_requirements), f"installing {env.editor_requirements.name}")
    env.stamp.write_text(wanted + "\n")
    say(f"{name} is ready")
    return env.python()


def ensure_validator() -> Path:
    """Install the pinned npm packages of the tests (NPM_PACKAGES) into .node/ unless they are there
    already; return its node_modules."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        sys.exit(f"dev.py: {'Node.js (`node`)' if not node else '`npm`'} was not found on PATH.\n{NODE_HELP}")
    try:
        version = subprocess.run([node, "--version"], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    except OSError as error:
        sys.exit(f"dev.py: cannot run {node} ({error}).\n{NODE_HELP}")
    major = version.stdout.strip().lstrip("v").split(".")[0]
    if version.returncode != 0 or not major.isdigit() or int(major) < REQUIRED_NODE:
        found = version.stdout.strip() or f"exit code {version.returncode}"
        sys.exit(f"dev.py: `node --version` says {found} ({node}); Node.js {REQUIRED_NODE}+ is needed.\n{NODE_HELP}")

    digest = hashlib.sha256()
    for path in VALIDATOR_SPEC:
        digest.update(path.read_bytes().replace(b"\r\n", b"\n"))
    wanted, stamp = digest.hexdigest(), NODE_FOLDER / "validator.sha256"
    modules = NODE_FOLDER / "node_modules"
    installed = all((modules / name / "package.json").exists() for name in NPM_PACKAGES)
    if installed and stamp.exists() and stamp.read_text().strip() == wanted:
        return modules
    pinned = json.loads(VALIDATOR_SPEC[0].read_text())["dependencies"]["gltf-validator"]
    why = 'first run' if not installed else 'pin changed, or the last install did not finish'
    say(f"installing glTF-Validator {pinned}, pyright, three.js, Babylon.js, playwright-core and "
        f"glTF-Transform (npm) into {NODE_FOLDER.name} ({why}) ...")
    # npm ci installs exactly the lock file (and checks its integrity hashes) into .node/node_modules.
    # As for the venvs, the stamp goes only after a complete install.
    stamp.unlink(missing_ok=True)
    NODE_FOLDER.mkdir(exist_ok=True)
    for path in VALIDATOR_SPEC:
        (NODE_FOLDER / path.name).write_bytes(path.read_bytes())
    run_checked([npm, "ci", "--prefix", NODE_FOLDER, "--no-audit", "--no-fund"],
                f"installing the tests' npm packages (glTF-Validator {pinned}) with npm")
    stamp.write_text(wanted + "\n")
    say(f"{NODE_FOLDER.name} is ready")
    return modules


def _find_chromium() -> str | None:
    named = os.environ.get(CHROMIUM_VARIABLE)
    if named:
        return named if Path(named).is_file() else shutil.which(named)
    return next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)


def ensure_chromium() -> str:
    """The Chromium the browser test drives: CHROMIUM, or one on PATH, or Debian's package, which
    apt-get installs when this runs as root (CI machines); else stop with CHROMIUM_HELP."""
    found = _find_chromium()
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt and hasattr(os, "geteuid") and os.geteuid() == 0:
        say("installing Debian's chromium (apt-get) for the browser test ...")
        install = [apt, "install", "-y", "-q", "--no-install-recommends", "chromium"]
        quiet = {"stdin": subprocess.DEVNULL, "env": {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}}
        # A machine whose package lists are stale or absent needs one update first.
        if subprocess.run(install, **quiet).returncode != 0:
            subprocess.run([apt, "update", "-q"], **quiet)
            if subprocess.run(install, **quiet).returncode != 0:
                sys.exit(f"dev.py: installing chromium with apt-get failed.\n{CHROMIUM_HELP}")
        found = _find_chromium()
    if not found:
        sys.exit(f"dev.py: no Chromium found (CHROMIUM, or {', '.join(CHROMIUM_NAMES)} on PATH).\n{CHROMIUM_HELP}")
    return found


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
