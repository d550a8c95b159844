"""Channel fits (core.fitting's ChannelTask and SampleCheck) in worker processes.

A channel's fit is thousands of numpy calls on arrays of 1,000 to 64,000 numbers: Python's lock is
held between them, and numpy's idle OpenBLAS threads spin, so threads of one process gained 10 to
25 % on two cores, while two worker processes fit 1.7 to 1.9 times as fast as one.

The workers are a concurrent.futures.ProcessPoolExecutor of spawned processes that run the caller's
interpreter (``sys.executable``: Blender's own Python inside Blender, the venv's under the bpy
module). fit_workers/boot.py starts each of them: one BLAS thread, a lower priority, and this
add-on importable under the caller's own package name, so tasks, results and a fit's own errors
travel as plain pickles. Every worker starts at once, but a fit holds one of the pool's permits:
``active`` of them until ``activate``. The pool's thread hands the executor one batch more than
there are permits, so that a worker finds its next batch waiting (handing one over takes the
executor's threads tens of milliseconds while Blender's thread keeps Python busy); the others wait
here, where ``withdraw`` still drops them unsent.

A batch is one task, or several small ones (``_batch``): the executor's hand-over of each item
costs this process's threads about as much as a small fit, so small fits handed over one by one
gain nothing from a second worker (measured: docs/manual/benchmarks.md, "Small fits go to the
workers in batches").
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import runpy
import sys
import threading
import types
from collections import deque
from concurrent.futures import CancelledError, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import replace
from multiprocessing import spawn
from typing import TYPE_CHECKING, Callable, Collection, Iterable, Iterator, Protocol

# Not for type checking only: boot.py imports this module as a worker starts, so that numpy and
# core load then, before the worker lowers its priority (see boot.start).
from ..core.fitting import ChannelKeys, ExportOptions
from . import boot

if TYPE_CHECKING:  # importing it fails where the system has no semaphores: the add-on must load there
    from multiprocessing.synchronize import Semaphore

_permits: Semaphore | None = None  # in a worker: the pool's fit permits (worker_started)
# A batch holds tasks of about this many check times in all (ChannelTask.check_count, each
# counted with TASK_CHECKS more: a small fit's own cost, 1.2 ms, about 1.1 microseconds a check
# time), some 20 ms of fitting; tasks that do not say their check count go alone. The smallest
# fits' cost on purpose: a batch of larger ones (Rigify's sampled channels, 12 ms each, which
# operators/exporting/fitting.CHANNEL_CHECKS counts when it decides to start the processes) is
# only shorter than BATCH_CHECKS says, never longer.
BATCH_CHECKS = 20_000
TASK_CHECKS = 1_000


class Task(Protocol):
    """What the workers fit: core.fitting's ChannelTask and SampleCheck, pickled by reference."""

    def fit(self, options: ExportOptions) -> ChannelKeys: ...


class WorkerError(RuntimeError):
    """A worker process could not start or stopped answering (not a failed fit): the caller can
    fit in its own process instead."""


