"""Fitting the exporter's rotation channels (core.fitting.channel_motion.ChannelTask) on every core.

Big exports go to worker processes (fit_workers.processes), so the workers fit while this thread
reads the next channels from Blender; small ones are fitted in threads here, where starting
processes would cost more than it saves. Either way the keys are the same. The processes start
when the export starts (``prepare``) if the scene's actions promise a big export; else as soon as
the channels read are worth them. Started at the start, they fit the channels predicted from the
scene (export_headstart) on the cores the bundled exporter leaves idle while it gathers (tens of
seconds on big rigs, on one core), and the channels it really gathered take those keys when their
tasks are the predicted ones. Progress shows on the cursor (a no-op in the background).
"""

import itertools
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ALL_COMPLETED, Future, ThreadPoolExecutor, as_completed, wait
from types import TracebackType
from typing import Literal, cast

import bpy

from ...core.fitting import ChannelKeys, ChannelTask, ExportOptions, RotationMotion, SampleCheck
from ...fit_workers import FitProcesses, WorkerError
from ...core.sampling import SAMPLES_PER_FRAME
from ...core.blender_model import DATA_PATHS
from .headstart import TaskKey, predicted_tasks
from ..blender_context import current_scene, current_window_manager
from ..fcurves import curve_sets


def _usable_cpus():
    """CPUs this process may run on (a container's share on Linux), else all of them."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


WORKERS = max(1, min(8, _usable_cpus()))
# Worker processes pay off from about this many check times in all: starting two costs about
# 0.25 s (spawn, an idle Blender), and a channel's fit about 1.1 microseconds per check time
# (1,000-key tracks, 2 cores).
PROCESS_MIN_CHECKS = 250_000
# What a channel's fit costs besides its check times, in check times: numpy's calls on small
# arrays (the fits of the Rigify rig's sampled channels, 232 check times each, took 12 ms each,
# 50 microseconds per check time; threads gain nothing there, the GIL held between the calls).
# Counted at a third of that: 60 such channels start the processes.
CHANNEL_CHECKS = 4_000
_ROTATIONS = tuple({path for path, _ in DATA_PATHS.values()})  # F-curve paths of rotations
_head: list["HeadStart"] = []  # the HeadStart prepare() began for the running export (one at most)


def prepare(options: ExportOptions | None) -> None:
    """At an export's start (``options``: its ExportOptions, None when the extension is off):
    when the scene's actions promise an export worth worker processes, start them and fit the
    channels the export will most likely have, on every core but the one the bundled exporter
    gathers on."""
    release()
    if options is None or WORKERS < 2 or expected_checks() < PROCESS_MIN_CHECKS:
        return
    try:
        pool = FitProcesses(WORKERS, options, active=WORKERS - 1)
    except WorkerError:
        return  # ChannelFits tries again when the channels are read, and reports it there
    head = HeadStart(pool)
    _head.append(head)
    scene = current_scene()
    for key, task in predicted_tasks(scene, scene.render.fps / scene.render.fps_base, options.world_space):
        head.submit(key, task)


def release() -> None:
    """Stop the processes prepare() started that no export took (it was small after all, or
    failed before its channels were read)."""
    while _head:
        _head.pop().pool.close()


def expected_checks() -> float:
    """About how many check times a full export of every action would fit: each rotation
    channel's frame range at SAMPLES_PER_FRAME (an upper bound of what the export gathers)."""
    total = 0.0
    for action in bpy.data.actions:
        start, end = action.frame_range
        channels = sum(1 for curves in curve_sets(action) for fcurve in curves
                       if fcurve.array_index == 0 and fcurve.data_path.endswith(_ROTATIONS))
        total += channels * (end - start) * SAMPLES_PER_FRAME
    return total


class HeadStart:
    """Fits begun at the export's start in ``pool`` (a FitProcesses) on predicted tasks
    (export_headstart), by their (object, bone, action) names."""

    def __init__(self, pool: FitProcesses):
        self.pool = pool
        self.tasks: dict[TaskKey, tuple[int, ChannelTask]] = {}  # key -> (index in the pool, task)

    def submit(self, key: TaskKey, task: ChannelTask) -> None:
        self.tasks[key] = (self.pool.submit(task), task)


