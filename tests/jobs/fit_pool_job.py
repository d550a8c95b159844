"""Child process of tests/core/test_fit_processes.py (not a test module itself).

The add-on loaded the way Blender loads an installed extension: as ``bl_ext.user_default.gltf_sqlerp``
under ``bl_ext`` and ``bl_ext.user_default``, modules with no file that a new interpreter cannot
import; and a main script that does its work unguarded, as ``blender --python`` scripts do. A
FitProcesses started from there fits what this process fits, with that package's classes on both
sides, and no worker runs this script again. Prints one JSON line. Usage: ``python fit_pool_job.py``.
"""

import json
import sys
import types
from importlib import import_module, util
from pathlib import Path

import numpy as np

if __name__ != "__main__":  # a worker running this script again, as spawn does unless told not to
    raise SystemExit("fit_pool_job.py ran again in a worker")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.euler_tasks import euler_task

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "bl_ext.user_default.gltf_sqlerp"


def load_as_blender_does():
    """The repository as PACKAGE, under two path-only modules (Blender's bl_ext and its repo)."""
    for name, path in (("bl_ext", []), ("bl_ext.user_default", [str(ROOT.parent)])):
        module = types.ModuleType(name)
        module.__path__ = path
        sys.modules[name] = module
    spec = util.spec_from_file_location(PACKAGE, ROOT / "__init__.py", submodule_search_locations=[str(ROOT)])
    assert spec is not None and spec.loader is not None
    package = util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)
    vars(sys.modules["bl_ext.user_default"])["gltf_sqlerp"] = package


load_as_blender_does()
options = import_module(PACKAGE + ".core.fitting").ExportOptions(core_alone=False)
tasks = [euler_task(seed, keys=30, package=PACKAGE) for seed in range(4)]
with import_module(PACKAGE + ".fit_workers").FitProcesses(2, options, active=1) as pool:
    for task in tasks:
        pool.submit(task)
    there = pool.results()
here = [task.fit(options) for task in tasks]
print(json.dumps({
    "same_keys": all(np.array_equal(a.fit.interleaved(), b.fit.interleaved()) for a, b in zip(here, there)),
    "modules": sorted({type(keys).__module__ for keys in there}),
    "plain_package_loaded": "gltf_sqlerp" in sys.modules,
}))
