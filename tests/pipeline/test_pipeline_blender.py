"""The command line's Blender commands (verify, export) through pipeline_run.py, each in a child
process of this interpreter (which has the bpy module), as ``python pipeline_run.py ...`` runs
them. The launcher ends with os._exit: the bpy module of Blender 4.2 crashes at exit after an
export (see tests/jobs/export_job.py)."""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.terminal import bar_states, on_a_terminal
from helpers.blend_scripts import MAKE_BLEND, MAKE_RIG, READ_RIG
from helpers.import_checks import CESIUM_MAN, edited_copy, misfit
from helpers import run_job

from gltf_sqlerp import core

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "pipeline_run.py"
SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"

def run(*args):
    result = subprocess.run([sys.executable, str(LAUNCHER), *map(str, args)], capture_output=True,
                            text=True, timeout=600)
    try:
        return result, json.loads(result.stdout)
    except ValueError:
        pytest.fail(f"no JSON report (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")


def test_verify_the_sample_within_the_tolerance():
    result, report = run("verify", SAMPLE)
    assert result.returncode == 0, result.stderr
    assert report["ok"] and report["status"] == "ok"
    assert [c["name"] for c in report["clips"]] == ["Wave"]
    assert report["clips"][0]["channels"] == 4
    assert 0.0 < report["rotation_max_deg"] <= 0.01          # per channel, Blender's curves
    [world] = report["world"]                                 # operators/preview/world_fidelity.py
    assert world["problems"] == [] and world["samples"] > 90
    assert 0.0 < report["world_rotation_max_deg"] == world["rotation_max_deg"] <= 0.01
    assert world["vertex_max"] < 1e-4


def test_verify_gives_each_clip_one_name(shared_assets):
    """CesiumMan's animation has no name: Blender's importer calls it "Anim_0" and so does every
    part of the report (the world measure used the core's "Animation_0")."""
    result, report = run("verify", shared_assets / "khronos" / "CesiumMan" / "glTF" / "CesiumMan.gltf")
    assert result.returncode == 0, result.stderr
    assert [c["name"] for c in report["clips"]] == ["Anim_0"]
    assert [w["name"] for w in report["world"]] == ["Anim_0"]


def test_verify_measures_every_mesh_of_recursive_skeletons(shared_assets):
    """84 unnamed skinned meshes, each its own object ("skinned mesh", "skinned mesh.001", ...): the
    world measure matches every one (it compared all with the first before), and verify passes only
    when nothing was left unmeasured."""
    path = shared_assets / "khronos" / "RecursiveSkeletons" / "glTF-Binary" / "RecursiveSkeletons.glb"
    result, report = run("verify", path)
    assert result.returncode == 0, result.stderr
    assert report["ok"] and report["status"] == "ok"
    assert all(w["problems"] == [] and w["vertex_max"] < 1e-4 for w in report["world"])


def test_verify_an_invalid_file_fails_with_its_code_and_pointer(tmp_path):
    gltf = json.loads(SAMPLE.read_text())
    gltf["animations"][0]["channels"][0]["sampler"] = 99
    broken = tmp_path / "broken.gltf"
    broken.write_text(json.dumps(gltf))
    (tmp_path / "sqlerp_arm.bin").write_bytes((SAMPLE.parent / "sqlerp_arm.bin").read_bytes())
    result, report = run("verify", broken)
    assert result.returncode == 1
    assert report["error"]["code"] == "UNRESOLVED_REFERENCE"
    assert report["error"]["pointer"] == "/animations/0/channels/0/sampler"


