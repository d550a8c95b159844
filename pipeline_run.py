"""Command-line launcher of glTF Sqlerp's batch runs (the pipeline/ package beside this file).

    blender --background --python pipeline_run.py -- COMMAND [ARGS]   (Blender's own Python)
    python pipeline_run.py COMMAND [ARGS]       (Python 3.11 + numpy; the bpy module for
                                                 verify and export)
    python pipeline_run.py --help

COMMAND is verify, export, convert or convert-file (see pipeline/__init__.py, or ``--help``). Prints a
JSON report; exit code 0 ok, 1 some file failed, 2 usage error.

The package is imported by path from this folder (an installed extension's folder or a checkout),
or reused if Blender loaded it already (``bl_ext.<repository>.gltf_sqlerp``), so the add-on's
hooks and operators are the ones of this copy.
"""

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
NAME = "gltf_sqlerp"


def _package() -> ModuleType:
    init = HERE / "__init__.py"
    for name, module in list(sys.modules.items()):  # already loaded (an enabled extension)
        file = getattr(module, "__file__", None)
        if file and name.rpartition(".")[2] == NAME and Path(file).resolve() == init:
            return module
    if NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(NAME, init, submodule_search_locations=[str(HERE)])
        if spec is None or spec.loader is None:  # a package's __init__.py always has both
            raise ImportError(f"cannot load {init}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[NAME]


def _arguments() -> list[str]:
    """Under ``blender --python``, Blender's own arguments come first: ours follow ``--``."""
    argv = sys.argv
    return argv[argv.index("--") + 1:] if "--" in argv else argv[1:]


def run() -> int:
    package = _package()
    pipeline = importlib.import_module(f"{package.__name__}.pipeline")
    code = pipeline.main(_arguments())
    sys.stdout.flush()
    sys.stderr.flush()
    bpy = sys.modules.get("bpy")
    if bpy is not None and (bpy.app.background or "--" not in sys.argv):
        # The bpy module of Blender 4.2 can crash at exit after a glTF export; a batch run is over.
        os._exit(code)
    return code


if __name__ == "__main__":
    code = run()
    if "bpy" not in sys.modules:  # a background Blender has ended in run() already
        sys.exit(code)
