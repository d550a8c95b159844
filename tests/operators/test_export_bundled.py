"""The export beside Blender's bundled glTF exporter, and when it fails, in the real Blender
(tests/jobs/export_job.py, a child process: the bpy module of Blender 4.2 crashes at exit once its
glTF exporter has run): File > Export > glTF 2.0 follows the panel's settings while the add-on is
enabled; version drift and meshopt compression turn the extension off with a clear message and
never break the bundled export; a failed export leaves the existing file untouched. Round trips:
test_export_roundtrip.py.
"""


import pytest

from helpers import JOBS, gltf_validator, run_job
from gltf_sqlerp.core import load

pytestmark = pytest.mark.blender

JOB = JOBS / "export_job.py"


def test_a_failed_export_leaves_the_existing_file_untouched(tmp_path):
    job = run_job(JOB, tmp_path, "FAIL")
    assert "injected fit failure" in job["outcome"] and "nothing was written" in job["outcome"]
    assert job["unchanged"] and job["folder"] == ["existing.glb"]  # no staging folder left either


def test_the_bundled_export_dialog_follows_the_panel_settings(tmp_path):
    """File > Export > glTF 2.0 while the add-on is enabled: the panel's settings (here the
    CUBICSPLINE fallback) apply; switched off, the bundled exporter's file is left as it makes it."""
    job = run_job(JOB, tmp_path, "DIALOG")
    assert len(job["on"]) == 6 and all(not c["skipped"] for c in job["on"])
    assert job["off"] is None
    on, off = load(str(tmp_path / "on.glb")), load(str(tmp_path / "off.glb"))
    sqlerp = [c for a in on.animations for c in a.channels if c.uses_extension]
    assert len(sqlerp) == 6 and {c.fallback and c.fallback.interpolation for c in sqlerp} == {"CUBICSPLINE"}
    assert not [c for a in off.animations for c in a.channels if c.uses_extension]
    report = gltf_validator.validate(tmp_path / "on.glb")
    assert gltf_validator.errors(report) == []


def test_version_drift_is_a_clear_message_and_never_breaks_the_bundled_export(tmp_path):
    """When the bundled exporter's internals we build on are missing (simulated: our module that
    builds them cannot be imported), our operator fails with a message naming the Blender version
    and writes nothing, and File > Export > glTF 2.0 still writes its file."""
    job = run_job(JOB, tmp_path, "DRIFT")
    assert "Blender " in job["ours"] and "CUBICSLERP" in job["ours"] and "nothing was written" in job["ours"]
    assert job["bundled"] == ["FINISHED"] and job["folder"] == ["bundled.glb"]
    assert job["hook_error"].startswith("Blender ")
    assert not [c for a in load(str(tmp_path / "bundled.glb")).animations for c in a.channels
                if c.uses_extension]


def test_meshopt_compression_turns_the_extension_off_with_a_clear_message():
    """Blender 5.2+'s bundled dialog offers meshopt compression; its samplers then hold float bytes
    under 16-bit accessors and the file requires an extension our reader cannot read. The hook
    must say so instead of failing on the accessors (called as the bundled exporter calls it)."""
    from gltf_sqlerp.bundled_gltf import export_hooks, handlers
    from gltf_sqlerp.operators.exporting import session as export_session
    from gltf_sqlerp.operators.exporting.outcome import ExportOptions
    # As operators.register() does; the handlers of an add-on enabled by other tests stay.
    with handlers.REGISTRY.using(exporting=export_session):
        with export_session.Override(ExportOptions(0.01, "LINEAR", 0.1, "SHORT")):
            hook = export_hooks.glTF2ExportUserExtension()
            hook.gather_gltf_hook(0, [], [], {"gltf_meshopt_compression": True})
    outcome = export_session.last_outcome
    assert outcome is not None and "meshopt" in outcome.error
