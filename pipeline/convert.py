"""``convert`` and ``convert-file``: glTF files' dense LINEAR rotations rewritten in fewer bytes
without Blender (core.conversion.converter), a folder in parallel child processes, resumable, with a journal.

Each file ends 'converted' (written), 'unchanged' (no rotation channel to rewrite), 'skipped'
(up to date, or the output would not be smaller: nothing written, ``reason`` says which) or
'failed'. Up to date means the same fingerprint (pipeline.fingerprint: the input and every file it
references, the tool's version, the options) as the output carries, or as the journal recorded
for a file where nothing was written."""

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    gltf_error, plain_error, EXIT_OK, EXIT_FAILED, SUFFIXES, JOURNAL, UsageError, Progress,
    failure_detail, no_such_file, no_such_folder
)
from .fingerprint import fingerprint, output_fingerprint, provenance

if TYPE_CHECKING:  # the core needs numpy, imported where a conversion runs
    from ..core.conversion import ConvertOptions
from .runners import PROGRESS_LINE, LocalRunner, Task, runner_for

STATUSES = ("converted", "unchanged", "skipped", "failed")
UP_TO_DATE = "up to date: the output was made from the same input files, options and tool version"


def add_conversion_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that decide a conversion's output, as every converting command takes them
    (pipeline_run.py convert and convert-file, tools/sqlerp_convert.py), defaults from
    core.conversion's CONVERT_DEFAULTS."""
    from ..core.conversion import CONVERT_DEFAULTS
    parser.add_argument("--tolerance", type=float, default=CONVERT_DEFAULTS.tolerance_deg, metavar="DEG",
                        help="largest world-space angle between the file's rotations and the "
                             "original ones (degrees, default: %(default)s)")
    parser.add_argument("--fallback-tolerance", type=float, default=CONVERT_DEFAULTS.fallback_tolerance_deg,
                        metavar="DEG", help="the same for what viewers without EXT_animation_sqlerp "
                                            "play (degrees, at least --tolerance, default: %(default)s)")
    parser.add_argument("--min-ratio", type=float, default=CONVERT_DEFAULTS.min_ratio, metavar="R",
                        help="rewrite a channel only when it needs at most 1/R of its keys "
                             "(default: %(default)s)")
    parser.add_argument("--allow-larger", action="store_true",
                        help="write the output even when it is not smaller than the input "
                             "(default: off, nothing is written)")


# The keyword names convert_file and convert_folder took before ConvertOptions, still taken.
KEYWORD_ALIASES = {"tolerance": "tolerance_deg", "fallback_tolerance": "fallback_tolerance_deg"}


def conversion_options(options: "ConvertOptions | None" = None, **keywords: Any) -> "ConvertOptions":
    """``options`` (default CONVERT_DEFAULTS) with the given fields replaced; keywords by
    ConvertOptions' names or the older ones of KEYWORD_ALIASES (``tolerance=0.05``)."""
    from ..core.conversion import CONVERT_DEFAULTS
    fields = {KEYWORD_ALIASES.get(name, name): value for name, value in keywords.items()}
    return replace(options or CONVERT_DEFAULTS, **fields) if fields else options or CONVERT_DEFAULTS


def fingerprinted(options: "ConvertOptions") -> dict[str, float | bool]:
    """The options that change a conversion's output, as its fingerprint records them."""
    return {"tolerance_deg": float(options.tolerance_deg), "min_ratio": float(options.min_ratio),
            "fallback_tolerance_deg": float(options.fallback_tolerance_deg),
            "allow_larger": bool(options.allow_larger)}


def convert_file(input_path: str | os.PathLike[str], output_path: str | os.PathLike[str],
                 options: "ConvertOptions | None" = None, *, force: bool = False,
                 progress: Callable[[float], None] | None = None, **keywords: Any) -> dict[str, Any]:
    """Convert one file unless its output is up to date; returns a report entry (JSON) with
    ``status`` (STATUSES, see the module's text) and the input's ``fingerprint``.
    ``options``: core.conversion.ConvertOptions (default CONVERT_DEFAULTS), its fields also as
    keywords (conversion_options). ``progress(fraction)`` hears how far the conversion is."""
    from ..core import GltfError
    from ..core.conversion import convert
    source, destination = Path(input_path), Path(output_path)
    chosen = conversion_options(options, **keywords)
    options_ = fingerprinted(chosen)
    entry = {"input": str(source), "output": str(destination)}
    try:
        entry["fingerprint"] = print_ = fingerprint(source, options_)
    except OSError as error:
        return {**entry, "status": "failed", "error": plain_error("IO_ERROR", f"cannot read {source}: "
                                                                    f"{error.strerror or error}")}
    if not force and output_fingerprint(destination) == print_:
        return {**entry, "status": "skipped", "reason": UP_TO_DATE}
    started = time.perf_counter()
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        report = convert(source, destination, chosen, provenance=provenance(print_, options_), progress=progress)
    except GltfError as error:
        return {**entry, "status": "failed", "error": gltf_error(error)}
    except (OSError, ValueError, RuntimeError) as error:
        return {**entry, "status": "failed",
                "error": {"code": type(error).__name__, "pointer": None, "message": str(error)}}
    details = _details(report, time.perf_counter() - started)
    if report.nothing_to_convert:
        return {**entry, "status": "unchanged", "reason": report.reason or "no rotation channel to "
                "rewrite; the output is a copy (--allow-larger)", "written": report.written, **details}
    if not report.written:  # not smaller: no output, not a failure
        return {**entry, "status": "skipped", "reason": report.reason, "written": False, **details}
    return {**entry, "status": "converted", "written": True, **details}


