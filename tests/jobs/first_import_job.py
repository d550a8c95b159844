"""Child process of tests/operators/test_first_import.py (not a test module itself).

A fresh Blender (the bpy module) with its own empty user folder and the extension installed from
its zip, as a user has it after installing: the very first thing it does is import a file of
EXT_animation_sqlerp's draft form (no core sampler, the extension required), by one route. Until
something has loaded the bundled importer's parser module, there is nothing to help it parse that
form; this job is how a user meets it. Prints one JSON line: the result, the report, and whether
the arm's action carries the import's records.
Usage: ``python first_import_job.py ZIP FILE ROUTE``; ROUTE "operator" (import_scene.gltf_sqlerp)
or "dialog" (File > Import > glTF 2.0, its "Exact Animation" panel on, as by default).
"""

import importlib
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator, settings
from helpers.child_job import finish

MODULE = "bl_ext.user_default.gltf_sqlerp"


def main(package, path, route):
    import bpy
    # Blender's add-ons (scripts/addons_core) are on the path at run time only, by name here.
    bl_extension_cli = importlib.import_module("bl_pkg.bl_extension_cli")
    assert bl_extension_cli.cli_extension_handler(["install-file", "-r", "user_default", "-e", package]) == 0
    parser_loaded_before = "io_scene_gltf2.io.imp.gltf2_io_gltf" in sys.modules
    reports = []
    try:
        if route == "operator":
            result = operator("import_scene.gltf_sqlerp")(filepath=path)
        else:
            assert settings(current_scene(), "gltf_sqlerp_import").exact_animation
            result = operator("import_scene.gltf")(filepath=path)
    except RuntimeError as error:  # an operator's error report, as Blender raises it in scripts
        result, reports = {"CANCELLED"}, [str(error)]
    installed = sys.modules[MODULE]
    arms = [o for o in bpy.data.objects if o.type == 'ARMATURE']
    stored = bool(arms) and arms[0].animation_data is not None and \
        installed.operators.action_data.load(arms[0].animation_data.action) is not None
    print(json.dumps({"result": sorted(result), "reports": reports, "stored": stored,
                      "parser_loaded_before": parser_loaded_before}))


if __name__ == "__main__":
    # Blender's user folder: an empty temporary one, set before bpy is imported.
    os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="gltf_sqlerp_first_")
    finish(lambda: main(*sys.argv[1:4]))