class FitProcesses:
    """``count`` worker processes fitting the tasks given to ``submit`` with ``options``, in any
    order, while the caller goes on (reading the next channels from Blender, say). Only
    ``active`` of them fit (all when None) until ``activate``: a caller leaves a core to another
    job meanwhile. Raises WorkerError when the workers cannot start."""

    def __init__(self, count: int, options: ExportOptions, active: int | None = None) -> None:
        self._count, self._options = count, options
        self._executor, self._permits = _start(count)
        self._changed = threading.Condition()  # guards what follows, but the arrivals
        self._waiting: deque = deque()  # (index, task) not handed to the executor yet
        # Permits given (workers that may fit), batches the executor holds, tasks submit() took.
        self._active = self._running = self._submitted = 0
        # index -> (its batch's Future, its place there), or the WorkerError that kept it from one
        self._futures: dict = {}
        self._batches: dict = {}  # id(Future) -> the indices of its batch
        self._withdrawn: set = set()
        self._closed = False
        self._arrivals: queue.SimpleQueue = queue.SimpleQueue()  # indices, as their fits end
        self._feeder = threading.Thread(target=self._feed, name="fit_workers", daemon=True)
        self._feeder.start()
        self.activate(active)

    def activate(self, count: int | None = None) -> None:
        """Let ``count`` workers fit (all when None); never fewer than before."""
        with self._changed:
            more = (self._count if count is None else min(count, self._count)) - self._active
            for _ in range(more):
                self._permits.release()
            self._active += max(more, 0)
            self._changed.notify()

    @property
    def submitted(self) -> int:
        """How many tasks ``submit`` queued."""
        return self._submitted

    @property
    def batches(self) -> int:
        """How many batches of them the workers were handed (``_batch``)."""
        return len(self._batches)

    def submit(self, task: Task) -> int:
        """Queue ``task``; returns its index in ``results``."""
        with self._changed:
            index = self._submitted
            self._submitted += 1
            self._waiting.append((index, task))
            self._changed.notify()
        return index

    def withdraw(self, indices: Iterable[int]) -> None:
        """Tasks no longer wanted: those not handed to a worker yet (all but one more than those
        fitting) are never fitted, and a failure of one that was is not raised; their results are
        None."""
        with self._changed:
            indices = set(indices)
            self._withdrawn.update(indices)
            futures = [entry[0] for index in indices if isinstance(entry := self._futures.get(index), tuple)
                       and self._withdrawn.issuperset(self._batches[id(entry[0])])]
        for future in futures:  # outside the lock: a cancel runs _arrived here
            future.cancel()  # a batch the executor has not sent yet, all of it withdrawn

    def results(self, progress: Callable[[int], None] | None = None) -> list[ChannelKeys | None]:
        """The ChannelKeys of every submitted task, in order of submission, once all are fitted;
        ``progress(done)`` after each. Raises the first failure to arrive: a fit's own exception,
        or WorkerError. The workers go on taking tasks (``submit`` and ``collect`` more)."""
        self.activate()
        return self.collect(range(self._submitted), progress)

    def collect(self, indices: Iterable[int],
                progress: Callable[[int], None] | None = None) -> list[ChannelKeys | None]:
        """The ChannelKeys of the tasks at ``indices``, once those are fitted (as ``results``)."""
        indices = list(indices)
        with self._changed:
            missing = {index for index in indices if not self._settled(index)}
        while missing:
            index = self._arrivals.get()
            if index in missing:
                missing.discard(index)
                self._outcome(index)  # raises a failure as it arrives
                if progress is not None:
                    progress(len(indices) - len(missing))
        return [self._outcome(index) for index in indices]

    def ended(self, indices: Collection[int], wait: bool = True) -> list[int]:
        """Those of ``indices`` whose tasks need no more waiting for (``outcome`` gives their
        keys), once there is one (``wait`` False: at once, maybe none): every one ended by then,
        so that the caller takes them together. The caller takes each only once (drops it from
        ``indices``)."""
        while True:
            with self._changed:
                ended = [index for index in indices if self._settled(index)]
            if ended or not wait:
                return ended
            self._arrivals.get()  # one arrived: look again (``collect`` looks at what is settled first)

    def outcome(self, index: int) -> ChannelKeys | None:
        """The keys of a task ``ended`` gave; raises its fit's error, or WorkerError."""
        return self._outcome(index)

    def close(self) -> None:
        """Stop the workers without waiting: every one is terminated, busy (a failure, a cancelled
        export) or idle. An idle one left to exit by itself outlived a caller that ended with
        os._exit right after (the command line, the tests' jobs): the executor's thread had no
        time to tell it, and the workers kept each other alive (each holds the others' end of the
        executor's queue), holding the caller's stdout and stderr open for ever."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        self._feeder.join(timeout=1.0)  # it only waits for this lock and the executor's
        _stop(self._executor)

    def __enter__(self) -> FitProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _feed(self) -> None:
        """The pool's thread: hands the executor each batch once a worker may take it. Never here
        while holding the lock: the executor calls _arrived under its own."""
        while (batch := self._next()) is not None:
            indices = [index for index, _ in batch]
            try:
                future = self._executor.submit(_fit_all, [task for _, task in batch], self._options)
            except Exception as error:  # noqa: BLE001 - broken or shut down: an answer, never a hang
                with self._changed:
                    for index in indices:
                        self._futures[index] = WorkerError(f"a fit process stopped ({error})")
                self._arrived(indices)
                continue
            with self._changed:
                self._batches[id(future)] = indices
                for place, index in enumerate(indices):
                    self._futures[index] = (future, place)
            future.add_done_callback(lambda _, indices=indices: self._arrived(indices))

    def _next(self) -> list[tuple[int, Task]] | None:
        """The next batch a worker may take, once one may; None once closed."""
        with self._changed:
            while not self._closed:
                while self._waiting and self._waiting[0][0] in self._withdrawn:
                    self._waiting.popleft()  # never sent
                if self._waiting and self._has_room():
                    self._running += 1
                    return self._batch()
                self._changed.wait()
        return None

    def _batch(self) -> list[tuple[int, Task]]:
        """The first waiting task and those after it while their check times stay within
        BATCH_CHECKS, and no more than an equal share of the waiting ones per worker that may
        fit (so that every worker gets some)."""
        batch = [self._waiting.popleft()]
        cost = _checks(batch[0][1])
        share = -(-(len(self._waiting) + 1) // max(self._active, 1))
        while cost is not None and self._waiting and len(batch) < share:
            index, task = self._waiting[0]
            more = _checks(task)
            if index in self._withdrawn or more is None or cost + more > BATCH_CHECKS:
                break
            batch.append(self._waiting.popleft())
            cost += more
        return batch

    def _has_room(self) -> bool:
        """Whether the executor may take another batch: one more than may fit, none before any may."""
        return self._running < (self._active + 1 if self._active else 0)

    def _arrived(self, indices: list[int]) -> None:
        """A batch's fits ended (or it was cancelled, or never sent): its worker may take another."""
        with self._changed:
            self._running -= 1
            self._changed.notify()
        for index in indices:
            self._arrivals.put(index)

    def _settled(self, index: int) -> bool:
        """Whether task ``index`` needs no more waiting for: withdrawn, refused, or ended."""
        entry = self._futures.get(index)
        if index in self._withdrawn or isinstance(entry, WorkerError):
            return True
        return isinstance(entry, tuple) and entry[0].done()

    def _outcome(self, index: int) -> ChannelKeys | None:
        """A settled task's keys; None when withdrawn. Raises its fit's error, or WorkerError."""
        if index in self._withdrawn:
            return None
        entry = self._futures[index]
        if isinstance(entry, WorkerError):
            raise entry
        future, place = entry
        try:
            outcome = future.result()[place]
        except (BrokenProcessPool, CancelledError) as error:
            raise WorkerError(f"a fit process stopped ({error or 'cancelled'})") from error
        if isinstance(outcome, BaseException):
            raise outcome  # the fit's own error, as it would have been in this process
        return outcome


