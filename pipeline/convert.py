"""``convert`` and ``convert-file``: glTF files' dense LINEAR rotations rewritten in fewer bytes
without Blender (core.convert), a folder in parallel child processes, resumable, with a journal.
A file whose output would not be smaller is 'skipped' with the reason (no output is written, and
a later run tries it again)."""

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from .common import _gltf_error, _plain_error, EXIT_OK, EXIT_FAILED, SUFFIXES, JOURNAL, LAUNCHER, UsageError, Progress


def convert_file(input_path, output_path, tolerance=0.01, min_ratio=1.0, force=False,
                 fallback_tolerance=0.1, allow_larger=False):
    """Convert one file unless its output is up to date; returns a report entry (dict) with
    ``status`` 'converted', 'skipped' (``reason``: an up-to-date output, or nothing written
    because the output would not be smaller) or 'failed'."""
    from ..core import GltfError
    from ..core.convert import convert
    source, destination = Path(input_path), Path(output_path)
    entry = {"input": str(source), "output": str(destination)}
    if not force and _up_to_date(source, destination):
        return {**entry, "status": "skipped", "reason": "output newer than input"}
    started = time.perf_counter()
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        report = convert(source, destination, tolerance, min_ratio, fallback_tolerance, allow_larger)
    except GltfError as error:
        return {**entry, "status": "failed", "error": _gltf_error(error)}
    except (OSError, ValueError, RuntimeError) as error:
        return {**entry, "status": "failed",
                "error": {"code": type(error).__name__, "pointer": None, "message": str(error)}}
    converted = report.converted
    details = {"seconds": round(time.perf_counter() - started, 3),
               "rotation_channels": len(report.channels), "converted_channels": len(converted),
               "cubicslerp_channels": sum(c.form == "CUBICSLERP" for c in converted),
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
    if not report.written:  # not smaller (or nothing to rewrite): no output, not a failure
        return {**entry, "status": "skipped", "reason": report.reason, **details}
    return {**entry, "status": "converted", **details}


def _up_to_date(source, destination):
    try:
        return destination.stat().st_mtime >= source.stat().st_mtime
    except OSError:
        return False


def _convert_file_command(args):
    _check_conversion_args(args)
    if not Path(args.input).is_file():
        raise UsageError(f"{args.input}: no such file")
    entry = convert_file(args.input, args.output, args.tolerance, args.min_ratio, args.force,
                         args.fallback_tolerance, args.allow_larger)
    if not args.quiet:
        sys.stderr.write(f"{entry['status']}: {args.input}\n")
    failed = entry["status"] == "failed"
    return {"command": "convert-file", "ok": not failed, "files": [entry],
            "exit_code": EXIT_FAILED if failed else EXIT_OK}


def _check_conversion_args(args):
    """The core's own check (the same ranges), as a usage error."""
    from ..core.convert import check_arguments
    try:
        check_arguments(args.tolerance, args.min_ratio, args.fallback_tolerance,
                        names=("--tolerance", "--min-ratio", "--fallback-tolerance"))
    except ValueError as error:
        raise UsageError(str(error)) from None


def gltf_files(folder, exclude=None):
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


def convert_folder(input_dir, output_dir, jobs=None, tolerance=0.01, min_ratio=1.0, force=False,
                   quiet=False, fallback_tolerance=0.1, allow_larger=False):
    """Convert every glTF file under ``input_dir`` into ``output_dir`` (same relative paths), up
    to ``jobs`` child processes at a time; returns the report (dict, with ``exit_code``)."""
    source_root, target_root = Path(input_dir), Path(output_dir)
    if not source_root.is_dir():
        raise UsageError(f"{source_root}: no such folder")
    target_root.mkdir(parents=True, exist_ok=True)
    jobs = max(1, jobs or os.cpu_count() or 1)
    inputs = gltf_files(source_root, exclude=target_root.resolve())
    journal = _Journal(target_root / JOURNAL)
    progress = Progress(len(inputs), "convert", quiet)
    entries, pending = {}, []
    for path in inputs:
        relative = path.relative_to(source_root)
        output = target_root / relative
        if not force and _up_to_date(path, output):
            entries[relative] = {"input": str(path), "output": str(output), "status": "skipped",
                                 "reason": "output newer than input"}
            progress.step(str(relative), "skipped")
        else:
            pending.append((relative, path, output))
    options = ["--tolerance", repr(tolerance), "--min-ratio", repr(min_ratio), "--fallback-tolerance",
               repr(fallback_tolerance), "--force", "--quiet"] + (["--allow-larger"] if allow_larger else [])
    interrupted = False
    pool = ThreadPoolExecutor(max_workers=jobs)
    children = _Children()
    try:
        futures = {pool.submit(children.run, path, output, options): relative
                   for relative, path, output in pending}
        for future in as_completed(futures):
            relative = futures[future]
            entry = future.result()
            entries[relative] = entry
            journal.add(relative, entry)
            progress.step(str(relative), entry["status"])
    except KeyboardInterrupt:
        interrupted = True
        children.stop()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        progress.end()
        journal.close()
    files = [entries[r] for r in sorted(entries)]
    counts = {status: sum(e["status"] == status for e in files)
              for status in ("converted", "skipped", "failed")}
    failed = counts["failed"] > 0 or interrupted
    return {"command": "convert", "input_dir": str(source_root), "output_dir": str(target_root),
            "tolerance_deg": tolerance, "min_ratio": min_ratio, "jobs": jobs,
            "journal": str(journal.path), "interrupted": interrupted, "ok": not failed,
            "counts": counts, "files": files,
            "exit_code": 130 if interrupted else EXIT_FAILED if failed else EXIT_OK}


class _Children:
    """Runs ``convert-file`` in a fresh interpreter per file: one core each, numpy only, and
    nothing shared (a crash or a killed run loses that file only)."""

    def __init__(self):
        self.lock, self.running, self.stopped = threading.Lock(), set(), False

    def run(self, source, destination, options):
        entry = {"input": str(source), "output": str(destination)}
        command = [sys.executable, str(LAUNCHER), "convert-file", str(source), str(destination),
                   *options]
        with self.lock:
            if self.stopped:
                return {**entry, "status": "failed", "error": _plain_error("Interrupted", "not run")}
            child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
            self.running.add(child)
        try:
            out, err = child.communicate()
        finally:
            with self.lock:
                self.running.discard(child)
        try:
            return json.loads(out)["files"][0]
        except (ValueError, KeyError, IndexError):
            tail = " | ".join(err.strip().splitlines()[-3:])
            return {**entry, "status": "failed",
                    "error": _plain_error("ChildFailed", f"exit code {child.returncode}: {tail}")}

    def stop(self):
        with self.lock:
            self.stopped = True
            for child in self.running:
                child.terminate()


class _Journal:
    """OUTPUT_DIR/.gltf_sqlerp_convert.jsonl: one JSON line per file finished (converted or
    failed), appended as it happens; a record of what a run did, kept across runs."""

    def __init__(self, path):
        self.path = path
        self.stream = open(path, "a", encoding="utf-8")

    def add(self, relative, entry):
        record = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "file": str(relative),
                  "status": entry["status"]}
        if "error" in entry:
            record["error"] = entry["error"]
        self.stream.write(json.dumps(record) + "\n")
        self.stream.flush()

    def close(self):
        self.stream.close()


def _convert_command(args):
    _check_conversion_args(args)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    return convert_folder(args.input_dir, args.output_dir, args.jobs, args.tolerance,
                          args.min_ratio, args.force, args.quiet, args.fallback_tolerance,
                          args.allow_larger)
