"""Test set-up shared by every test file.

The repository root is the extension package, so the tests import it under its manifest id
(``gltf_sqlerp``) the way Blender imports it as ``bl_ext.<repo>.gltf_sqlerp``: from the root's
``__init__.py`` with the root as its submodule search path.

Blender tests are the ones that need ``bpy``: mark them ``blender`` (``pytestmark =
pytest.mark.blender`` at the top of the file). ``python dev.py test`` runs the whole suite with the
primary Blender, then only ``-m blender`` with each other pinned Blender (4.2 LTS, 5.0).

The test modules are in one folder per package they test (core, operators, bundled, pipeline, web,
repository); what they share is the package tests/helpers, importable from every folder because
tests/ is on ``sys.path`` (pytest.ini's ``pythonpath``; pytest's default import mode puts this
file's folder there too). No test module imports another (tests/repository/test_layout.py).
"""

import importlib.util
import os
import sys
import tempfile

import pytest

from helpers import ASSETS, devpath, tool  # devpath: how dev scripts import the package

# Fixtures that give a test the real Blender; a test using one must be marked `blender`.
BLENDER_FIXTURES = ("addon", "empty_scene", "fidelity")


devpath.import_package()


def pytest_configure(config):
    # The third-party models are read from ../shared/assets, never copied into the repository.
    # Without them most fidelity tests would silently vanish from parametrized lists, so a missing
    # folder stops the run instead of skipping.
    if not ASSETS.is_dir():
        raise pytest.UsageError(
            f"test assets not found at {ASSETS}: clone the project with ../shared beside it, "
            "or set GLTF_SQLERP_SHARED to the folder that holds assets/")
    _isolate_blender_user_resources(config)
    config.pluginmanager.register(_FinalStatus(), "gltf_sqlerp_final_status")


def _isolate_blender_user_resources(config):
    # bpy reads the user's Blender folder (startup file, preferences, extensions) and the extension
    # tooling writes into it. An empty folder per session keeps tests at factory state and leaves
    # the developer's Blender alone. It must be set before the first `import bpy`.
    config._blender_user_resources = tempfile.TemporaryDirectory(prefix="gltf_sqlerp_blender_")
    os.environ["BLENDER_USER_RESOURCES"] = config._blender_user_resources.name


def pytest_report_header(config):
    # Which Blender this session runs against. bpy is imported only where it is installed (every
    # dev.py venv has it); core tests never rely on this import (their no-bpy checks run in a fresh
    # interpreter), and the user-resources folder is already set, as pytest_configure runs first.
    if importlib.util.find_spec("bpy") is None:
        return "blender: none (bpy is not installed: tests marked `blender` will fail)"
    import bpy
    return f"blender: {bpy.app.version_string} (the bpy module)"


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects anything, so every run checks every test
def pytest_collection_modifyitems(config, items):
    # A Blender test without the `blender` marker would run with one Blender only (the others run
    # `-m blender`). We chose failing loudly over marking it silently: the mark stays visible in the
    # test file, where readers and `-m` expressions look for it. So a test that uses a Blender fixture
    # unmarked stops the session here. Tests importing bpy themselves cannot be detected: mark them.
    unmarked = [item.nodeid for item in items if item.get_closest_marker("blender") is None
                and any(name in item.fixturenames for name in BLENDER_FIXTURES)]
    if unmarked:
        raise pytest.UsageError(
            f"these tests use a Blender fixture ({', '.join(BLENDER_FIXTURES)}) but are not marked "
            "`blender`; add `pytestmark = pytest.mark.blender` to their file (or "
            "@pytest.mark.blender):\n  " + "\n  ".join(unmarked))
    for item in items:
        if item.get_closest_marker("blender") is not None:
            # Lands in --junitxml reports: dev.py counts the Blender tests of a run from it.
            item.user_properties.append(("blender", "1"))


def pytest_unconfigure(config):
    folder = getattr(config, "_blender_user_resources", None)
    if folder is not None:
        folder.cleanup()
    status = getattr(config, "_final_exitstatus", None)
    if status is not None:
        # A session that loaded bpy ends here, as the child jobs do (child_job.finish): Blender's
        # global destructors were seen to wait forever at interpreter exit once its glTF add-on,
        # numpy and jsonschema had run in one process (bpy 4.5.4: 4 threads parked on futexes after
        # the results were printed, 2026-11-29). Every report is written by now.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(int(status))


@pytest.fixture(scope="session")
def shared_assets():
    return ASSETS


@pytest.fixture(scope="session")
def addon():
    """The package registered in the real Blender (``bpy`` of the dev.py venv in use), once per session.

    bpy is imported here, not at the top, so core-only runs need no Blender. The add-on is
    unregistered at teardown: a process that exits with an operator still registered was seen to hang.
    """
    import bpy  # noqa: F401 (the real module; outside the project venv this fails loudly)
    package = sys.modules[devpath.PACKAGE]
    package.register()
    yield package
    package.unregister()


@pytest.fixture
def empty_scene(addon):
    """A clean, empty scene with the add-on registered (preferences and registrations are kept)."""
    import bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    return bpy.context.scene


def pytest_sessionfinish(session, exitstatus):
    # Blender hangs at exit while a Python class is still registered (measured: bpy 4.5.4 waits
    # forever in a global destructor). A broken unregister() or a register() that failed half-way
    # would then stall CI instead of failing it: unregister what is left and fail the run.
    if "bpy" not in sys.modules:
        return
    leftovers = _unregister_leftovers()
    if leftovers:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(f"\nERROR: still registered at the end of the session: {', '.join(leftovers)}"
                            " (unregister() missed them; unregistered now so Blender can exit)", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


class _FinalStatus:
    """Keeps the run's final exit status for pytest_unconfigure's exit (bpy sessions only)."""

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        if "bpy" in sys.modules:
            session.config._final_exitstatus = session.exitstatus


def _unregister_leftovers():
    import bpy
    classes = {value for name, module in list(sys.modules.items())
               if name == devpath.PACKAGE or name.startswith(devpath.PACKAGE + ".")
               for value in vars(module).values()
               if isinstance(value, type) and issubclass(value, bpy.types.bpy_struct)
               and value.__module__ == name and getattr(value, "is_registered", False)}
    for cls in classes:
        bpy.utils.unregister_class(cls)
    return sorted(cls.__name__ for cls in classes)


@pytest.fixture(scope="module")
def fidelity():
    """tools/fidelity.py with the add-on enabled the way Blender enables it (the bundled importer
    calls the hooks of enabled add-ons only); disabled again when the test module is done."""
    fidelity_tool = tool("tools/fidelity.py")
    fidelity_tool.enable_addon()
    yield fidelity_tool
    fidelity_tool.disable_addon()
