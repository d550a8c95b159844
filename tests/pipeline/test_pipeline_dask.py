"""``convert --dask`` on a real Dask cluster: a scheduler and two workers on 127.0.0.1 (tests/
helpers/dask_cluster.py), each run a child process as users run it. The outputs are compared byte for byte
with a one-machine run (``--jobs``), the journal line by line; a worker is killed with SIGKILL in
the middle of a run. The main venv pins dask (requirements-dev.txt), the Blender venvs do not: these
tests run with the main venv's Python only."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.dask_cluster import Cluster
from helpers.blend_scripts import MAKE_BLEND

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "pipeline_run.py"
CESIUM = Path("khronos/CesiumMan")
TOLERANCE = "0.1"
HOSTILE = ("glb_version_1", "count_linear_rotation")  # two cases of tools/hostile_corpus.py
RUN_SECONDS = 300


@pytest.fixture
def cluster(tmp_path):
    started = Cluster(tmp_path / "cluster")
    try:
        yield started
    finally:
        started.stop()


def run(*args, timeout=RUN_SECONDS):
    return subprocess.run([sys.executable, str(LAUNCHER), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def report_of(result):
    try:
        return json.loads(result.stdout)
    except ValueError:
        pytest.fail(f"no JSON report (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")


def walks(folder, shared_assets, count):
    """``count`` copies of CesiumMan's .glb (the same bytes: every output must be the same too)."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        shutil.copy(shared_assets / CESIUM / "glTF-Binary" / "CesiumMan.glb", folder / f"walk_{n:02}.glb")
    return folder


def outputs(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".gltf_sqlerp_convert.jsonl"}


def journal(folder):
    lines = (folder / ".gltf_sqlerp_convert.jsonl").read_text().splitlines()
    return [json.loads(line)["file"] for line in lines]


def test_a_cluster_converts_as_one_machine_does(cluster, tmp_path, shared_assets):
    inputs = walks(tmp_path / "in", shared_assets, 2)
    shutil.copytree(shared_assets / CESIUM / "glTF", inputs / "sub")  # a .gltf with its .bin and image
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "hostile_corpus.py"), str(tmp_path / "hc")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    expected = json.loads((tmp_path / "hc" / "expected.json").read_text())
    for case in HOSTILE:
        shutil.copytree(tmp_path / "hc" / case, inputs / case)

    local = run("convert", inputs, tmp_path / "local", "--tolerance", TOLERANCE, "--jobs", "2")
    on_dask = run("convert", inputs, tmp_path / "dask", "--tolerance", TOLERANCE, "--dask", cluster.address)
    assert (local.returncode, on_dask.returncode) == (1, 1), on_dask.stderr  # the hostile files
    report = report_of(on_dask)
    assert report["dask"] == {"scheduler": cluster.address, "local_cluster": False, "workers": 2}
    assert report["retried"] == []
    assert report["counts"] == report_of(local)["counts"] == {
        "converted": 3, "unchanged": 0, "skipped": 0, "failed": 2}
    assert outputs(tmp_path / "dask") == outputs(tmp_path / "local")
    assert len(outputs(tmp_path / "dask")) == 5  # 3 files, the .gltf's new .bin and its image
    assert sorted(journal(tmp_path / "dask")) == sorted(journal(tmp_path / "local"))
    for case in HOSTILE:  # a hostile file fails its own task only, with its code and pointer
        [entry] = [e for e in report["files"] if f"/{case}/" in e["input"]]
        found = [(f["code"], f["pointer"]) for f in entry["error"]["findings"]]
        assert (expected[case]["code"], expected[case]["pointer"]) in found

    again = run("convert", inputs, tmp_path / "dask", "--tolerance", TOLERANCE, "--dask", cluster.address)
    assert report_of(again)["counts"] == {"converted": 0, "unchanged": 0, "skipped": 3, "failed": 2}


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def run_and(action, inputs, output, address):
    """(exit code, report, stderr) of ``convert --dask``, ``action(child)`` done once its first
    file is in the journal."""
    child = subprocess.Popen([sys.executable, str(LAUNCHER), "convert", str(inputs), str(output),
                              "--tolerance", TOLERANCE, "--dask", address],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: (output / ".gltf_sqlerp_convert.jsonl").is_file() and journal(output),
                 RUN_SECONDS, "the first file")
        action(child)
        stdout, stderr = child.communicate(timeout=RUN_SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
    return child.returncode, json.loads(stdout), stderr


def test_a_worker_killed_mid_run_loses_nothing(cluster, tmp_path, shared_assets):
    inputs = walks(tmp_path / "in", shared_assets, 12)
    reference = run("convert-file", inputs / "walk_00.glb", tmp_path / "reference.glb", "--tolerance", TOLERANCE)
    assert reference.returncode == 0, reference.stderr
    output = tmp_path / "out"

    def kill_a_worker(child):
        assert len(journal(output)) <= 6, "the run was nearly over before the kill"
        cluster.kill(cluster.workers[1])  # SIGKILL: it cannot tell anyone
    code, report, stderr = run_and(kill_a_worker, inputs, output, cluster.address)
    assert code == 0, stderr
    assert report["counts"] == {"converted": 12, "unchanged": 0, "skipped": 0, "failed": 0}
    # Dask ran the lost worker's tasks again elsewhere, and the report names them.
    assert report["retried"], report["retried"]
    assert all(r["lost_workers"] >= 1 for r in report["retried"])
    assert {r["file"] for r in report["retried"]} <= {f"walk_{n:02}.glb" for n in range(12)}
    # Converted exactly once: one journal line per file, every output the same as a clean run's,
    # no temporary file left by the killed worker's child.
    assert sorted(journal(output)) == [f"walk_{n:02}.glb" for n in range(12)]
    same = (tmp_path / "reference.glb").read_bytes()
    assert outputs(output) == {f"walk_{n:02}.glb": same for n in range(12)}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_scheduler_is_a_one_line_usage_error(tmp_path, shared_assets):
    inputs = walks(tmp_path / "in", shared_assets, 1)
    started = time.monotonic()
    result = run("convert", inputs, tmp_path / "out", "--dask", f"tcp://127.0.0.1:{free_port()}", timeout=60)
    assert result.returncode == 2
    assert time.monotonic() - started < 40
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("cannot reach the Dask scheduler at tcp://127.0.0.1:"), line
    assert not (tmp_path / "out").exists()  # nothing written
    assert report_of(result)["exit_code"] == 2


def test_ctrl_c_cancels_the_tasks_on_the_cluster(cluster, tmp_path, shared_assets):
    inputs = walks(tmp_path / "in", shared_assets, 12)
    output = tmp_path / "out"
    code, report, stderr = run_and(lambda child: child.send_signal(signal.SIGINT), inputs, output,
                                   cluster.address)
    assert code == 130, stderr
    assert report["interrupted"] and not report["ok"]
    time.sleep(3)  # the tasks that were running end (a task's child is not stopped half-way)
    written = len(list(output.glob("*.glb")))
    time.sleep(3)  # a task still queued on the cluster would start and write meanwhile
    assert written == len(list(output.glob("*.glb"))) < 12
    assert not [p.name for p in output.rglob("*") if p.name.endswith(".tmp")]
    from distributed import Client
    with Client(cluster.address, timeout=30) as client:  # the scheduler holds none of our tasks
        assert client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.tasks)) == []


