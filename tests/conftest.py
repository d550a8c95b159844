"""Test set-up shared by every test file.

The repository root is the extension package, so the tests import it under its manifest id
(``gltf_sqlerp``) the way Blender imports it as ``bl_ext.<repo>.gltf_sqlerp``: from the root's
``__init__.py`` with the root as its submodule search path.
"""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "gltf_sqlerp"
SHARED = Path(os.environ.get("GLTF_SQLERP_SHARED", ROOT.parent / "shared"))
ASSETS = SHARED / "assets"


def _import_package():
    if PACKAGE in sys.modules:
        return sys.modules[PACKAGE]
    spec = importlib.util.spec_from_file_location(
        PACKAGE, ROOT / "__init__.py", submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    spec.loader.exec_module(module)
    return module


_import_package()


def pytest_configure(config):
    # The third-party models are read from ../shared/assets, never copied into the repository.
    # Without them most fidelity tests would silently vanish from parametrized lists, so a missing
    # folder stops the run instead of skipping.
    if not ASSETS.is_dir():
        raise pytest.UsageError(
            f"test assets not found at {ASSETS}: clone the project with ../shared beside it, "
            "or set GLTF_SQLERP_SHARED to the folder that holds assets/")


@pytest.fixture(scope="session")
def shared_assets():
    return ASSETS
