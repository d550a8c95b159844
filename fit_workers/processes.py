"""Channel fits (core.fitting.channel_motion.ChannelTask) in worker processes.

A channel's fit is thousands of numpy calls on arrays of 1,000 to 64,000 numbers: Python's lock is
held between them, and numpy's idle OpenBLAS threads spin, so threads of one process gained 10 to
25 % on two cores, while two worker processes fit 1.7 to 1.9 times as fast as one. The workers
run the calling interpreter (``sys.executable``: Blender's own Python inside Blender) in isolated
mode, load this folder as a package of their own
(numpy only, never bpy) and fit the tasks they are sent; tasks and results travel as pickles, each
preceded by its length, over the workers' stdin and stdout. Classes of this folder are renamed on
the way (the caller's package name in one process, WORKER_PACKAGE in the other), so the same
modules serve both sides wherever Blender installed the add-on.
"""

import io
import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from dataclasses import replace
from importlib import import_module

WORKER_PACKAGE = "gltf_sqlerp_fit_worker"
_HEADER = struct.Struct("<Q")
# One BLAS thread per worker: OpenBLAS's idle threads spin, and the workers fill the cores already.
_ENVIRONMENT = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# The worker's start: load this folder as WORKER_PACKAGE, then serve() (argv: package, folder).
_BOOT = ("import sys\n"
         "from importlib import import_module, util\n"
         "name, folder = sys.argv[1], sys.argv[2]\n"
         "spec = util.spec_from_file_location(name, folder + '/__init__.py',\n"
         "                                    submodule_search_locations=[folder])\n"
         "package = util.module_from_spec(spec)\n"
         "sys.modules[name] = package\n"
         "spec.loader.exec_module(package)\n"
         "import_module(name + '.fit_processes').serve()\n"
         "import os\n"
         "os._exit(0)\n")  # nothing to tidy: skips the interpreter's teardown (tens of ms)


class WorkerError(RuntimeError):
    """A worker process could not start or stopped answering (not a failed fit): the caller can
    fit in its own process instead."""


def start_workers(count):
    """``count`` started worker processes, for FitProcesses. Raises WorkerError, leaving none
    running, when one cannot start."""
    workers = []
    try:
        for _ in range(count):
            workers.append(_Worker(__package__))
    except WorkerError as error:
        stop_workers(workers, kill=True)
        raise WorkerError(f"could not start a fit process ({error})") from error
    return workers


def stop_workers(workers, kill=False):
    """Stop worker processes: idle ones exit once their input closes; ``kill`` for busy ones.
    All are told before any is waited for, so they exit together."""
    for worker in workers:
        worker.stop(kill=kill, wait=False)
    for worker in workers:
        worker.stop()


class FitProcesses:
    """``count`` worker processes fitting the tasks given to ``submit`` with ``options``, in any
    order, while the caller goes on (reading the next channels from Blender, say). Only
    ``active`` of them fit (all when None) until ``activate``: a caller leaves a core to another
    job meanwhile."""

    def __init__(self, count, options, active=None):
        self._tasks, self._done = queue.Queue(), queue.Queue()
        self._submitted, self._finished, self._withdrawn = 0, False, set()
        self._results = {}  # index -> ChannelKeys (None: withdrawn), as they arrive
        self._workers = start_workers(count)
        self._options, self._feeders = options, []
        self.activate(active)

    def activate(self, count=None):
        """Let ``count`` workers fit (all when None)."""
        for worker in self._workers[len(self._feeders):count]:
            feeder = threading.Thread(target=self._feed, args=(worker, self._options), daemon=True)
            self._feeders.append(feeder)
            feeder.start()

    @property
    def submitted(self):
        """How many tasks ``submit`` queued."""
        return self._submitted

    def submit(self, task):
        """Queue ``task``; returns its index in ``results``."""
        self._tasks.put((self._submitted, task))
        self._submitted += 1
        return self._submitted - 1

    def withdraw(self, indices):
        """Tasks no longer wanted: those not begun are never fitted, and a failure of one that
        began is not raised; their results are None."""
        self._withdrawn.update(indices)

    def results(self, progress=None):
        """The ChannelKeys of every submitted task, in order of submission, once all are fitted;
        ``progress(done)`` after each. Raises the first failure to arrive: a fit's ValueError, or
        WorkerError. The workers go on taking tasks (``submit`` and ``collect`` more)."""
        self.activate()
        return self.collect(range(self._submitted), progress)

    def collect(self, indices, progress=None):
        """The ChannelKeys of the tasks at ``indices``, once those are fitted (as ``results``)."""
        indices = list(indices)
        missing = set(indices) - self._results.keys()
        while missing:
            index, result, error = self._done.get()
            if error is not None and not (isinstance(error, ValueError) and index in self._withdrawn):
                raise error
            self._results[index] = None if index in self._withdrawn else result
            missing.discard(index)
            if progress is not None:
                progress(len(indices) - len(missing))
        self._finished = len(self._results) == self._submitted
        return [self._results[index] for index in indices]

    def close(self):
        """Stop the workers: they exit once their input closes, or are killed when the results
        were not all read (a failure: a worker may be busy still)."""
        for _ in self._workers:
            self._tasks.put(None)
        stop_workers(self._workers, kill=not self._finished)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _feed(self, worker, options):
        while True:
            item = self._tasks.get()
            if item is None:
                return
            index, task = item
            if index in self._withdrawn:
                self._done.put((index, None, None))
                continue
            try:
                self._done.put((index, worker.fit(task, options), None))
            except ValueError as error:  # the fit's own: the export fails as it would here
                self._done.put((index, None, error))
            except Exception as error:  # noqa: BLE001 - any other is the worker's, never a hang
                failure = error if isinstance(error, WorkerError) else WorkerError(repr(error))
                self._done.put((index, None, failure))
                return


