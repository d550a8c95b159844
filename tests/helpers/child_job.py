"""Shared by the tests and their child-process jobs (tests/jobs/: export_job, extension_job,
preview_export_job, ...): the repository's folders, its dev scripts loaded by path, and the end of
the process.

The jobs run in child processes because the bpy module of Blender 4.2 crashes at exit once its
glTF exporter has run: finish() ends the process with os._exit after flushing, so the parent reads
the job's JSON line and its exit code, never the crash.
"""

import importlib
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
JOBS = TESTS / "jobs"  # the child-process jobs, each run as ``python tests/jobs/NAME_job.py ...``
SHARED = Path(os.environ.get("GLTF_SQLERP_SHARED", ROOT.parent / "shared"))
ASSETS = SHARED / "assets"
sys.path.append(str(ROOT / "tools"))
# tools/devpath.py, imported by name: tools/ is on the path at run time only (the line above).
devpath = importlib.import_module("devpath")


def tool(relative):
    """A dev script of the repository ('tools/fidelity.py', 'bench/synthetic_rig.py') imported by
    path once, as module ``gltf_sqlerp_<stem>`` (the tests and their child jobs alike)."""
    path = ROOT / relative
    return devpath.load_module(f"gltf_sqlerp_{path.stem}", path)


def run_child(*args, timeout: float = 600, cwd=None) -> subprocess.CompletedProcess[str]:
    """Run ``python *args`` (a job script and its arguments, each made a string) in a child process
    with this interpreter, and assert that it succeeded; its output is captured as text."""
    done = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def report(done: subprocess.CompletedProcess[str]):
    """A job's report: the last line it printed, as JSON (``finish`` ends the child after it)."""
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_job(*args, timeout: float = 600, cwd=None):
    """Run a job as run_child does and return its report."""
    return report(run_child(*args, timeout=timeout, cwd=cwd))


def finish(run):
    """Call ``run()``; a failure goes to stderr with exit code 1; then leave without Python's exit."""
    try:
        run()
        code = 0
    except BaseException:  # noqa: BLE001 - reported to the parent on stderr
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
