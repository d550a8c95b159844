"""The first import of a session, as a user meets it (issue 18, 1): the extension installed from its
zip into a fresh user folder, and a file of the draft's required form (a channel with no core
sampler, EXT_animation_sqlerp required) imported before anything else has run, as .gltf and as
.glb, through the add-on's operator and through File > Import > glTF 2.0 with "Exact Animation"
on. Each case is a fresh process (tests/jobs/first_import_job.py): in a session where any glTF import
ran before, the bundled parser is loaded and the case proves nothing."""

import base64
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import JOBS, run_job

pytestmark = pytest.mark.blender
ROOT = Path(__file__).resolve().parents[2]
JOB = JOBS / "first_import_job.py"
REQUIRED = ROOT / "samples" / "sqlerp_arm_required.gltf"


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The extension's zip, built by Blender's own extension tooling (in a child: the build
    needs no scene, and this session has the repository's copy registered)."""
    folder = tmp_path_factory.mktemp("zip")
    build = ("from bl_pkg import bl_extension_cli; import sys; sys.exit(bl_extension_cli."
             f"cli_extension_handler(['build', '--source-dir', {str(ROOT)!r}, '--output-dir', {str(folder)!r}]))")
    done = subprocess.run([sys.executable, "-c", "import bpy; " + build], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    [zip_path] = folder.glob("*.zip")
    return zip_path


@pytest.fixture(scope="module")
def required_glb(tmp_path_factory):
    """The same file as one .glb: its JSON (without the buffer's data URI) and the buffer as chunks."""
    document = json.loads(REQUIRED.read_text())
    binary = base64.b64decode(document["buffers"][0].pop("uri").split(",", 1)[1])
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    body = (struct.pack("<II", len(text), 0x4E4F534A) + text + struct.pack("<II", len(binary), 0x004E4942)
            + binary)
    path = tmp_path_factory.mktemp("glb") / "sqlerp_arm_required.glb"
    path.write_bytes(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)
    return path


@pytest.mark.parametrize("route", ["operator", "dialog"])
@pytest.mark.parametrize("form", ["gltf", "glb"])
def test_the_required_form_imports_as_the_first_thing_a_fresh_session_does(package, required_glb, route, form):
    path = REQUIRED if form == "gltf" else required_glb
    job = run_job(JOB, package, path, route, timeout=300)
    assert not job["parser_loaded_before"]  # the case a user meets, else it proves nothing
    assert job["result"] == ["FINISHED"], job["reports"]
    assert job["stored"]  # the arm's action plays the CUBICSLERP keys (the import's records)
