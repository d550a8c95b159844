"""``convert`` on one machine (``--jobs 1/2``) against a Dask cluster (``--dask local:1/2``) in the
same run, on the shared assets (every .gltf/.glb of ../shared/assets/khronos, read in place):
files per second, and the time per task the cluster adds. Figures of docs/manual/command-line.md
("On a Dask cluster").

    python dev.py run bench/bench_pipeline_dask.py [--repeat N]

Each configuration converts the whole folder into a fresh temporary folder (nothing up to date),
``--tolerance 0.1``, best of N runs (default 2); the Dask runs include starting the LocalCluster,
as a user's run does. The per-task overhead is (Dask with 1 worker - jobs 1) / files.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT.parent / "shared" / "assets" / "khronos"
CONFIGURATIONS = (("--jobs 1", ["--jobs", "1"]), ("--jobs 2", ["--jobs", "2"]),
                  ("--dask local:1", ["--dask", "local:1"]), ("--dask local:2", ["--dask", "local:2"]))


def timed_run(options: list[str]) -> tuple[float, int]:
    """(seconds, files) of one convert of the assets into a fresh folder."""
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        result = subprocess.run([sys.executable, str(ROOT / "pipeline_run.py"), "convert", str(ASSETS),
                                 str(Path(folder) / "out"), "--tolerance", "0.1", "--quiet", *options],
                                capture_output=True, text=True, timeout=1800)
        seconds = time.perf_counter() - started
    report = json.loads(result.stdout)
    if result.returncode not in (0, 1):  # 1: a file failed, which the figures count as done
        sys.exit(f"{options}: exit {result.returncode}: {result.stderr[-500:]}")
    return seconds, len(report["files"])


def main() -> None:
    parser = argparse.ArgumentParser(description="convert: --jobs against --dask, files per second")
    parser.add_argument("--repeat", type=int, default=2, help="runs per configuration (best kept)")
    args = parser.parse_args()
    best = {}
    for name, options in CONFIGURATIONS:
        runs = [timed_run(options) for _ in range(args.repeat)]
        best[name] = min(runs)
    files = best["--jobs 1"][1]
    print(f"{files} files from {ASSETS} (best of {args.repeat})\n")
    print("| run | seconds | files/s |\n|---|---|---|")
    for name, (seconds, _) in best.items():
        print(f"| `{name}` | {seconds:.2f} | {files / seconds:.1f} |")
    overhead = (best["--dask local:1"][0] - best["--jobs 1"][0]) / files
    print(f"\nper-task overhead of the cluster (local:1 against --jobs 1): {overhead * 1000:.0f} ms")


if __name__ == "__main__":
    main()
