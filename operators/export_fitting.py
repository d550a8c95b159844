"""Fitting the exporter's rotation channels (core.channel_motion.ChannelTask) on every core.

Big exports go to worker processes (core.fit_processes), started as soon as the channels read so
far are worth them, so the workers fit while this thread reads the next channels from Blender;
small ones are fitted in threads here, where starting processes would cost more than it saves.
Either way the keys are the same. Progress shows on the cursor (a no-op in the background).
"""

import os
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed

import bpy

from ..core.fit_processes import FitProcesses, WorkerError


def _usable_cpus():
    """CPUs this process may run on (a container's share on Linux), else all of them."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


WORKERS = max(1, min(8, _usable_cpus()))
# Worker processes pay off from about this many check times in all: starting two costs about
# 0.15 s, and a channel's fit about 1.1 microseconds per check time (1,000-key tracks, 2 cores).
PROCESS_MIN_CHECKS = 250_000


class ChannelFits:
    """The tasks given to ``add``, fitted with ExportOptions ``options`` by ``results``. A context
    manager: leaving it stops any worker processes."""

    def __init__(self, options):
        self.options, self.tasks, self.checks, self.pool = options, [], 0.0, None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._close()

    def add(self, task):
        self.tasks.append(task)
        self.checks += task.check_count()
        if self.pool is None and WORKERS > 1 and self.checks >= PROCESS_MIN_CHECKS:
            self._start()
        elif self.pool:
            self.pool.submit(task)

    def results(self):
        """Every task's core.rotation_export.ChannelKeys, in the order they were added."""
        window_manager = bpy.context.window_manager
        window_manager.progress_begin(0, max(len(self.tasks), 1))
        try:
            if self.pool:
                try:
                    return self.pool.results(window_manager.progress_update)
                except WorkerError as error:
                    _warn(f"{error}; fitting in Blender's process instead")
                    self._close()
            return _in_threads(self.tasks, self.options, window_manager.progress_update)
        finally:
            window_manager.progress_end()

    def _start(self):
        try:
            self.pool = FitProcesses(WORKERS, self.options)
        except WorkerError as error:
            _warn(f"{error}; fitting in Blender's process instead")
            self.pool = False  # never tried again for this export
            return
        for task in self.tasks:
            self.pool.submit(task)

    def _close(self):
        if self.pool:
            self.pool.close()
        self.pool = False if self.pool is not None else None


def _in_threads(tasks, options, progress):
    """Every task fitted in WORKERS threads (nothing in a fit touches Blender; threads gain less
    than processes, see core.fit_processes, but cost nothing to start)."""
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = [pool.submit(task.fit, options) for task in tasks]
        for done, _ in enumerate(as_completed(futures), 1):
            progress(done)
        return [future.result() for future in futures]


def _warn(message):
    print(f"glTF Sqlerp Animation: {message}", file=sys.stderr)
