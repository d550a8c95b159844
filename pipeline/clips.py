"""``add-clips BLEND FOLDER``: every glTF clip of a folder added to the rig of a .blend, which is
then saved (needs Blender).

Each file goes onto the rig through ``import_scene.gltf_sqlerp(onto='ACTIVE')``, one call per file:
a file that fails (invalid, or its hierarchy does not fit the rig) changes nothing, is reported,
and the others are still added. The .blend is saved only when at least one file was added, to
``--output`` if given, else over BLEND (Blender keeps the previous version as BLEND1, as its
preferences say).
"""

from pathlib import Path
from typing import Any

from .blender import import_bpy, enable_addon
from .common import EXIT_FAILED, EXIT_OK, Progress, UsageError, plain_error, no_such_file, no_such_folder
from .convert import gltf_files


def add_clips_arguments(sub: Any) -> None:
    """The command's arguments on its argparse sub-parser."""
    sub.add_argument("blend", help="the .blend with the rig")
    sub.add_argument("folder", help="the folder of .gltf/.glb clip files (searched recursively)")
    sub.add_argument("--rig", metavar="NAME",
                     help="the rig object (default: the scene's only armature)")
    sub.add_argument("--prefix-map", default="", metavar="PAIRS",
                     help="file=rig name prefixes, comma-separated (e.g. 'mixamorig:='; default: "
                          "none, names as they are)")
    sub.add_argument("--source", choices=("EXTENSION", "FALLBACK"), default="EXTENSION",
                     help="play the CUBICSLERP samplers or the fallback (default: %(default)s)")
    sub.add_argument("--tolerance", type=float, default=0.01, metavar="DEG",
                     help="import rotation tolerance (degrees, default: %(default)s)")
    sub.add_argument("--output", "-o", metavar="BLEND",
                     help="save to this .blend (default: over BLEND)")


def add_clips_command(args: Any) -> dict[str, Any]:
    bpy = import_bpy()
    if not Path(args.blend).is_file():
        raise UsageError(no_such_file(args.blend))
    if not Path(args.folder).is_dir():
        raise UsageError(no_such_folder(args.folder))
    files = gltf_files(args.folder)
    if not files:
        raise UsageError(f"{args.folder}: no .gltf or .glb file in it")
    bpy.ops.wm.open_mainfile(filepath=str(args.blend))
    enable_addon()
    rig = _rig(bpy, args.rig)
    progress = Progress(len(files), "add-clips", args.quiet)
    entries = [_add(bpy, rig, path, args, progress) for path in files]
    progress.end()
    added = [e for e in entries if e["status"] == "added"]
    saved = None
    if added:
        saved = str(Path(args.output or args.blend))
        bpy.ops.wm.save_as_mainfile(filepath=saved)
    failed = len(entries) - len(added)
    return {"command": "add-clips", "blend": str(args.blend), "rig": rig.name, "saved": saved,
            "ok": not failed, "added": len(added), "failed": failed, "files": entries,
            "exit_code": EXIT_FAILED if failed else EXIT_OK}


def _rig(bpy: Any, name: str | None) -> Any:
    """The rig object, made active (the import adds onto the active object)."""
    scene = bpy.context.scene
    if name is not None:
        rig = scene.objects.get(name)
        if rig is None:
            raise UsageError(f"--rig {name}: no such object in the scene")
    else:
        armatures = [o for o in scene.objects if o.type == 'ARMATURE']
        if len(armatures) != 1:
            raise UsageError(f"the scene has {len(armatures)} armatures: name the rig with --rig")
        rig = armatures[0]
    bpy.context.view_layer.objects.active = rig
    return rig


def _add(bpy: Any, rig: Any, path: Path, args: Any, progress: Progress) -> dict[str, Any]:
    """One file onto the rig; its entry in the report."""
    before = {a.as_pointer() for a in bpy.data.actions}
    try:
        bpy.ops.import_scene.gltf_sqlerp(filepath=str(path), onto='ACTIVE', prefix_map=args.prefix_map,
                                         source=args.source, rotation_tolerance=args.tolerance)
    except RuntimeError as error:
        message = " ".join(str(error).split()).removeprefix("Error: ")
        progress.step(path.name, "failed", message)
        return {"file": str(path), "status": "failed", "error": plain_error("IMPORT_FAILED", message)}
    actions = [a for a in bpy.data.actions if a.as_pointer() not in before]
    clips = sorted({a["gltf_sqlerp"]["name"] for a in actions if a.get("gltf_sqlerp") is not None})
    progress.step(path.name, "added")
    return {"file": str(path), "status": "added", "clips": clips, "actions": sorted(a.name for a in actions)}
