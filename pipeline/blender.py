"""``verify`` and ``export``: the commands that need Blender (the bpy module or Blender's own
Python)."""

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .common import (
    gltf_error, plain_error, EXIT_OK, EXIT_FAILED, SUFFIXES, PACKAGE, UsageError, Progress, failure_detail,
    no_such_file
)

if TYPE_CHECKING:
    from ..core import Document

# The export's bar inside its second step: (start, share) of each round of fits (the first round
# is most of the work; a refit round along a chain takes the rest, and may come more than once).
FIT_SHARE = {"fitting": (0.0, 0.8), "refitting": (0.8, 0.2)}


def import_bpy() -> ModuleType:
    """The bpy module, or a usage error saying how to run the command with Blender."""
    try:
        import bpy
    except ImportError:
        raise UsageError("this command needs Blender: run it with `blender --background --python "
                         "pipeline_run.py -- ...` or a Python with the bpy module") from None
    return bpy


def enable_addon() -> None:
    """Make sure this add-on is registered and listed as enabled (the bundled glTF add-on calls
    the hooks of enabled add-ons only). Leaves an add-on Blender already enabled as it is."""
    bpy = import_bpy()
    import addon_utils
    if getattr(bpy.types, "IMPORT_SCENE_OT_gltf_sqlerp", None) is not None:
        preferences = bpy.context.preferences
        if preferences is None:  # Blender has them whenever an add-on is registered
            raise RuntimeError("Blender has no preferences to list the add-on in")
        if PACKAGE not in preferences.addons and not _enabled_elsewhere(bpy):
            preferences.addons.new().module = PACKAGE
        return
    package = sys.modules[PACKAGE]
    if package.__file__ is None:  # a package loaded from its folder has one
        raise RuntimeError(f"could not enable the add-on {PACKAGE}: its package has no file")
    # addon_utils reloads without it; ModuleType declares no such attribute, so set in its namespace
    vars(package)["__time__"] = os.path.getmtime(package.__file__)
    if addon_utils.enable(PACKAGE, default_set=True) is None:
        raise RuntimeError(f"could not enable the add-on {PACKAGE} (see the traceback above)")


def _enabled_elsewhere(bpy):
    return any(addon.module.endswith(".gltf_sqlerp") for addon in bpy.context.preferences.addons)


def verify_command(args: argparse.Namespace) -> dict[str, Any]:
    bpy = import_bpy()
    from ..core import GltfError
    from ..operators.importing import session as import_session
    path = Path(args.file)
    if not path.is_file():
        raise UsageError(no_such_file(path))
    report = {"command": "verify", "file": str(path), "source": args.source,
              "tolerance_deg": args.tolerance}
    progress = Progress(3, "verify", args.quiet)
    try:
        try:
            document = import_session.load_for_import(str(path))  # it imports into Blender
        except GltfError as error:
            failed = {**report, "ok": False, "status": "failed", "error": gltf_error(error),
                      "exit_code": EXIT_FAILED}
            progress.step(path.name, "failed", failure_detail(failed))
            return failed
        progress.step(path.name, "loaded")
        enable_addon()
        bpy.ops.wm.read_homefile(use_empty=True)
        try:
            # This add-on's operator, registered at run time: the stubs list Blender's own only.
            result = bpy.ops.import_scene.gltf_sqlerp(  # pyright: ignore[reportAttributeAccessIssue]
                filepath=str(path), source=args.source, rotation_tolerance=args.tolerance)
        except RuntimeError as error:  # the operator reported an ERROR
            result, message = {'CANCELLED'}, str(error).strip()
        else:
            message = ""
        progress.step(path.name, "imported")
        if result != {'FINISHED'}:
            return {**report, "ok": False, "status": "failed",
                    "error": plain_error("IMPORT_FAILED", message or f"result {sorted(result)}"),
                    "exit_code": EXIT_FAILED}
        clips = measure_clips(bpy, args.source)
        # One name per clip in the report: the one Blender gave it (the bundled importer names an
        # unnamed animation "Anim_N", the core "Animation_N").
        names = {clip["animation"]: clip["name"] for clip in clips}
        world, world_note = (None, "--no-world") if args.no_world else \
            world_fidelity(document, args.source, names)
        progress.step(path.name, "measured")
    finally:
        progress.end()
    rotation = max((c["rotation_max_deg"] for c in clips), default=0.0)
    value = max((c["value_max"] for c in clips), default=0.0)
    world_max = max((w["rotation_max_deg"] for w in world or ()), default=0.0)
    # What the world measure could not compare (a node without its object, a vertex without its
    # match) fails the check too: a pass must mean every bone, object and vertex was measured.
    problems = [p for w in world or () for p in w["problems"]]
    ok = max(rotation, world_max) <= args.tolerance and not problems
    status = "ok" if ok else "unmeasured" if problems and max(rotation, world_max) <= args.tolerance else "deviates"
    return {**report, "ok": ok, "status": status,
            "animations": len(document.animations), "warnings": [str(w) for w in document.warnings],
            "rotation_max_deg": rotation, "value_max": value, "clips": clips,
            "world_rotation_max_deg": world_max if world is not None else None,
            "world": world, "world_note": world_note,
            "exit_code": EXIT_OK if ok else EXIT_FAILED}