def test_export_a_blend_action_with_cubicslerp(tmp_path):
    blend = tmp_path / "spin.blend"
    script = tmp_path / "make_blend.py"
    script.write_text(MAKE_BLEND)
    made = subprocess.run([sys.executable, str(script), str(blend)], capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0 and blend.is_file(), made.stderr
    output = tmp_path / "out" / "spin.gltf"
    result, report = run("export", blend, "--output", output, "--action", "Spin",
                         "--fallback", "CUBICSPLINE")
    assert result.returncode == 0, result.stderr
    assert report["ok"] and report["assigned_to"] == ["Spinner"]
    assert report["cubicslerp_channels"] == 1
    document = core.load(output)
    rotation = [c for a in document.animations for c in a.channels if c.path == "rotation"]
    assert [c.sampler.interpolation for c in rotation] == ["CUBICSLERP"]
    assert rotation[0].fallback is not None and rotation[0].fallback.interpolation == "CUBICSPLINE"
    # World space by default: measured and reported; --per-channel holds the tolerance per channel.
    assert report["world_space"] and report["world_max_deg"] <= 0.01
    assert f"world max {report['world_max_deg']:.4f} deg" in report["summary"]
    flat, report = run("export", blend, "--output", tmp_path / "flat.glb", "--action", "Spin",
                       "--per-channel")
    assert flat.returncode == 0, flat.stderr
    assert not report["world_space"] and report["world_max_deg"] is None
    assert "per channel" in report["summary"] and (tmp_path / "flat.glb").is_file()

    missing, report = run("export", blend, "--output", tmp_path / "x.glb", "--action", "Nope")
    assert missing.returncode == 2 and "Nope" in report["error"]
    assert not (tmp_path / "x.glb").exists()


def test_an_export_on_a_terminal_draws_its_fits_on_the_bar(tmp_path):
    """Between "prepared" and "exported" the bar moves while the rotations are fitted (the fits'
    progress reaches the command line, not only Blender's own indicator)."""
    blend = tmp_path / "spin.blend"
    script = tmp_path / "make_blend.py"
    script.write_text(MAKE_BLEND)
    assert subprocess.run([sys.executable, str(script), str(blend)], timeout=300).returncode == 0
    code, shown = on_a_terminal(LAUNCHER, "export", blend, "--output", tmp_path / "spin.glb",
                                "--action", "Spin")
    assert code == 0, shown[-3000:]
    fills = bar_states(shown)
    assert shown.index("prepared: spin.glb") < shown.index("working: spin.glb") < shown.index(
        "exported: spin.glb")
    assert fills[0] < fills[-1] and max(fills) == fills[-1], fills


def test_the_built_extension_ships_the_launcher_and_it_runs_from_there(tmp_path, shared_assets):
    """What users install (the zip Blender's tooling builds) has the pipeline package and pipeline_run.py,
    and the launcher works from the extracted extension folder (numpy only)."""
    import zipfile
    import bpy  # noqa: F401 (bl_pkg is importable only inside Blender)
    # Blender's add-ons (scripts/addons_core) are on the path at run time only, by name here.
    bl_extension_cli = importlib.import_module("bl_pkg.bl_extension_cli")
    (tmp_path / "dist").mkdir()
    assert bl_extension_cli.cli_extension_handler(
        ["build", "--source-dir", str(ROOT), "--output-dir", str(tmp_path / "dist")]) == 0
    [package] = (tmp_path / "dist").glob("*.zip")
    installed = tmp_path / "extensions" / "gltf_sqlerp"
    with zipfile.ZipFile(package) as archive:
        assert {"pipeline/__init__.py", "pipeline/convert.py", "pipeline_run.py"} <= set(archive.namelist())
        archive.extractall(installed)
    source = shared_assets / "khronos" / "CesiumMan" / "glTF-Binary" / "CesiumMan.glb"
    result = subprocess.run([sys.executable, str(installed / "pipeline_run.py"), "--",
                             "convert-file", str(source), str(tmp_path / "walk.glb"),
                             "--tolerance", "0.1"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["files"][0]["status"] == "converted"


# --- add-clips ------------------------------------------------------------------------------------


def test_add_clips_adds_a_folder_to_the_rig_and_saves_it(tmp_path, shared_assets):
    """Two clips and a file whose hierarchy does not fit: the two are added, the third is
    reported, the .blend is saved with the two, and its export writes every rotation of both
    within the default tolerance."""
    folder = tmp_path / "clips"
    folder.mkdir()
    edited_copy(folder, lambda data: data["animations"][0].update(name="Idle"), "idle.gltf")
    edited_copy(folder, lambda data: data["animations"][0].update(name="Walk"), "walk.gltf")
    edited_copy(folder, misfit, "misfit.gltf")
    blend, saved = tmp_path / "rig.blend", tmp_path / "with_clips.blend"
    subprocess.run([sys.executable, "-c", MAKE_RIG, str(CESIUM_MAN), str(blend)], check=True, timeout=300,
                   capture_output=True)
    result, report = run("add-clips", blend, folder, "--output", saved)
    assert result.returncode == 1, result.stderr
    assert report["rig"] == "Armature" and report["added"] == 2 and report["failed"] == 1
    statuses = {Path(f["file"]).name: f["status"] for f in report["files"]}
    assert statuses == {"idle.gltf": "added", "walk.gltf": "added", "misfit.gltf": "failed"}
    [failure] = [f for f in report["files"] if f["status"] == "failed"]
    assert "does not fit the rig: bone 'leg_joint_R_2'" in failure["error"]["message"]
    rig, content = (_read_rig(path) for path in (blend, saved))
    assert content == {"tracks": ["Idle", "Walk"], "objects": rig["objects"], "records": ["Idle", "Walk"]}
    result, report = run("export", saved, "--output", tmp_path / "out.glb")
    assert result.returncode == 0, result.stderr
    exported = core.load(tmp_path / "out.glb")
    assert sorted(a.name for a in exported.animations) == ["Idle", "Walk"]
    rotations = [c for c in report["channels"] if not c["skipped"]]
    assert sorted(c["animation"] for c in rotations) == ["Idle"] * 19 + ["Walk"] * 19
    assert report["world_max_deg"] <= 0.01


def _read_rig(blend):
    return run_job("-c", READ_RIG, blend, timeout=300)


def test_add_clips_without_a_rig_is_a_usage_error(tmp_path):
    blend = tmp_path / "empty.blend"
    subprocess.run([sys.executable, "-c", "import bpy, os; bpy.ops.wm.read_homefile(use_empty=True); "
                    f"bpy.ops.wm.save_as_mainfile(filepath={str(blend)!r}); os._exit(0)"],
                   check=True, timeout=300, capture_output=True)
    result, report = run("add-clips", blend, ROOT / "samples")
    assert result.returncode == 2
    assert report["error"] == "the scene has 0 armatures: name the rig with --rig"
