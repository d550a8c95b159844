"""What every pipeline command shares: exit codes, usage errors, the JSON report, progress."""

import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core import GltfError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
SUFFIXES = (".gltf", ".glb")
JOURNAL = ".gltf_sqlerp_convert.jsonl"
LAUNCHER = Path(__file__).resolve().parents[1] / "pipeline_run.py"
PARENT_POLL_SECONDS = 0.2
PACKAGE = __name__.rsplit(".", 2)[0]  # the add-on package (gltf_sqlerp or bl_ext.<repo>.gltf_sqlerp)


class UsageError(Exception):
    """Exit code 2: the command cannot run as asked."""


# One wording per kind of problem, for pipeline_run.py and the tools a user runs (tools/demo.py,
# tools/sqlerp_convert.py): a missing input is a usage error (exit 2), an invalid file a failed
# file (exit 1) with every finding's code and JSON pointer.
def no_such_file(path: str | os.PathLike[str]) -> str:
    return f"{path}: no such file"


def no_such_folder(path: str | os.PathLike[str]) -> str:
    return f"{path}: no such folder"


def invalid_gltf(path: str | os.PathLike[str], error: "GltfError") -> list[str]:
    """The lines that report a core.GltfError of ``path``."""
    count = len(error.findings)
    return [f"{path}: invalid glTF ({count} error{'s' if count != 1 else ''}), nothing done:"] + [
        f"  {finding}" for finding in error.findings]


def end_with_parent() -> None:
    """A child of a Dask task (pipeline.worker_task.run) ends like a SIGTERM when its worker is
    gone: a worker killed with SIGKILL cannot stop it, and the task's retry elsewhere must not race
    a leftover child writing the same output. Nothing outside a task (no variable set)."""
    from .worker_task import PARENT_VARIABLE
    parent = os.environ.pop(PARENT_VARIABLE, None)
    if parent is None or not parent.isdigit() or not hasattr(os, "getppid"):
        return

    def watch():
        while os.getppid() == int(parent):
            time.sleep(PARENT_POLL_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)  # atomic writes remove their temporary file
    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def terminate_as_interrupt() -> None:
    """SIGTERM (a farm cancelling a task, ``kill``) ends a run like Ctrl+C: atomic writes remove
    their temporary file and a folder conversion stops its children and still reports."""
    if threading.current_thread() is not threading.main_thread() or sys.modules.get("bpy"):
        return  # Blender keeps its own handlers

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupt)


@contextlib.contextmanager
def console_to_stderr(active: bool) -> Iterator[None]:
    """Blender and its glTF add-on print to stdout (at the file-descriptor level): while
    ``active``, send that to stderr so that stdout carries the JSON report only."""
    if not active:
        yield
        return
    with stdout_to(2):
        yield


@contextlib.contextmanager
def stdout_to(descriptor: int) -> Iterator[None]:
    """File descriptor 1 (what Blender and its add-ons print, below Python's sys.stdout) goes to
    ``descriptor`` while the block runs."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(descriptor, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def write_report(report: dict[str, Any], path: str | None) -> None:
    """The report as JSON: into ``path`` atomically when given, else on stdout."""
    text = json.dumps(report, indent=1, default=str) + "\n"
    if path:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        from ..core.gltf import write_atomic
        write_atomic(target, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


# --- progress -------------------------------------------------------------------------------------

class Progress:
    """A text bar on stderr when it is a terminal (else one line per file), and Blender's progress
    indicator (window_manager.progress_*) when running inside Blender. ``within`` moves the bar
    inside the files being worked on (from worker threads too); ``step`` ends one file, with the
    failure's code and message on its line."""

    WIDTH = 30

    def __init__(self, total: int, label: str, quiet: bool = False):
        self.total, self.label, self.done, self.quiet = max(total, 0), label, 0, quiet
        self.tty = sys.stderr.isatty()
        self.partial: dict[str, float] = {}  # name -> fraction done of a file in work
        self.lock = threading.Lock()
        self.blender = _blender_progress("progress_begin", 0, max(self.total, 1))

    def within(self, name: str, fraction: float) -> None:
        with self.lock:
            self.partial[name] = min(max(float(fraction), 0.0), 1.0)
            self._update(f"working: {name}")

    def step(self, name: str, status: str, detail: str = "") -> None:
        with self.lock:
            self.partial.pop(name, None)
            self.done += 1
            text = f"{status}: {name}" + (f" ({detail})" if detail else "")
            if self.tty and not self.quiet and detail:  # kept whole above the bar, never cut
                sys.stderr.write(f"\r{self.label} {self.done}/{self.total} {text}".ljust(161) + "\n")
            if self.tty or self.quiet:
                self._update(f"{status}: {name}")
                if self.tty and not self.quiet and self.done >= self.total:
                    sys.stderr.write("\n")
            else:
                sys.stderr.write(f"{self.label} {self.done}/{self.total} {text}\n")
            sys.stderr.flush()

    def _update(self, text):
        position = self.done + sum(self.partial.values())
        if self.blender:
            _blender_progress("progress_update", position)
        if self.quiet or not self.tty:
            return
        filled = int(self.WIDTH * position / max(self.total, 1))
        line = (f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
                f"{self.done}/{self.total} {text}")
        sys.stderr.write(line[:160].ljust(160))
        sys.stderr.flush()

    def end(self) -> None:
        if self.blender:
            _blender_progress("progress_end")
            self.blender = False
        if self.tty and not self.quiet and self.done < self.total:
            sys.stderr.write("\n")


def failure_detail(entry: Mapping[str, Any]) -> str:
    """What went wrong with a failed report entry (JSON: Any values; "" otherwise), for its progress
    line: an invalid file's first finding as invalid_gltf words it, else 'CODE: message'."""
    error = entry.get("error") if entry.get("status") == "failed" else None
    if not error:
        return ""
    where = f" at {error['pointer']}" if error.get("pointer") else ""
    if "findings" in error:  # a core.GltfError: as invalid_gltf words it
        return f"invalid glTF: {error.get('message')} [{error.get('code')}{where}]"
    return f"{error.get('code')}{where}: {error.get('message')}"


def _blender_progress(method, *args):
    """Call ``method`` of Blender's window manager (fetched each time: opening a file replaces
    it); False when not running inside Blender."""
    bpy: Any = sys.modules.get("bpy")  # Blender's module when running inside it; else None
    try:
        getattr(bpy.context.window_manager, method)(*args)
    except (AttributeError, ReferenceError):
        return False
    return True


def gltf_error(error: "GltfError") -> dict[str, Any]:
    """A GltfError as a report entry: the first finding and all of them."""
    return {"code": error.code, "pointer": error.pointer, "message": error.message,
            "findings": [{"code": f.code, "pointer": f.pointer, "message": f.message}
                         for f in error.findings]}


def plain_error(code: str, message: str) -> dict[str, Any]:
    """An error without a JSON pointer as a report entry."""
    return {"code": code, "pointer": None, "message": message}