def world_fidelity(document: "Document", source: str = "EXTENSION",
                   names: Mapping[int, str] | None = None) -> tuple[list[dict[str, Any]] | None, str]:
    """(per animation: world rotations and skinned vertices against the spec at every frame and
    half frame, note), measured by operators/preview/world_fidelity.py. ``names``: {animation index:
    clip name} (default: the core's names). The entries are JSON (Any values)."""
    from ..operators.preview import world_fidelity as fidelity
    results = []
    for index, animation in enumerate(document.animations):
        measured = fidelity.measure(document, index, use_fallback=source == "FALLBACK")
        name = (names or {}).get(index, animation.name)
        results.append({"animation": index, "name": name, "samples": measured.samples,
                        "rotation_max_deg": measured.rotation_max_deg,
                        "rotation_worst": measured.rotation_worst,
                        "vertex_max": measured.vertex_max, "vertex_worst": measured.vertex_worst,
                        "problems": measured.problems, "skipped": measured.skipped})
    return results, "world rotations (degrees) and vertices (fraction of the " \
        "bounding-box diagonal) at every frame and half frame"


def measure_clips(bpy: ModuleType, source: str = "EXTENSION") -> list[dict[str, Any]]:
    """Per imported clip: the largest difference between Blender's F-curves and the spec, rotation
    channels in degrees, others as values (operators.preview.deviation.report at 8 samples per frame),
    pointer F-curves in units of their range (deviation.pointer_report),
    as JSON (Any values). ``bpy``: the bpy module (imported by the caller: pipeline needs none)."""
    from ..operators import action_data
    from ..operators.preview import deviation
    clips = []
    for action in bpy.data.actions:
        data = action_data.load(action)
        if data is None:
            continue
        rows = deviation.report(action, source, data)
        worst = deviation.worst_rotation(rows)
        played = worst.blender_vs() if worst is not None else None  # a worst row has one
        values = [peak.max for r in rows if not r.rotation and (peak := r.blender_vs()) is not None]
        pointers = [r.relative for r in deviation.pointer_report(action, data) if r.relative is not None]
        clips.append({
            "name": data.name, "action": action.name, "animation": data.animation,
            "channels": len(rows),
            "rotation_max_deg": float(played.max) if played is not None else 0.0,
            "rotation_worst": (f"{worst.target} at {played.time:.4f} s"
                               if worst is not None and played is not None else ""),
            "value_max": float(max(values, default=0.0)),
            # KHR_animation_pointer F-curves against the import's reference, of their range
            "pointer_curves": len(pointers), "pointer_max_of_range": float(max(pointers, default=0.0)),
            "not_compared": [f"{r.target} {r.path}: {'; '.join(r.notes)}"
                             for r in rows if r.blender_vs() is None]})
    return sorted(clips, key=lambda c: c["animation"])


