"""Where a batch's tasks run: child processes of this machine (``--jobs``, LocalRunner here) or a
Dask cluster (``--dask``, pipeline.cluster). A task is one pipeline_run.py command (``convert-file``,
``export``) in a fresh interpreter either way, so its output is the same wherever it ran."""

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import IO, Any, cast

from .common import LAUNCHER, plain_error

PROGRESS_LINE = "PROGRESS "  # a child's stderr line: how far its file is (a fraction), for the parent


@dataclass(frozen=True)
class Task:
    """One unit of a batch: ``name`` (the file relative to the input folder: progress, report,
    journal), the launcher's ``arguments``, and ``entry`` (what its report entry says when the
    child gives no report: input and output)."""
    name: str
    arguments: list[str]
    entry: dict[str, Any] = field(default_factory=dict)


def report_of(task: Task, code: int | None, stdout: str, stderr: str) -> dict[str, Any]:
    """The child's JSON report, or a failed entry with its exit code and the end of its stderr
    (a child that crashed, or was killed, wrote none)."""
    try:
        report = json.loads(stdout)
        if isinstance(report, dict):
            return report
    except ValueError:
        pass
    tail = " | ".join(stderr.strip().splitlines()[-3:])
    return {**task.entry, "status": "failed",
            "error": plain_error("ChildFailed", f"exit code {code}: {tail}")}


class LocalRunner:
    """``jobs`` children at a time on this machine, each moving the bar inside its file
    (PROGRESS_LINE lines on its stderr) through ``on_progress(name, fraction)``."""

    def __init__(self, jobs: int, on_progress: Callable[[str, float], None] | None = None):
        self.jobs, self.on_progress = jobs, on_progress
        self.lock, self.running, self.stopped = threading.Lock(), set(), False

    def results(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, dict[str, Any]]]:
        """(task, its report) as each task ends."""
        pool = ThreadPoolExecutor(max_workers=self.jobs)
        try:
            futures = {pool.submit(self._run, task): task for task in tasks}
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:  # Ctrl+C, SIGTERM: end the children before waiting for the pool
            self.stop()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _run(self, task):
        command = [sys.executable, str(LAUNCHER), *task.arguments]
        with self.lock:
            if self.stopped:
                return {**task.entry, "status": "failed", "error": plain_error("Interrupted", "not run")}
            child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.running.add(child)
        lines = []  # stderr apart from progress lines, read beside stdout (no pipe fills up)
        on_progress = self.on_progress
        moved = None if on_progress is None else (lambda fraction: on_progress(task.name, fraction))
        reader = threading.Thread(target=_read_stderr, args=(child.stderr, lines, moved), daemon=True)
        reader.start()
        try:
            out = cast(IO[str], child.stdout).read()  # a pipe (stdout=PIPE)
            child.wait()
            reader.join()
        finally:
            with self.lock:
                self.running.discard(child)
        return report_of(task, child.returncode, out, "".join(lines))

    def stop(self) -> None:
        """Ctrl+C: no new child, and the running ones are asked to end (SIGTERM)."""
        with self.lock:
            self.stopped = True
            for child in self.running:
                child.terminate()

    def close(self) -> None:
        """Nothing to release: the pool ends with ``results``."""

    def summary(self) -> dict[str, Any]:
        return {"jobs": self.jobs}


def runner_for(jobs: int | None, dask: str | None, modules: list[str]) -> Any:
    """A LocalRunner of ``jobs`` (default: every core), or with ``dask`` a pipeline.cluster.DaskRunner
    whose workers can import ``modules`` (imported only then: Dask is optional)."""
    if dask is None:
        return LocalRunner(max(1, jobs or os.cpu_count() or 1))
    from .cluster import DaskRunner
    return DaskRunner(dask, modules)


def _read_stderr(stream, lines, on_progress):
    for line in stream:
        if line.startswith(PROGRESS_LINE):
            if on_progress is not None:
                try:
                    on_progress(float(line[len(PROGRESS_LINE):]))
                except ValueError:
                    pass
        else:
            lines.append(line)
