"""A real Dask cluster for the tests: ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1
(free ports, no dashboard), each in its own session so that a test can kill one worker with
SIGKILL and the fixture can stop them all, even after a failure."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

START_SECONDS = 60


class Cluster:
    """A scheduler and ``workers`` workers of one thread each, without nannies (a worker killed
    stays gone, as a lost machine does). ``address``: the scheduler's; ``workers``: their processes."""

    def __init__(self, folder: Path, workers: int = 2, dask: tuple[str, ...] = (sys.executable, "-m", "dask"),
                 environment: dict[str, str] | None = None):
        self.folder, self.processes = folder, []
        folder.mkdir(parents=True, exist_ok=True)
        scheduler_file = folder / "scheduler.json"
        self._start("scheduler", [*dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(scheduler_file)], environment)
        self.address = self._address(scheduler_file)
        self.workers = [self._start(f"worker{n}", [
            *dask, "worker", self.address, "--nthreads", "1", "--no-nanny",
            "--no-dashboard", "--host", "127.0.0.1", "--name", f"worker{n}",
            "--local-directory", str(folder / f"worker{n}")], environment) for n in range(workers)]
        self._wait_for_workers(workers)

    def _start(self, name, command, environment):
        log = open(self.folder / f"{name}.log", "w")
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, env=environment)
        log.close()
        self.processes.append(process)
        return process

    def _address(self, scheduler_file):
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            try:
                return json.loads(scheduler_file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.1)
        raise TimeoutError(f"no scheduler after {START_SECONDS} s: {self.log('scheduler')}")

    def _wait_for_workers(self, count):
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            logs = [self.log(f"worker{n}") for n in range(count)]
            if all("Registered to:" in log for log in logs):
                return
            time.sleep(0.1)
        raise TimeoutError(f"workers did not register in {START_SECONDS} s: {logs}")

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def kill(self, process: subprocess.Popen) -> None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=20)