class ChannelFits:
    """The tasks given to ``add``, fitted with ExportOptions ``options`` by ``results``. A context
    manager: leaving it stops any worker processes."""

    def __init__(self, options: ExportOptions):
        self.options, self.checks = options, 0.0
        self.tasks: list[ChannelTask] = []
        self.head = _head.pop() if _head else None  # this export's now: its pool is closed here
        # False: the processes failed (or were closed), never tried again for this export
        self.pool: FitProcesses | Literal[False] | None = self.head.pool if self.head else None
        if self.pool:
            self.pool.activate()  # the bundled exporter has gathered: every core fits
        self.indices: list[int | None] = []  # per task: its index in the pool (None before the pool starts)
        self.early: dict[int, int] = {}  # position -> index of its SampleCheck, for the head start's keys
        self.taken: set[int] = set()  # the head start's indices of those

    def __enter__(self) -> "ChannelFits":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._close()
        release()

    def motion(self, key: TaskKey) -> RotationMotion | None:
        """The RotationMotion the head start read for ``key`` (object, bone, action names), or
        None: the same F-curves, read once."""
        entry = self._predicted(key)
        motion = entry[1].target.motion if entry else None
        return motion if isinstance(motion, RotationMotion) else None  # predictions are of keys

    def add(self, task: ChannelTask, key: TaskKey | None = None) -> None:
        """Fit ``task``: with the head start's keys for ``key`` when its task fits_like this one
        (checked here against this one's samples), else anew."""
        entry = self._predicted(key)
        if entry is not None and entry[0] not in self.taken and self.pool:  # the head start's pool
            if entry[1].fits_like(task):
                self._adopt(self.pool, task, entry[0])
                return
            self.pool.withdraw({entry[0]})  # mispredicted (another map or range): not worth finishing
        self.tasks.append(task)
        self.indices.append(None)
        self.checks += task.check_count() + CHANNEL_CHECKS
        if self.pool is None and WORKERS > 1 and self.checks >= PROCESS_MIN_CHECKS:
            self._start()
        elif self.pool:
            self.indices[-1] = self.pool.submit(task)

    def _predicted(self, key: TaskKey | None) -> tuple[int, ChannelTask] | None:
        """(index in the pool, task) of the head start's prediction for ``key``, or None."""
        return self.head.tasks.get(key) if self.head and key is not None else None

    def _adopt(self, pool: FitProcesses, task: ChannelTask, index: int) -> None:
        """The head start's keys (at ``index`` in ``pool``) for ``task``, once a worker has
        checked them against its samples too."""
        self.early[len(self.tasks)] = pool.submit(SampleCheck(task))
        self.taken.add(index)
        self.tasks.append(task)
        self.indices.append(index)

    def results(self) -> list[ChannelKeys]:
        """Every task's core.fitting.channel_keys.ChannelKeys, in the order they were added."""
        window_manager = current_window_manager()
        total = max(self.pool.submitted if self.pool else len(self.tasks), 1)
        window_manager.progress_begin(0, total)
        progress = _reporter(window_manager, total, "fitting")
        try:
            if self.pool:
                try:
                    return self._pooled(self.pool, progress)
                except WorkerError as error:
                    _warn(f"{error}; fitting in Blender's process instead")
                    self._close()
            self.early.clear()  # every task is fitted here, samples and all
            return _in_threads(self.tasks, self.options, progress)
        finally:
            window_manager.progress_end()

    def again(self, tasks: Sequence[ChannelTask]) -> list[ChannelKeys]:
        """ChannelKeys of ``tasks`` fitted anew (export_world's tighter shares): in this export's
        worker processes while it has them, else in threads."""
        window_manager = current_window_manager()
        window_manager.progress_begin(0, max(len(tasks), 1))
        progress = _reporter(window_manager, len(tasks), "refitting")
        try:
            if self.pool:
                try:
                    keys = self.pool.collect([self.pool.submit(task) for task in tasks], progress)
                    return cast(list[ChannelKeys], keys)  # None only for withdrawn tasks
                except WorkerError as error:
                    _warn(f"{error}; fitting in Blender's process instead")
                    self._close()
            return _in_threads(tasks, self.options, progress)
        finally:
            window_manager.progress_end()

    def refits(self, expected: int, idle: Iterator[bool] | None = None) -> "Refits":
        """A Refits for tasks found one by one (about ``expected`` of them, for the progress),
        taking steps of ``idle`` while it waits for the workers."""
        return Refits(self, expected, idle)

    def _pooled(self, pool: FitProcesses, progress: Callable[[int], None]) -> list[ChannelKeys]:
        if self.head:  # predicted channels the export does not have
            pool.withdraw({index for index, _ in self.head.tasks.values()} - self.taken)
        # None only for those withdrawn, which no task reads: every task's index is set once the
        # pool runs (``add``, ``_adopt``, ``_start``).
        fitted = cast(list[ChannelKeys], pool.results(progress))
        keys = [fitted[cast(int, index)] for index in self.indices]
        for position, check in self.early.items():
            if fitted[check].skipped:  # Blender's samples show another motion: the bundled sampler stays
                keys[position] = fitted[check]
        return keys

    def _start(self) -> None:
        try:
            self.pool = FitProcesses(WORKERS, self.options)
        except WorkerError as error:
            _warn(f"{error}; fitting in Blender's process instead")
            self.pool = False  # never tried again for this export
            return
        self.indices = [self.pool.submit(task) for task in self.tasks]

    def _close(self) -> None:
        if self.pool:
            self.pool.close()
        self.pool = False if self.pool is not None else None