class _Worker:
    """One worker process and its two pipes; the first message tells it the caller's package."""

    def __init__(self, package):
        self.package = package
        folder = os.path.dirname(os.path.abspath(__file__))
        flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)  # no console window on Windows
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOT, WORKER_PACKAGE, folder],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, **_ENVIRONMENT},
                creationflags=flags)
        except (OSError, ValueError, TypeError) as error:  # no such file; no interpreter path
            raise WorkerError(f"{error}") from error
        try:
            self._send(package)
        except WorkerError:
            self.stop(kill=True)  # started: never left running untracked
            raise

    def fit(self, task, options):
        self._send((task, options))
        try:
            reply = _receive(self.process.stdout)
        except (OSError, ValueError) as error:  # ValueError: a pipe closed by stop()
            raise WorkerError(f"a fit process stopped ({error})") from error
        if reply is None:
            raise WorkerError(f"a fit process stopped (exit code {self.process.poll()})")
        status, value = _load(reply, WORKER_PACKAGE, self.package)
        if status == "error":
            raise ValueError(value)
        return value

    def _send(self, value):
        try:
            _send(self.process.stdin, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        except (OSError, ValueError) as error:  # ValueError: a pipe closed by stop()
            raise WorkerError(f"a fit process stopped ({error})") from error

    def stop(self, kill=False, wait=True):
        """Close its input (killed first if ``kill``), and with ``wait`` wait for its exit."""
        try:
            if kill:
                self.process.kill()
            self.process.stdin.close()
            if wait:
                self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        finally:
            if wait:
                self.process.stdout.close()


def serve():
    """A worker's loop: fit each task read from stdin, write its result (or the failed fit's
    message) to stdout, until stdin closes."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not break the replies
    _give_way()
    caller = _receive(source)
    if caller is None:
        return
    caller = pickle.loads(caller)
    for message in iter(lambda: _receive(source), None):
        task, options = _load(message, caller, WORKER_PACKAGE)
        try:
            keys = task.fit(options)
            if keys.fit is not None:  # the dense check's arrays stay here: keys are written
                keys = replace(keys, fit=replace(keys.fit, check_times=None, played=None))
            reply = ("keys", keys)
        except ValueError as error:
            reply = ("error", str(error))
        _send(sink, pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))


def _give_way():
    """Lower this worker's priority: where Blender's own threads want a core too (the bundled
    exporter gathers while the export's head start fits), they get it; idle cores stay ours."""
    try:
        os.nice(10)
    except (AttributeError, OSError):  # no nice on Windows
        pass


def _send(stream, data):
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _receive(stream):
    """The next message's bytes, or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    size, = _HEADER.unpack(header)
    data = stream.read(size)
    return data if len(data) == size else None


def _load(data, old, new):
    """Unpickle ``data`` with the classes of package ``old`` taken from package ``new``."""
    return _Renaming(io.BytesIO(data), old, new).load()


class _Renaming(pickle.Unpickler):
    def __init__(self, stream, old, new):
        super().__init__(stream)
        self.old, self.new = old, new

    def find_class(self, module, name):
        if module == self.old or module.startswith(self.old + "."):
            module = self.new + module[len(self.old):]
            import_module(module)
        return super().find_class(module, name)
