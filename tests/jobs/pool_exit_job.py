"""Child process of tests/core/test_fit_processes.py (not a test module itself).

``python pool_exit_job.py``: starts a FitProcesses, fits a task, prints the workers' process ids
as one JSON line, closes the pool and ends at once with os._exit, as the add-on's command line
and the tests' jobs end (the bpy module of Blender 4.2 crashes in Python's own exit).
"""

import json
import multiprocessing
import os
import sys
from pathlib import Path

if __name__ != "__main__":  # a worker running this script again, as spawn does unless told not to
    raise SystemExit("pool_exit_job.py ran again in a worker")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.euler_tasks import euler_task
from helpers.child_job import devpath  # noqa: F401 - puts the repository's package on the path

from gltf_sqlerp.core.fitting import ExportOptions
from gltf_sqlerp.fit_workers.processes import FitProcesses

before = set(multiprocessing.active_children())
pool = FitProcesses(2, ExportOptions())
pool.submit(euler_task(1))
pool.results()
workers = set(multiprocessing.active_children()) - before
print(json.dumps(sorted(worker.pid or 0 for worker in workers)))
sys.stdout.flush()
pool.close()
os._exit(0)
