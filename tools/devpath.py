"""How dev scripts (tools/, bench/) import this repository.

The package is imported under its manifest id, ``gltf_sqlerp``, from the repository root, the way
Blender imports it (``bl_ext.<repo>.gltf_sqlerp``) and tests/conftest.py does; sibling scripts load
by path. A script reaches this module with one line:
``sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))``.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "gltf_sqlerp"


def load_module(name, path, package_root=None):
    """Import ``path`` as module ``name`` once (a package when ``package_root`` is given)."""
    if name not in sys.modules:
        locations = [str(package_root)] if package_root is not None else None
        spec = importlib.util.spec_from_file_location(name, path,
                                                      submodule_search_locations=locations)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def import_package():
    """The add-on package as ``gltf_sqlerp`` (needs no bpy)."""
    return load_module(PACKAGE, ROOT / "__init__.py", package_root=ROOT)
