"""The extension as users install it: built and installed with Blender's own extension tooling,
loaded as ``bl_ext.user_default.gltf_sqlerp``, used (import, live preview, export, also with its
channels fitted in worker processes, clips added onto a rig), then disabled and removed with
nothing of it left registered.
Runs in a child process (tests/jobs/extension_job.py): this session has the repository's copy registered
under the same operator ids."""


import pytest
from helpers import JOBS, report, run_child

pytestmark = pytest.mark.blender
JOB = JOBS / "extension_job.py"


def test_the_installed_extension_imports_previews_exports_and_uninstalls_cleanly(tmp_path):
    done = run_child(JOB, tmp_path)
    job = report(done)
    assert job["enabled"] and not job["repository_copy_loaded"]   # the installed copy ran
    assert job["stored"]                                          # import wrote its records
    [world] = job["world"]                                        # verify's world measure, installed
    assert world["samples"] > 90 and world["problems"] == [] and world["rotation_max_deg"] <= 0.01
    assert job["preview_moved"]                                   # the preview posed the arm
    assert job["exported"] == ["FINISHED"] and job["sqlerp_channels"] == 3
    # Fitted in worker processes, which import the installed copy under Blender's name for it.
    # (Not always the same bytes: numpy's BLAS runs one thread there, several here.)
    assert job["in_processes"] == ["FINISHED"] and job["process_pools"] == 1
    assert job["sqlerp_channels_in_processes"] == 3 and "fitting in Blender's process instead" not in done.stderr
    # Add Clips to Rig from the installed copy: a second track on the arm, no object added.
    assert job["onto"] == {"result": ["FINISHED"], "tracks": ["Wave", "Wave.001"], "same_objects": True}
    assert job["leftovers"] == [] and job["removed"] and not job["still_installed"]