def test_dask_is_needed_only_with_dask(tmp_path, shared_assets):
    """Without the distributed package (a Python that cannot import it), --jobs runs and --dask is
    a one-line usage error."""
    inputs = walks(tmp_path / "in", shared_assets, 1)
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "distributed.py").write_text("raise ImportError('not installed here')\n")
    environment = {**os.environ, "PYTHONPATH": str(blocked)}
    args = [sys.executable, str(LAUNCHER), "convert", str(inputs)]
    plain = subprocess.run([*args, tmp_path / "a", "--jobs", "1"], capture_output=True, text=True,
                           timeout=RUN_SECONDS, env=environment)
    assert plain.returncode == 0, plain.stderr
    without = subprocess.run([*args, tmp_path / "b", "--dask", "local:1"], capture_output=True,
                             text=True, timeout=RUN_SECONDS, env=environment)
    assert without.returncode == 2
    assert without.stderr.strip().splitlines() == [
        "--dask needs the dask and distributed packages: pip install distributed==2026.8.0"]


def test_export_blends_on_the_cluster_as_on_one_machine(cluster, tmp_path):
    """Each worker runs each export in its own process with the bpy module (the workers here are
    this venv's Python, which has it)."""
    folder = tmp_path / "blends"
    (folder / "sub").mkdir(parents=True)
    for path in (folder / "one.blend", folder / "sub" / "two.blend"):
        made = subprocess.run([sys.executable, "-c", MAKE_BLEND, str(path)], capture_output=True,
                              text=True, timeout=RUN_SECONDS)
        assert made.returncode == 0, made.stderr
    local = run("export-blends", folder, tmp_path / "local", "--per-action", "--jobs", "2")
    on_dask = run("export-blends", folder, tmp_path / "dask", "--per-action", "--dask", cluster.address)
    assert (local.returncode, on_dask.returncode) == (0, 0), on_dask.stderr
    report = report_of(on_dask)
    assert report["exported"] == 2 and report["retried"] == []
    assert sorted(outputs(tmp_path / "dask")) == ["one/Spin.glb", "sub/two/Spin.glb"]
    assert outputs(tmp_path / "dask") == outputs(tmp_path / "local")
    assert all(e["world_max_deg"] <= 0.01 for e in report["files"])  # the export's own check
