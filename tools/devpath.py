"""How dev scripts (tools/, bench/) import this repository.

The package is imported under its manifest id, ``gltf_sqlerp``, from the repository root, the way
Blender imports it (``bl_ext.<repo>.gltf_sqlerp``) and tests/conftest.py does; sibling scripts load
by path. A script reaches this module with one line:
``sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))``.
"""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable, TypeVar

_T = TypeVar("_T")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "gltf_sqlerp"


def load_module(name: str, path: Path | str, package_root: Path | None = None) -> ModuleType:
    """Import ``path`` as module ``name`` once (a package when ``package_root`` is given)."""
    if name not in sys.modules:
        locations = [str(package_root)] if package_root is not None else None
        spec = importlib.util.spec_from_file_location(name, path,
                                                      submodule_search_locations=locations)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path} as {name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def import_package() -> ModuleType:
    """The add-on package as ``gltf_sqlerp`` (needs no bpy)."""
    return load_module(PACKAGE, ROOT / "__init__.py", package_root=ROOT)


def venv_python() -> Path:
    """The project venv's interpreter (``python dev.py test`` creates it)."""
    windows = ROOT / ".venv" / "Scripts" / "python.exe"
    return windows if windows.exists() else ROOT / ".venv" / "bin" / "python"


def ensure_bpy(script: str | Path) -> None:
    """Re-execute ``script`` under the project venv when this interpreter has no ``bpy``."""
    import os
    import subprocess
    if importlib.util.find_spec("bpy") is not None:
        return
    python = venv_python()
    usable = python.exists() and subprocess.run(
        [str(python), "-c", "import bpy"], capture_output=True).returncode == 0
    if not usable:
        sys.exit(f"no bpy here and none in {python}: run `python dev.py test` once to create the venv")
    print(f"re-running under {python} (has bpy)", flush=True)
    os.execv(str(python), [str(python), str(Path(script).resolve()), *sys.argv[1:]])


def quiet(function: Callable[[], _T]) -> _T:
    """Run ``function`` with Blender's console chatter (stdout/stderr at the file-descriptor
    level) sent to the null device; return its result."""
    import os
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            return function()
        finally:
            sys.stdout.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
