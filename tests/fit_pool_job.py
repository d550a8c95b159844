"""Child process of tests/test_fit_processes.py (not a test module itself).

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

ROOT = Path(__file__).resolve().parents[1]
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


def euler_task(seed, keys=30):
    """An XYZ Euler rotation, Bezier keys 4 to 12 frames apart (as tests/test_fit_processes.py)."""
    curve_keys = import_module(PACKAGE + ".core.blender_model").CurveKeys
    fitting = import_module(PACKAGE + ".core.fitting")
    rng = np.random.default_rng(seed)
    frames = np.cumsum(rng.integers(4, 13, keys)).astype(float)
    curves = []
    for _ in range(3):
        values = np.cumsum(rng.normal(0.0, 0.3, keys))
        third = np.diff(frames, prepend=frames[0] - 8.0) / 3.0
        slope = np.gradient(values, frames)
        curves.append(curve_keys(np.column_stack([frames, values]),
                                 np.column_stack([frames - third, values - slope * third]),
                                 np.column_stack([frames + third, values + slope * third]),
                                 np.array(["BEZIER"] * keys)))
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    motion = fitting.RotationMotion("XYZ", frames, curves)
    target = fitting.ChannelTarget(motion, identity, identity, slide=frames[0], rate=24.0)
    return fitting.ChannelTask(target, frames[0], frames[-1])


load_as_blender_does()
options = import_module(PACKAGE + ".core.fitting").ExportOptions()
tasks = [euler_task(seed) for seed in range(4)]
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