def worker_started(permits: Semaphore) -> None:
    """In a new worker (boot.py): the pool's fit permits, one held by each fit."""
    global _permits
    _permits = permits


def _checks(task: Task) -> float | None:
    """A task's cost in check times for ``_batch``, or None when it does not say."""
    check_count = getattr(task, "check_count", None)
    count = check_count() if callable(check_count) else None
    return float(count) + TASK_CHECKS if isinstance(count, (int, float)) else None


def _fit_all(tasks: list[Task], options: ExportOptions) -> list[ChannelKeys | Exception]:
    """A worker's fits of a batch, once it holds a permit: each task's keys, or the error its fit
    raised. The dense check's arrays stay here: the keys are written, not checked again."""
    if _permits is None:
        raise RuntimeError("not a worker: boot.py gives a worker its permits")
    outcomes: list[ChannelKeys | Exception] = []
    with _permits:
        for task in tasks:
            try:
                keys = task.fit(options)
            except Exception as error:  # noqa: BLE001 - the caller raises it for this task alone
                outcomes.append(error)
                continue
            if keys.fit is not None:
                keys = replace(keys, fit=replace(keys.fit, check_times=None, played=None))
            outcomes.append(keys)
    return outcomes


def _start(count: int) -> tuple[ProcessPoolExecutor, Semaphore]:
    """An executor of ``count`` workers, all of them starting now (while the caller goes on), and
    the fit permits they share (none given yet). Raises WorkerError, leaving none running, when a
    worker cannot start."""
    package = __name__.rsplit(".", 2)[0]  # the add-on's, whatever Blender named it
    folder = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    context = multiprocessing.get_context("spawn")
    executor = None
    try:
        with _spawning(_interpreter()):
            permits = context.Semaphore(0)  # a worker has it from its start: the only way to share it
            start = (package, folder, _parents(package), __name__, permits)
            executor = ProcessPoolExecutor(count, mp_context=context, initializer=runpy.run_path,
                                           initargs=(boot.__file__, {boot.ARGUMENTS: start}, boot.RUN_NAME))
            # The executor spawns a worker per task while none is idle: these start every worker
            # here, where _spawning holds, and never later from another thread.
            for _ in range(count):
                executor.submit(os.getpid)
    except Exception as error:  # whatever stops a start: the caller fits in threads instead
        if executor is not None:
            _stop(executor)
        raise WorkerError(f"could not start a fit process ({error})") from error
    return executor, permits


