"""``--dask ADDRESS`` (an existing scheduler) or ``--dask local[:N]`` (a LocalCluster of N workers):
a batch's tasks on a Dask cluster, one task per file, the same pipeline_run.py command per task as
``--jobs`` runs (pipeline.runners). Dask is imported only here, only when ``--dask`` is given.

Dask does the scheduling and the fault handling: a task whose worker is lost (killed, crashed,
cut off) runs again on another worker (``distributed.scheduler.allowed-failures``, 3 by default),
a task that raised runs again up to RETRIES times; the report lists the tasks that ran more than
once, from the scheduler's own record of them (worker_task.task_history)."""

import importlib.util
import logging
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from . import worker_task
from .common import LAUNCHER, UsageError, plain_error
from .runners import Task, report_of

CONNECT_SECONDS = 10  # an unreachable scheduler is a usage error after this long
RETRIES = 2  # a task whose child could not even start (it raised) runs again this often
LOCAL = "local"
# worker_task.py under the name it has on the workers, where Dask's UploadFile plugins put it
TASK_MODULE = "gltf_sqlerp_dask_task"
MISSING = "--dask needs the dask and distributed packages: pip install distributed==2026.8.0"


def _distributed() -> ModuleType:
    try:
        import distributed
    except ImportError:
        raise UsageError(MISSING) from None
    return distributed


def _ship_tasks(client) -> ModuleType:
    """worker_task.py as the top-level module TASK_MODULE here, on the scheduler and on every
    worker, those that join later too (Dask's UploadFile plugins, under fixed names: a later run
    replaces them). A task names its function by module and name, and a worker cannot import our
    package (only the launcher is on shared storage)."""
    from distributed.diagnostics.plugin import SchedulerUploadFile, UploadFile
    with tempfile.TemporaryDirectory(prefix="gltf_sqlerp_") as folder:
        path = Path(folder) / f"{TASK_MODULE}.py"
        shutil.copyfile(worker_task.__file__ or "", path)
        client.register_plugin(SchedulerUploadFile(str(path)), name=f"{TASK_MODULE}-scheduler")
        client.register_plugin(UploadFile(str(path)), name=TASK_MODULE)
        spec = importlib.util.spec_from_file_location(TASK_MODULE, path)
        if spec is None or spec.loader is None:  # a .py file always has both
            raise RuntimeError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[TASK_MODULE] = module
        spec.loader.exec_module(module)
    return module


def local_workers(address: str) -> int | None:
    """N of ``local:N`` (``local``: every core), None for a scheduler's address."""
    name, _, count = address.partition(":")
    if name != LOCAL:
        return None
    if not count:
        return os.cpu_count() or 1
    if not count.isdigit() or int(count) < 1:
        raise UsageError(f"--dask {address}: give local or local:N with N at least 1")
    return int(count)


class DaskRunner:
    """Connects (or starts a LocalCluster), checks every worker can run the tasks (the launcher on
    shared storage, ``modules`` importable, the same add-on), then runs tasks as LocalRunner does."""

    def __init__(self, address: str, modules: Sequence[str]):
        distributed = _distributed()
        self.distributed, self.cluster, self.client = distributed, None, None
        self.futures: dict[Any, Task] = {}
        self.run_id = uuid.uuid4().hex[:8]  # task keys are unique to this run on a shared scheduler
        workers = local_workers(address)
        try:
            if workers is not None:
                self.cluster = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                    dashboard_address=None, silence_logs=logging.ERROR)
                address = self.cluster.scheduler_address
            self.client = distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            self.close()
            raise UsageError(f"cannot reach the Dask scheduler at {address}: "
                             f"{' '.join(str(error).split())}") from None
        self.address = address
        try:
            self.tasks = _ship_tasks(self.client)
            self.workers = self._check(list(modules))
        except UsageError:
            self.close()
            raise
        except (OSError, TimeoutError) as error:  # the scheduler went away meanwhile
            self.close()
            raise UsageError(f"the Dask cluster at {address}: {' '.join(str(error).split())}") from None

    def _check(self, modules):
        """The workers' addresses; a usage error (nothing run, nothing written) naming the first
        worker that cannot run the tasks."""
        client = self._client()
        found = client.run(self.tasks.check, str(LAUNCHER), modules)
        if not found:
            raise UsageError(f"the Dask cluster at {self.address} has no worker")
        own = self.tasks.addon_digest(str(LAUNCHER))
        for worker, state in sorted(found.items()):
            if state["problem"]:
                raise UsageError(f"Dask worker {worker}: {state['problem']}")
            if state["addon"] != own:
                raise UsageError(f"Dask worker {worker} has another version of the add-on at "
                                 f"{LAUNCHER.parent} (every worker needs this one)")
        return sorted(found)

    def _client(self):
        if self.client is None:  # set in __init__, or it raised
            raise RuntimeError("not connected")
        return self.client

    def results(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, dict[str, Any]]]:
        """(task, its report) as each task ends on the cluster."""
        client = self._client()
        batch = {}  # this call's tasks (a batch may run several: export-blends --per-action)
        for task in tasks:
            key = f"gltf_sqlerp-{self.run_id}-{len(self.futures) + len(batch)}"
            batch[client.submit(self.tasks.run, str(LAUNCHER), task.arguments, pure=False,
                                retries=RETRIES, key=key)] = task
        self.futures.update(batch)
        for future in self.distributed.as_completed(list(batch), loop=client.loop):
            yield batch[future], self._report(batch[future], future)

    def _report(self, task, future):
        try:
            result = future.result()
        except Exception as error:  # noqa: BLE001 - the cluster's verdict on the task, any kind
            # (KilledWorker after too many lost workers, CancelledError, the task's own exception)
            return {**task.entry, "status": "failed",
                    "error": plain_error(type(error).__name__, " ".join(str(error).split()))}
        return report_of(task, result["code"], result["stdout"], result["stderr"])

    def stop(self) -> None:
        """Ctrl+C: cancel every task of this run on the cluster."""
        if self.client is not None and self.futures:
            self.client.cancel(list(self.futures), force=True)

    def summary(self) -> dict[str, Any]:
        """The cluster and the tasks that ran more than once (a lost worker, or a retry)."""
        keys = {future.key: task for future, task in self.futures.items()}
        try:
            history = self._client().run_on_scheduler(self.tasks.task_history, list(keys))
        except (OSError, TimeoutError, RuntimeError):
            history = None  # the scheduler is gone: say so rather than guess
        retried = None if history is None else [
            {"file": keys[key].name, "lost_workers": seen["lost_workers"],
             "retries": RETRIES - seen["retries_left"]}
            for key, seen in sorted(history.items(), key=lambda item: keys[item[0]].name)
            if seen["lost_workers"] or seen["retries_left"] < RETRIES]
        return {"dask": {"scheduler": self.address, "local_cluster": self.cluster is not None,
                         "workers": len(self.workers)}, "retried": retried}

    def close(self) -> None:
        for part in (self.client, self.cluster):
            if part is not None:
                part.close()
        self.client = self.cluster = None