class Refits:
    """Tasks fitted anew as they are found, each taken back as soon as it ends (export_world's
    pass down the tree: a channel is fitted once its parent's keys are known): in the export's
    worker processes while it has them, else in threads. A context manager (the progress shows
    while it is open). While no fit has ended in the workers, this thread takes a step of
    ``idle`` (other work of the export's) instead of waiting, until its steps run out; not while
    threads fit, which would wait for Python's lock meanwhile."""

    def __init__(self, fits: ChannelFits, expected: int, idle: Iterator[bool] | None = None):
        self.fits, self.done, self.handles = fits, 0, itertools.count()
        self.idle: Iterator[bool] | None = idle
        self.tasks: dict[int, ChannelTask] = {}  # handle -> task, while it is fitted
        self.found: list[int] = []  # handles submitted, not sent yet
        self.in_pool: dict[int, int] = {}  # index in the pool -> handle
        self.futures: dict[Future, int] = {}  # a thread's future -> handle
        self.arrived: deque[tuple[int, ChannelKeys]] = deque()  # fitted, not taken yet
        self.threads: ThreadPoolExecutor | None = None
        self.window_manager = current_window_manager()
        self.window_manager.progress_begin(0, max(expected, 1))
        self.progress = _reporter(self.window_manager, expected, "refitting")

    def __enter__(self) -> "Refits":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.threads is not None:
            self.threads.shutdown(wait=True, cancel_futures=True)
        self.window_manager.progress_end()

    def submit(self, task: ChannelTask) -> int:
        """Fit ``task`` (sent with the others found until ``ended``); returns its handle, which
        ``ended`` gives back with its keys."""
        handle = next(self.handles)
        self.tasks[handle] = task
        self.found.append(handle)
        return handle

    def ended(self) -> list[tuple[int, ChannelKeys]]:
        """(handle, keys) of the submitted tasks that have ended, once one has. Raises a fit's
        own error."""
        self._send()
        while not self.arrived:
            pool = self.fits.pool
            if self.in_pool and not pool:  # the processes stopped: what they held goes to threads
                self.found = list(self.in_pool.values())
                self.in_pool.clear()
                self._send()
            if pool and self.in_pool:
                try:
                    ended = pool.ended(self.in_pool, wait=self.idle is None)
                    if not ended and self.idle is not None and next(self.idle, None) is None:
                        self.idle = None  # its steps ran out: wait from now on
                    for index in ended:
                        keys = cast(ChannelKeys, pool.outcome(index))  # none is withdrawn
                        self.arrived.append((self.in_pool.pop(index), keys))
                except WorkerError as error:
                    _warn(f"{error}; fitting in Blender's process instead")
                    self.fits._close()
            elif self.futures:
                # Threads take every fit sent, a wave at a time: Blender's thread composing nodes
                # meanwhile would hold Python's lock that they fit under (a3: 0.3 s more).
                finished, _ = wait(self.futures, return_when=ALL_COMPLETED)
                self.arrived.extend((self.futures.pop(future), future.result()) for future in finished)
            else:
                raise RuntimeError("Refits.ended: no task is being fitted")
        taken, self.arrived = list(self.arrived), deque()
        for handle, _ in taken:
            del self.tasks[handle]
        self.done += len(taken)
        self.progress(self.done)
        return taken

    def _send(self):
        """The tasks found since the last call, to the pool, else each to a thread."""
        found, self.found = self.found, []
        pool = self.fits.pool
        for handle in found:
            if pool:
                self.in_pool[pool.submit(self.tasks[handle])] = handle
                continue
            if self.threads is None:
                self.threads = ThreadPoolExecutor(WORKERS)
            self.futures[self.threads.submit(self.tasks[handle].fit, self.fits.options)] = handle


# Who else hears the fits' progress, besides Blender's indicator: ``listener(fraction, stage)``
# (stage "fitting" or "refitting"), set by the command line (pipeline.blender) to draw its bar.
listener: Callable[[float, str], None] | None = None


def _reporter(window_manager: bpy.types.WindowManager, total: int, stage: str) -> Callable[[int], None]:
    """progress(done) for one round of fits: Blender's indicator, and the listener if any."""
    def progress(done):
        window_manager.progress_update(done)
        if listener is not None:
            listener(done / max(total, 1), stage)
    return progress


def _in_threads(tasks: Sequence[ChannelTask], options: ExportOptions,
                progress: Callable[[int], None]) -> list[ChannelKeys]:
    """Every task fitted in WORKERS threads (nothing in a fit touches Blender; threads gain less
    than processes, see fit_workers.processes, but cost nothing to start)."""
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = [pool.submit(task.fit, options) for task in tasks]
        for done, _ in enumerate(as_completed(futures), 1):
            progress(done)
        return [future.result() for future in futures]


def _warn(message):
    print(f"glTF Sqlerp Animation: {message}", file=sys.stderr)
