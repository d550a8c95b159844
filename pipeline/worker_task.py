"""What a Dask cluster runs for a batch. pipeline.cluster sends this file to the scheduler and the
workers (Dask's UploadFile plugins) as the module ``gltf_sqlerp_dask_task``, so a worker needs no
copy of the add-on on its import path, only the launcher on shared storage and a Python that runs it.

Standard library only, and nothing from the add-on: it runs where our package cannot be imported.
"""

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

# Set for a task's child: it ends itself when its worker is gone (parent_watch in common.py), so a
# worker killed with SIGKILL leaves no child writing behind the task's retry.
PARENT_VARIABLE = "GLTF_SQLERP_PARENT_PID"
STDERR_LINES = 5  # the end of a failed child's stderr that its entry keeps


def run(launcher: str, arguments: list[str]) -> dict[str, object]:
    """Run ``pipeline_run.py ARGUMENTS`` with this worker's Python in a child process (a fresh
    interpreter per task, as ``convert --jobs`` does: a crash or bpy's state stays in it)."""
    environment = {**os.environ, PARENT_VARIABLE: str(os.getpid())}
    child = subprocess.run([sys.executable, launcher, *arguments], capture_output=True, text=True,
                           env=environment, stdin=subprocess.DEVNULL)
    return {"code": child.returncode, "stdout": child.stdout,
            "stderr": "\n".join(child.stderr.strip().splitlines()[-STDERR_LINES:]),
            "worker": _worker_address()}


def _worker_address():
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):  # not inside a Dask worker (a direct call)
        return None


def check(launcher: str, modules: list[str]) -> dict[str, str | None]:
    """What this worker lacks to run the launcher (``problem``, None when nothing) and the digest
    of the add-on it would run (the manifest beside the launcher: the same version everywhere)."""
    path = Path(launcher)
    if not path.is_file():
        return {"problem": f"no {launcher} (the add-on's folder must be on shared storage)",
                "addon": None}
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        return {"problem": f"its Python ({sys.executable}) has no {', '.join(missing)}",
                "addon": None}
    return {"problem": None, "addon": addon_digest(launcher)}


def addon_digest(launcher: str) -> str | None:
    """sha256 of the add-on's manifest beside ``launcher`` (its name and version), None if absent."""
    manifest = Path(launcher).parent / "blender_manifest.toml"
    try:
        return hashlib.sha256(manifest.read_bytes()).hexdigest()
    except OSError:
        return None


def task_history(keys: list[str], dask_scheduler=None) -> dict[str, dict[str, int]]:
    """Per task key, as the scheduler knows it: how often a worker running it was lost (Dask then
    runs it elsewhere, up to ``distributed.scheduler.allowed-failures``) and how many of its
    ``retries`` after an exception are left. Runs on the scheduler (Client.run_on_scheduler)."""
    found = {}
    for key in keys:
        state = dask_scheduler.tasks.get(key) if dask_scheduler is not None else None
        if state is not None:
            found[key] = {"lost_workers": int(state.suspicious), "retries_left": int(state.retries)}
    return found