def _details(report, seconds):
    from ..core import CUBICSLERP
    converted = report.converted
    return {"seconds": round(seconds, 3),
            "rotation_channels": len(report.channels), "converted_channels": len(converted),
            "cubicslerp_channels": sum(c.form == CUBICSLERP for c in converted),
            "keys_before": sum(c.original_keys for c in converted),
            "keys_after": sum(c.keys for c in converted),
            "max_error_deg": max((c.max_error_deg for c in converted), default=0.0),
            "world_max_deg": report.world_max_deg,
            "world_max_fallback_deg": report.world_max_fallback_deg,
            "source_bytes": report.source_bytes, "destination_bytes": report.destination_bytes,
            "files": [str(f) for f in report.files],
            "warnings": [str(w) for w in report.warnings],
            "left_alone": [{"channel": c.pointer, "note": c.note}
                           for c in report.channels if not c.converted]}


def convert_file_command(args: argparse.Namespace) -> dict[str, Any]:
    _check_conversion_args(args)
    if not Path(args.input).is_file():
        raise UsageError(no_such_file(args.input))
    if args.progress_lines:  # a child of ``convert``: its parent draws the bar
        progress, report = None, _ProgressLines()
    else:
        progress = Progress(1, "convert", args.quiet)
        report = lambda fraction: progress.within(args.input, fraction)  # noqa: E731
    try:
        entry = convert_file(args.input, args.output, _options_of(args), force=args.force, progress=report)
        if progress is not None:
            progress.step(args.input, entry["status"], failure_detail(entry))
    finally:
        if progress is not None:
            progress.end()
    failed = entry["status"] == "failed"
    return {"command": "convert-file", "ok": not failed, "files": [entry],
            "exit_code": EXIT_FAILED if failed else EXIT_OK}


class _ProgressLines:
    """A child's progress, as PROGRESS_LINE lines on stderr: at most one per percent."""

    def __init__(self):
        self.last = -1

    def __call__(self, fraction):
        percent = int(fraction * 100)
        if percent > self.last:
            self.last = percent
            sys.stderr.write(f"{PROGRESS_LINE}{fraction:.3f}\n")
            sys.stderr.flush()


def _check_conversion_args(args):
    """The core's own check (the same ranges), as a usage error."""
    from ..core.conversion import check_arguments
    try:
        check_arguments(args.tolerance, args.min_ratio, args.fallback_tolerance,
                        names=("--tolerance", "--min-ratio", "--fallback-tolerance"))
    except ValueError as error:
        raise UsageError(str(error)) from None


def gltf_files(folder: str | os.PathLike[str], exclude: Path | None = None) -> list[Path]:
    """Every .gltf/.glb under ``folder`` (sorted), leaving out the tree ``exclude``."""
    folder = Path(folder)
    found = []
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() not in SUFFIXES or not path.is_file() or path.name.startswith("."):
            continue
        if exclude is not None and exclude in path.resolve().parents:
            continue
        found.append(path)
    return found


