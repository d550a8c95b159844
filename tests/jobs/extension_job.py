"""Child process of tests/operators/test_extension_install.py (not a test module itself).

A fresh Blender (the bpy module) with its own empty user folder: builds the extension zip with
Blender's extension tooling, installs it into the user repository and enables it, the way a user
installs it from disk, so that Blender loads it as ``bl_ext.user_default.gltf_sqlerp``; then runs
import, the live preview and the export from that installed copy (once more with its channels
fitted in worker processes), disables and removes it, and prints one JSON line of what it saw. A
separate process because the test session has the repository's own copy registered (the same
operator ids), and because the bpy module of Blender 4.2 crashes at exit after a glTF export (the
process ends with os._exit).
Usage: ``python extension_job.py FOLDER``.
"""

import importlib
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator, settings
from helpers.child_job import ROOT, finish
MODULE = "bl_ext.user_default.gltf_sqlerp"


def install(folder):
    # Blender's add-ons (scripts/addons_core) are on the path at run time only, by name here.
    cli = importlib.import_module("bl_pkg.bl_extension_cli").cli_extension_handler
    assert cli(["build", "--source-dir", str(ROOT), "--output-dir", str(folder)]) == 0
    [package] = Path(folder).glob("*.zip")
    assert cli(["install-file", "-r", "user_default", "-e", str(package)]) == 0
    return cli


def registered_leftovers():
    """Everything of the installed package still registered in Blender."""
    import bpy
    found = [name for name in ("gltf_sqlerp",) if name in dir(bpy.ops.import_scene)
             or name in dir(bpy.ops.export_scene)]
    found += [name for name in ("gltf_sqlerp_preview", "gltf_sqlerp_import", "gltf_sqlerp_export")
              if hasattr(bpy.types.Scene, name)]
    found += [f"{name}: {handler.__module__}" for name in dir(bpy.app.handlers)
              if isinstance(getattr(bpy.app.handlers, name), list)
              for handler in getattr(bpy.app.handlers, name)
              if getattr(handler, "__module__", "").startswith(MODULE)]
    found += [cls.__name__ for cls in bpy.types.Panel.__subclasses__() + bpy.types.Operator.__subclasses__()
              if cls.__module__.startswith(MODULE) and getattr(cls, "is_registered", False)]
    return found


def sqlerp_channels(core, path):
    """How many animation channels of the file at ``path`` have an EXT_animation_sqlerp sampler."""
    return sum(c.uses_extension for a in core.load(str(path)).animations for c in a.channels)


def export_in_processes(path):
    """Export again, every channel fitted in two worker processes (this small scene would be
    fitted in threads): the workers import the installed copy as Blender named it. Returns the
    operator's result and how many worker pools started."""
    fitting = vars(sys.modules[MODULE + ".operators.exporting.fitting"])
    saved = {name: fitting[name] for name in ("FitProcesses", "WORKERS", "PROCESS_MIN_CHECKS")}
    started = []

    def counted(*args, **kwargs):
        started.append(saved["FitProcesses"](*args, **kwargs))
        return started[-1]
    fitting.update(FitProcesses=counted, WORKERS=2, PROCESS_MIN_CHECKS=0)
    try:
        return sorted(operator("export_scene.gltf_sqlerp")(filepath=str(path))), len(started)
    finally:
        fitting.update(saved)


def add_clips_onto(bpy, arm):
    """The sample added again onto its own armature (onto='ACTIVE'), as Add Clips to Rig does:
    the result, the armature's NLA tracks, and whether the object count stayed."""
    objects = len(bpy.data.objects)
    view_layer = bpy.context.view_layer
    assert view_layer is not None
    view_layer.objects.active = arm
    result = sorted(operator("import_scene.gltf_sqlerp")(filepath=str(ROOT / "samples" / "sqlerp_arm.gltf"),
                                                         onto='ACTIVE'))
    assert arm.animation_data is not None
    return {"result": result, "tracks": sorted(t.name for t in arm.animation_data.nla_tracks),
            "same_objects": len(bpy.data.objects) == objects}


def main(folder):
    import bpy
    cli = install(folder)
    assert bpy.context.preferences is not None
    enabled = MODULE in bpy.context.preferences.addons
    installed = sys.modules[MODULE]
    scene = current_scene()
    assert operator("import_scene.gltf_sqlerp")(filepath=str(ROOT / "samples" / "sqlerp_arm.gltf")) == {'FINISHED'}
    arm = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
    assert arm.animation_data is not None and arm.pose is not None
    stored = installed.operators.action_data.load(arm.animation_data.action) is not None
    # pipeline_run.py verify's world measure, from the installed copy (no tools/ in the zip)
    verify = importlib.import_module(MODULE + ".pipeline.blender")
    world, _ = verify.world_fidelity(installed.core.load(str(ROOT / "samples" / "sqlerp_arm.gltf")))
    scene.frame_set(17)
    own = [[*b.rotation_quaternion] for b in arm.pose.bones]
    settings(scene, "gltf_sqlerp_preview").enabled = True
    installed.operators.preview.refresh(scene)
    previewed = [[*b.rotation_quaternion] for b in arm.pose.bones]
    settings(scene, "gltf_sqlerp_preview").enabled = False
    installed.operators.preview.refresh(scene)
    path = Path(folder) / "exported.glb"
    exported = sorted(operator("export_scene.gltf_sqlerp")(filepath=str(path)))
    in_processes, pools = export_in_processes(Path(folder) / "processes.glb")
    sqlerp = sqlerp_channels(installed.core, path)
    onto = add_clips_onto(bpy, arm)
    import addon_utils
    addon_utils.disable(MODULE, default_set=True)
    removed = cli(["remove", "user_default.gltf_sqlerp"]) == 0
    print(json.dumps({
        "enabled": enabled, "stored": stored, "world": world, "exported": exported, "sqlerp_channels": sqlerp,
        "in_processes": in_processes, "process_pools": pools, "onto": onto,
        "sqlerp_channels_in_processes": sqlerp_channels(installed.core, Path(folder) / "processes.glb"),
        "preview_moved": previewed != own, "repository_copy_loaded": "gltf_sqlerp" in sys.modules,
        "leftovers": registered_leftovers(), "removed": removed,
        "still_installed": (Path(bpy.utils.user_resource('EXTENSIONS')) / "user_default" / "gltf_sqlerp").exists(),
    }))


if __name__ == "__main__":
    # Blender's user folder: an empty temporary one, set before bpy is imported.
    os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="gltf_sqlerp_ext_")
    finish(lambda: main(sys.argv[1]))