def _parents(package: str) -> dict[str, list[str]]:
    """The packages around ``package`` (``bl_ext`` and ``bl_ext.user_default`` around
    ``bl_ext.user_default.gltf_sqlerp``), outermost first, with their search paths here."""
    names = package.split(".")[:-1]
    found = {}
    for end in range(1, len(names) + 1):
        name = ".".join(names[:end])
        found[name] = [str(path) for path in getattr(sys.modules.get(name), "__path__", [])]
    return found


def _interpreter() -> str:
    """The Python the workers run: this one (Blender's own from Blender 4.2 on, where
    ``sys.executable`` is it, no longer the blender binary; the venv's with the bpy module).
    Checked here: multiprocessing does not report a program it could not run, whose worker
    would only seem to stop later."""
    executable = sys.executable
    if not (executable and os.path.isfile(executable) and os.access(executable, os.X_OK)):
        raise WorkerError(f"no interpreter at {executable!r}")
    return executable


@contextmanager
def _spawning(executable: str) -> Iterator[None]:
    """While workers spawn: multiprocessing starts ``executable``, and this process has no main
    module. A spawned child runs the parent's main script again (as __mp_main__) before anything
    else, unless it is a package's __main__: in Blender that is the ``--python`` script, which
    imports bpy (a worker has none); under the bpy module the user's script, which need not guard
    its work with ``if __name__ == "__main__"``. The workers need nothing of it."""
    main, previous = sys.modules.get("__main__"), spawn.get_executable()
    changed = previous is None or os.fsdecode(previous) != executable
    sys.modules["__main__"] = types.ModuleType("__main__")
    if changed:  # set when multiprocessing was imported: the same, unless sys.executable changed
        spawn.set_executable(executable)
    try:
        yield
    finally:
        if changed:
            spawn.set_executable(previous)
        if main is None:
            del sys.modules["__main__"]
        else:
            sys.modules["__main__"] = main


def _stop(executor: ProcessPoolExecutor) -> None:
    """Shut ``executor`` down without waiting for it, and terminate its workers."""
    # Before Python 3.14 (terminate_workers) the executor has no public way to stop a worker.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
