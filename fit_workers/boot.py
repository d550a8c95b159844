"""A fit worker's start (fit_workers.processes): runpy.run_path runs this file as the initializer of
each new worker process, before the worker unpickles its first task, so it needs nothing but the
standard library.

Pickles name classes by module: a task the caller pickles is a
``bl_ext.user_default.gltf_sqlerp.core.fitting.channel_motion.ChannelTask`` inside Blender, a
``gltf_sqlerp.core.fitting.channel_motion.ChannelTask`` in the tests. A new interpreter can import
neither: Blender makes ``bl_ext`` and ``bl_ext.user_default`` itself (modules with a search path,
no file) and loads the add-on's folder as the package under them. start() does the same here, so
every class of the add-on has the same name in a worker as in the caller, and nothing is renamed
on the way. Importing the package runs its ``__init__`` only, which needs no bpy; then the worker
module (fit_workers.processes) imports numpy and ``core`` and is handed the pool's fit permits.
"""

from __future__ import annotations

import os
import sys
import types
from importlib import import_module, util
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing it fails where the system has no semaphores: the add-on must load there
    from multiprocessing.synchronize import Semaphore

RUN_NAME = "gltf_sqlerp_fit_worker_boot"  # __name__ when run by run_path: start() runs only then
ARGUMENTS = "START_ARGUMENTS"  # the global run_path is given: start()'s arguments
# One BLAS thread per worker: OpenBLAS's idle threads spin, and the workers fill the cores already.
# numpy reads these once, when it loads (with the worker module): they are set before.
ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
NICENESS = 10  # added to the worker's nice value (POSIX)
_BELOW_NORMAL_PRIORITY_CLASS = 0x4000  # Windows' priority class just under the normal one


def start(package: str, folder: str, parents: dict[str, list[str]], worker: str, permits: Semaphore) -> None:
    """Make this worker ready to fit: one BLAS thread, the add-on's ``folder`` importable as
    ``package`` inside the ``parents`` packages (name -> search path, outermost first) that
    Blender made in the caller, module ``worker`` imported and given ``permits`` (its
    worker_started), and a lower priority. Lowered last, so that the imports (numpy and core, a
    third of a second) run at Blender's priority: at the lower one, an export's busy Blender
    thread held the first fit of its head start back (measured: docs/manual/benchmarks.md,
    "Fit workers: the executor against the hand-made pool it replaced")."""
    os.environ.update(ENVIRONMENT)
    for name, path in parents.items():
        _namespace(name, path)
    _load(package, folder)
    import_module(worker).worker_started(permits)
    give_way()


def give_way() -> None:
    """Lower this worker's priority: where Blender's own threads want a core too (the bundled
    exporter gathers while the export's head start fits), they get it; idle cores stay ours."""
    try:
        if hasattr(os, "nice"):
            os.nice(NICENESS)
        elif sys.platform == "win32":
            import ctypes
            kernel = ctypes.windll.kernel32
            kernel.SetPriorityClass(kernel.GetCurrentProcess(), _BELOW_NORMAL_PRIORITY_CLASS)
    except (AttributeError, OSError):  # a courtesy to Blender: the fits are the same without it
        pass


def _namespace(name: str, path: list[str]) -> None:
    """A package ``name`` that only searches ``path``, as Blender makes ``bl_ext`` and its
    repositories (kept when this interpreter has one already)."""
    if name in sys.modules:
        return
    module = types.ModuleType(name)
    module.__path__ = list(path)
    sys.modules[name] = module
    _attach(name, module)


def _load(package: str, folder: str) -> None:
    """The add-on's ``folder`` imported as ``package``, its own folder its submodules' path."""
    if package in sys.modules:
        return
    spec = util.spec_from_file_location(package, os.path.join(folder, "__init__.py"),
                                        submodule_search_locations=[folder])
    if spec is None or spec.loader is None:
        raise ImportError(f"no add-on package in {folder}")
    module = util.module_from_spec(spec)
    sys.modules[package] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[package]  # as a failed import leaves it; the worker stops with the error
        raise
    _attach(package, module)


def _attach(name: str, module: types.ModuleType) -> None:
    """``module`` as an attribute of its parent package, as an import leaves it."""
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, module)


if __name__ == RUN_NAME:
    start(*globals()[ARGUMENTS])
