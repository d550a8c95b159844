"""The pinned Blenders' virtual environments of dev.py (its docstring tells the whole story).

Which CPython each Blender's ``bpy`` wheel needs and where to find one (this interpreter,
python3.X on PATH, pyenv, the Windows launcher); creating a venv, installing its pinned
requirement files and re-installing when their hash changes; linking the venv to this checkout
(``import gltf_sqlerp``) and, for the main venv, the editor stubs and pyright's paths.

Standard library only: dev.py runs it with the system's Python, before any venv exists.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY311, PY313 = (3, 11), (3, 13)


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


# The main venv per interpreter running dev.py: the whole suite, demo and run use it.
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


def say(message: str) -> None:
    print(f"dev.py: {message}", flush=True)


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
    breaks it; so does switching the interpreter that runs dev.py, for the main venv)."""
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
