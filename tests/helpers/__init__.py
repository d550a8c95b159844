"""What the tests share (no test module imports another): the repository's folders, the dev
scripts loaded by path, and one module per kind of helper (``from helpers.gltf_validator import
validate_all``). The child-process jobs are in tests/jobs/; pytest.ini's ``pythonpath`` puts tests/
on ``sys.path``, so ``import helpers`` works from every test folder."""

from .child_job import ASSETS, JOBS, ROOT, SHARED, TESTS, devpath, report, run_child, run_job, tool

__all__ = ["ASSETS", "JOBS", "ROOT", "SHARED", "TESTS", "devpath", "report", "run_child", "run_job", "tool"]
