"""Fitting the exporter's rotation channels (core.channel_motion.ChannelTask) on every core.

Big exports go to worker processes (core.fit_processes), so the workers fit while this thread
reads the next channels from Blender; small ones are fitted in threads here, where starting
processes would cost more than it saves. Either way the keys are the same. The processes start
when the export starts (``prepare``) if the scene's actions promise a big export, and load numpy
on the core the bundled exporter leaves idle while it gathers (tens of seconds on big rigs); else
as soon as the channels read are worth them. Progress shows on the cursor (a no-op in the
background).
"""

import os
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed

import bpy

from ..core.fit_processes import FitProcesses, WorkerError, start_workers, stop_workers
from ..core.metrics import SAMPLES_PER_FRAME
from ..core.rotation_modes import DATA_PATHS
from .fcurves import curve_sets


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
_ROTATIONS = tuple({path for path, _ in DATA_PATHS.values()})  # F-curve paths of rotations
_early = []  # worker processes prepare() started for the running export


def prepare(options):
    """At an export's start (``options``: its ExportOptions, None when the extension is off):
    start the worker processes now when the scene's actions promise an export worth them."""
    release()
    if options is None or WORKERS < 2 or expected_checks() < PROCESS_MIN_CHECKS:
        return
    try:
        _early.extend(start_workers(WORKERS))
    except WorkerError:
        pass  # ChannelFits tries again when the channels are read, and reports it there


def release():
    """Stop the processes prepare() started that no fit took (the export was small after all,
    or failed before its channels were read)."""
    stop_workers(_early)
    _early.clear()


def expected_checks():
    """About how many check times a full export of every action would fit: each rotation
    channel's frame range at SAMPLES_PER_FRAME (an upper bound of what the export gathers)."""
    total = 0.0
    for action in bpy.data.actions:
        start, end = action.frame_range
        channels = sum(1 for curves in curve_sets(action) for fcurve in curves
                       if fcurve.array_index == 0 and fcurve.data_path.endswith(_ROTATIONS))
        total += channels * (end - start) * SAMPLES_PER_FRAME
    return total


class ChannelFits:
    """The tasks given to ``add``, fitted with ExportOptions ``options`` by ``results``. A context
    manager: leaving it stops any worker processes."""

    def __init__(self, options):
        self.options, self.tasks, self.checks, self.pool = options, [], 0.0, None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._close()
        release()

    def add(self, task):
        self.tasks.append(task)
        self.checks += task.check_count()
        if self.pool is None and WORKERS > 1 and (_early or self.checks >= PROCESS_MIN_CHECKS):
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
        early = list(_early)
        _early.clear()  # this pool's now: it stops them
        try:
            self.pool = FitProcesses(WORKERS, self.options, early)
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
