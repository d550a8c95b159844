"""``export-blends INPUT_DIR OUTPUT_DIR``: every .blend under INPUT_DIR exported with CUBICSLERP
rotations, one .glb per file at the same relative path under OUTPUT_DIR (``--per-action``: one per
action, ``OUTPUT_DIR/<path>/<blend name>/<action>.glb``).

Each export is ``pipeline_run.py export`` in a fresh process with the bpy module (Blender holds one
scene per process), ``--jobs`` at a time on this machine or one task per export on a Dask cluster
(``--dask``, pipeline.cluster: workers need the bpy module). ``--per-action`` first lists each file's
actions the same way (``export --list-actions``), then exports each.
"""

import argparse
import os
from pathlib import Path
from typing import Any

from .common import EXIT_FAILED, EXIT_OK, Progress, UsageError, failure_detail, no_such_folder
from .runners import Task, runner_for

# The export's options a batch passes on to each export: (flag, argparse dest, takes a value).
EXPORT_FLAGS = (("--fallback", "fallback", True), ("--tolerance", "tolerance", True),
                ("--fallback-tolerance", "fallback_tolerance", True), ("--precision", "precision", True),
                ("--property-tolerance", "property_tolerance", True), ("--per-channel", "per_channel", False),
                ("--selection", "selection", False))
ENTRY_KEYS = ("status", "action", "world_max_deg", "world_max_fallback_deg", "cubicslerp_channels",
              "unmeasured_channels", "error", "actions")


def add_export_blends_arguments(sub: argparse.ArgumentParser) -> None:
    """The command's own arguments (the export options and --jobs/--dask come from __init__)."""
    sub.add_argument("input_dir", help="the folder of .blend files (searched recursively)")
    sub.add_argument("output_dir", help="where the .glb files go (the same relative paths)")
    sub.add_argument("--per-action", action="store_true",
                     help="one .glb per action of each file, OUTPUT_DIR/<path>/<name>/<action>.glb "
                          "(default: off, one .glb per file with its actions as it has them)")


def blend_files(folder: str | os.PathLike[str], exclude: Path | None = None) -> list[Path]:
    """Every .blend under ``folder`` (sorted), leaving out the tree ``exclude``."""
    return [path for path in sorted(Path(folder).rglob("*.blend"))
            if path.is_file() and not path.name.startswith(".")
            and (exclude is None or exclude not in path.resolve().parents)]


def export_blends_command(args: Any) -> dict[str, Any]:
    source_root, target_root = Path(args.input_dir), Path(args.output_dir)
    if not source_root.is_dir():
        raise UsageError(no_such_folder(source_root))
    if args.jobs is not None and args.dask is not None:
        raise UsageError("give --jobs or --dask, not both (a cluster's workers decide how many run)")
    runner = runner_for(args.jobs, args.dask, ["bpy"])  # exit 2 before anything is written
    options = [part for flag, dest, valued in EXPORT_FLAGS if getattr(args, dest) not in (None, False)
               for part in ((flag, str(getattr(args, dest))) if valued else (flag,))]
    blends = blend_files(source_root, exclude=target_root.resolve())
    entries, interrupted = [], False
    try:
        tasks = [_export_task(source_root, target_root, blend, None, options) for blend in blends]
        if args.per_action:
            tasks = _action_tasks(runner, blends, source_root, target_root, options, entries, args.quiet)
        progress = Progress(len(tasks), "export", args.quiet)
        try:
            for task, report in runner.results(tasks):
                entries.append(_entry(task, report))
                progress.step(task.name, entries[-1]["status"], failure_detail(entries[-1]))
        finally:
            progress.end()
    except KeyboardInterrupt:
        interrupted = True
        runner.stop()
    finally:
        ran = runner.summary()
        runner.close()
    entries.sort(key=lambda e: (e["input"], e.get("action") or ""))
    failed = [e for e in entries if e["status"] == "failed"]
    return {"command": "export-blends", "input_dir": str(source_root), "output_dir": str(target_root),
            "per_action": args.per_action, **ran, "interrupted": interrupted,
            "ok": not failed and not interrupted, "exported": len(entries) - len(failed),
            "failed": len(failed), "files": entries,
            "exit_code": 130 if interrupted else EXIT_FAILED if failed else EXIT_OK}


def _export_task(source_root, target_root, blend, action, options):
    relative = blend.relative_to(source_root)
    if action is None:
        name, output = str(relative), target_root / relative.with_suffix(".glb")
    else:
        name = f"{relative}:{action}"
        output = target_root / relative.with_suffix("") / f"{_file_name(action)}.glb"
    extra = ["--action", action] if action is not None else []
    return Task(name, ["export", str(blend), "--output", str(output), "--quiet", *extra, *options],
                {"input": str(blend), "output": str(output), "action": action})


def _file_name(action):
    """An action's name as a file name: path separators and a leading dot replaced."""
    return "".join("_" if c in '/\\:' else c for c in action).lstrip(".") or "_"


def _action_tasks(runner, blends, source_root, target_root, options, entries, quiet):
    """One export task per action: each file's actions listed first (a task each); a file that
    cannot be listed is a failed entry."""
    progress = Progress(len(blends), "list", quiet)
    listed = [Task(str(b.relative_to(source_root)), ["export", str(b), "--list-actions", "--quiet"],
                   {"input": str(b), "output": None, "action": None}) for b in blends]
    tasks = []
    try:
        for task, report in runner.results(listed):
            blend = Path(task.entry["input"])
            if report.get("status") == "failed" or "actions" not in report:
                entries.append(_entry(task, report))
            else:
                tasks += [_export_task(source_root, target_root, blend, action, options)
                          for action in report["actions"]]
            progress.step(task.name, "listed" if "actions" in report else "failed")
    finally:
        progress.end()
    return tasks


def _entry(task, report):
    """The report entry of one export: its file, output and action, and the export's figures."""
    entry = {**task.entry, **{key: report[key] for key in ENTRY_KEYS if key in report}}
    entry["action"] = task.entry["action"]
    if "status" not in entry:
        entry["status"] = "failed"
    return entry