def export_command(args: argparse.Namespace) -> dict[str, Any]:
    bpy = import_bpy()
    if args.blend is not None and not Path(args.blend).is_file():
        raise UsageError(no_such_file(args.blend))
    if args.list_actions:  # export-blends --per-action: what to export, one task per action
        if args.blend is not None:
            bpy.ops.wm.open_mainfile(filepath=str(args.blend))
        return {"command": "export", "blend": args.blend, "ok": True, "status": "listed",
                "actions": sorted(a.name for a in bpy.data.actions), "exit_code": EXIT_OK}
    if args.output is None:
        raise UsageError("export: --output FILE is required")
    output = Path(args.output)
    if output.suffix.lower() not in SUFFIXES:
        raise UsageError(f"--output {output}: must end in .glb or .gltf")
    progress = Progress(2, "export", args.quiet)
    try:
        if args.blend is not None:
            bpy.ops.wm.open_mainfile(filepath=str(args.blend))
        enable_addon()
        from ..operators.exporting import session as export_session
        from ..operators.exporting import ExportFailed, export
        from ..operators.exporting import ExportOptions
        if args.action is not None:
            assigned = assign_action(bpy, args.action, args.object)
        else:
            assigned = []
        progress.step(output.name, "prepared")
        options = ExportOptions(args.tolerance, args.fallback, args.fallback_tolerance, args.precision,
                                property_tolerance=args.property_tolerance,
                                world_space=not args.per_channel)
        output.parent.mkdir(parents=True, exist_ok=True)
        report = {"command": "export", "blend": args.blend, "output": str(output),
                  "action": args.action, "assigned_to": assigned, "fallback": args.fallback,
                  "tolerance_deg": args.tolerance, "property_tolerance": args.property_tolerance,
                  "world_space": not args.per_channel}
        from ..operators.exporting import fitting as export_fitting
        export_fitting.listener = lambda fraction, stage: progress.within(
            output.name, FIT_SHARE[stage][0] + FIT_SHARE[stage][1] * fraction)
        try:
            outcome, document = export(str(output), options, args.selection)
        except ExportFailed as error:
            failed = {**report, "ok": False, "status": "failed",
                      "error": plain_error("EXPORT_FAILED", str(error)), "exit_code": EXIT_FAILED}
            progress.step(output.name, "failed", failure_detail(failed))
            return failed
        progress.step(output.name, "exported")
    finally:
        if f"{PACKAGE}.operators.exporting.fitting" in sys.modules:  # not when the import above failed
            from ..operators.exporting import fitting as export_fitting
            export_fitting.listener = None
        progress.end()
    channels = [dict(vars(c)) for c in outcome.channels]
    return {**report, "ok": True, "status": "exported", "summary": export_session.summary(outcome),
            "world_max_deg": outcome.world_error_deg,  # None with --per-channel: not measured
            "world_max_fallback_deg": outcome.fallback_world_error_deg,
            # Rotation channels the world maximum leaves out (kept as the bundled exporter sampled
            # them, "skipped" says why): the figure is the file's only when this is 0.
            "unmeasured_channels": len(outcome.skipped),
            "cubicslerp_channels": _cubicslerp_channels(document), "channels": channels,
            "warnings": [str(w) for w in document.warnings], "exit_code": EXIT_OK}


def _cubicslerp_channels(document):
    """CUBICSLERP channels of the written file, as the core read it back after the export."""
    from ..core import CUBICSLERP
    return sum(c.sampler.interpolation == CUBICSLERP
               for animation in document.animations for c in animation.channels)


def assign_action(bpy: ModuleType, name: str, object_names: Sequence[str] | None = None) -> list[str]:
    """Make action ``name`` the active action of the objects given (default: every object with
    animation data, else the active object); returns their names. ``bpy``: the bpy module."""
    action = bpy.data.actions.get(name)
    if action is None:
        raise UsageError(f"no action {name!r} (there are: {', '.join(a.name for a in bpy.data.actions)})")
    scene = bpy.context.scene
    if object_names:
        missing = [n for n in object_names if n not in scene.objects]
        if missing:
            raise UsageError(f"no object {', '.join(map(repr, missing))} in the scene")
        targets = [scene.objects[n] for n in object_names]
    else:
        targets = [o for o in scene.objects if o.animation_data is not None]
        active = bpy.context.view_layer.objects.active
        if not targets and active is not None:
            targets = [active]
    if not targets:
        raise UsageError("--action: no object to assign it to (give --object)")
    for obj in targets:
        animation = obj.animation_data or obj.animation_data_create()
        animation.action = action
        slots = getattr(action, "slots", None)  # Blender 4.4+: an action animates through a slot
        if slots is not None and getattr(animation, "action_slot", None) is None:
            usable = [s for s in slots if getattr(s, "target_id_type", "OBJECT") in ("OBJECT", 'UNSPECIFIED')]
            if usable:
                animation.action_slot = usable[0]
    return [o.name for o in targets]