def convert_folder(input_dir: str | os.PathLike[str], output_dir: str | os.PathLike[str],
                   options: "ConvertOptions | None" = None, *, jobs: int | None = None, force: bool = False,
                   quiet: bool = False, dask: str | None = None, **keywords: Any) -> dict[str, Any]:
    """Convert every glTF file under ``input_dir`` into ``output_dir`` (same relative paths), up
    to ``jobs`` child processes at a time, or one task per file on the Dask cluster at ``dask``
    (an address, or ``local[:N]``: pipeline.cluster); returns the report (JSON, with ``exit_code``).
    ``options`` and ``keywords`` as convert_file's."""
    chosen = conversion_options(options, **keywords)
    tolerance, min_ratio = chosen.tolerance_deg, chosen.min_ratio
    fallback_tolerance, allow_larger = chosen.fallback_tolerance_deg, chosen.allow_larger
    source_root, target_root = Path(input_dir), Path(output_dir)
    if not source_root.is_dir():
        raise UsageError(no_such_folder(source_root))
    runner = runner_for(jobs, dask, ["numpy"])  # before anything is written: a cluster it cannot use is exit 2
    target_root.mkdir(parents=True, exist_ok=True)
    inputs = gltf_files(source_root, exclude=target_root.resolve())
    journal = _Journal(target_root / JOURNAL)
    progress = Progress(len(inputs), "convert", quiet)
    if isinstance(runner, LocalRunner):
        runner.on_progress = progress.within
    settings = fingerprinted(chosen)
    arguments = ["--tolerance", repr(tolerance), "--min-ratio", repr(min_ratio), "--fallback-tolerance",
               repr(fallback_tolerance), "--quiet", "--progress-lines"] + (
                   ["--allow-larger"] if allow_larger else []) + (["--force"] if force else [])
    entries, pending = {}, []
    for path in inputs:
        relative = path.relative_to(source_root)
        output = target_root / relative
        entry = None if force else _up_to_date(path, output, settings, journal.latest(relative))
        if entry is not None:
            entries[str(relative)] = entry
            progress.step(str(relative), entry["status"])
        else:
            pending.append(Task(str(relative), ["convert-file", str(path), str(output), *arguments],
                                {"input": str(path), "output": str(output)}))
    interrupted = False
    try:
        for task, report in runner.results(pending):
            entry = _written_earlier(report["files"][0] if "files" in report else report, force)
            entries[task.name] = entry
            journal.add(task.name, entry)
            progress.step(task.name, entry["status"], failure_detail(entry))
    except KeyboardInterrupt:
        interrupted = True
        runner.stop()
    finally:
        progress.end()
        journal.close()
        ran = runner.summary()
        runner.close()
    files = [entries[name] for name in sorted(entries, key=Path)]
    counts = {status: sum(e["status"] == status for e in files) for status in STATUSES}
    failed = counts["failed"] > 0 or interrupted
    return {"command": "convert", "input_dir": str(source_root), "output_dir": str(target_root),
            "tolerance_deg": tolerance, "min_ratio": min_ratio, **ran,
            "journal": str(journal.path), "interrupted": interrupted, "ok": not failed,
            "counts": counts, "files": files,
            "exit_code": 130 if interrupted else EXIT_FAILED if failed else EXIT_OK}


def _written_earlier(entry, force):
    """A task found its output up to date although this run planned it: an earlier attempt of the
    same task wrote it (on a worker lost before it reported) and the retry wrote nothing. It is
    converted, once; the entry says so (the details of the conversion went with the worker)."""
    if force or entry.get("status") != "skipped" or entry.get("reason") != UP_TO_DATE:
        return entry
    return {**entry, "status": "converted", "written": True,
            "reason": "written by an earlier attempt of this task, whose worker was lost before "
                      "it reported"}


def _up_to_date(source, output, options, recorded):
    """The entry of a file whose result stands (its output carries the input's fingerprint, or
    the journal's last record of it wrote nothing for the same fingerprint), else None."""
    entry = {"input": str(source), "output": str(output)}
    try:
        print_ = fingerprint(source, options)
    except OSError:
        return None  # the child reports it
    if output_fingerprint(output) == print_:
        return {**entry, "status": "skipped", "reason": UP_TO_DATE, "fingerprint": print_}
    if (recorded and recorded.get("fingerprint") == print_ and not recorded.get("written", True)
            and recorded.get("status") in ("unchanged", "skipped") and not output.exists()):
        return {**entry, "status": recorded["status"], "fingerprint": print_,
                "reason": f"{recorded.get('reason', 'nothing written')} (as on {recorded.get('time')}: "
                          "same input files, options and tool version)"}
    return None


class _Journal:
    """OUTPUT_DIR/.gltf_sqlerp_convert.jsonl: one JSON line per file a child finished, appended as
    it happens and kept across runs; its last line per file (``latest``) tells a later run what
    became of that input (with its fingerprint) when no output was written."""

    def __init__(self, path):
        self.path = path
        self._latest = {}
        if path.is_file():
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    record = json.loads(line)
                    self._latest[record["file"]] = record
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by a killed run, or not ours
        self.stream = open(path, "a", encoding="utf-8")

    def latest(self, relative):
        return self._latest.get(str(relative))

    def add(self, relative, entry):
        record = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "file": str(relative),
                  "status": entry["status"]}
        for key in ("fingerprint", "written", "reason", "error"):
            if key in entry:
                record[key] = entry[key]
        self.stream.write(json.dumps(record) + "\n")
        self.stream.flush()

    def close(self):
        self.stream.close()


def convert_command(args: argparse.Namespace) -> dict[str, Any]:
    _check_conversion_args(args)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    if args.jobs is not None and args.dask is not None:
        raise UsageError("give --jobs or --dask, not both (a cluster's workers decide how many run)")
    return convert_folder(args.input_dir, args.output_dir, _options_of(args), jobs=args.jobs, force=args.force,
                          quiet=args.quiet, dask=args.dask)


def _options_of(args: argparse.Namespace) -> "ConvertOptions":
    """The ConvertOptions of a converting command's arguments (add_conversion_arguments)."""
    from ..core.conversion import ConvertOptions
    return ConvertOptions(args.tolerance, args.min_ratio, args.fallback_tolerance, args.allow_larger)
