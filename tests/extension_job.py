"""Child process of tests/test_extension_install.py (not a test module itself).

A fresh Blender (the bpy module) with its own empty user folder: builds the extension zip with
Blender's extension tooling, installs it into the user repository and enables it, the way a user
installs it from disk, so that Blender loads it as ``bl_ext.user_default.gltf_sqlerp``; then runs
import, the live preview and the export from that installed copy, disables and removes it, and
prints one JSON line of what it saw. A separate process because the test session has the
repository's own copy registered (the same operator ids), and because the bpy module of Blender
4.2 crashes at exit after a glTF export (the process ends with os._exit).
Usage: ``python extension_job.py FOLDER``.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

from child_job import ROOT, finish
MODULE = "bl_ext.user_default.gltf_sqlerp"


def install(folder):
    from bl_pkg import bl_extension_cli
    cli = bl_extension_cli.cli_extension_handler
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


def main(folder):
    import bpy
    cli = install(folder)
    enabled = MODULE in bpy.context.preferences.addons
    installed = sys.modules[MODULE]
    scene = bpy.context.scene
    assert bpy.ops.import_scene.gltf_sqlerp(filepath=str(ROOT / "samples" / "sqlerp_arm.gltf")) == {'FINISHED'}
    arm = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
    stored = installed.operators.action_data.load(arm.animation_data.action) is not None
    scene.frame_set(17)
    own = [list(b.rotation_quaternion) for b in arm.pose.bones]
    scene.gltf_sqlerp_preview.enabled = True
    installed.operators.preview.refresh(scene)
    previewed = [list(b.rotation_quaternion) for b in arm.pose.bones]
    scene.gltf_sqlerp_preview.enabled = False
    installed.operators.preview.refresh(scene)
    path = Path(folder) / "exported.glb"
    exported = sorted(bpy.ops.export_scene.gltf_sqlerp(filepath=str(path)))
    document = installed.core.load(str(path))
    sqlerp = sum(c.uses_extension for a in document.animations for c in a.channels)
    import addon_utils
    addon_utils.disable(MODULE, default_set=True)
    removed = cli(["remove", "user_default.gltf_sqlerp"]) == 0
    print(json.dumps({
        "enabled": enabled, "stored": stored, "exported": exported, "sqlerp_channels": sqlerp,
        "preview_moved": previewed != own, "repository_copy_loaded": "gltf_sqlerp" in sys.modules,
        "leftovers": registered_leftovers(), "removed": removed,
        "still_installed": (Path(bpy.utils.user_resource('EXTENSIONS')) / "user_default" / "gltf_sqlerp").exists(),
    }))


if __name__ == "__main__":
    # Blender's user folder: an empty temporary one, set before bpy is imported.
    os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="gltf_sqlerp_ext_")
    finish(lambda: main(sys.argv[1]))
