"""Kernel choices of the core, each against the alternative it replaced, measured in one run.
Figures of docs/manual/benchmarks.md: the paragraph "Kernel choices" (Benchmarks).

    python dev.py run bench/bench_kernels.py              # every case (the clip record's needs bpy)
    python dev.py run bench/bench_kernels.py --repeats 15 # best of 15 instead of 7
    python dev.py run bench/bench_kernels.py --strict     # exit 1 when a choice loses or a result differs
    python dev.py run bench/bench_kernels.py --only solve --blas-threads default --wall
                                                          # the cases named so, as Blender's numpy runs

Several core modules pick a numpy formulation for speed and say why in a docstring or comment;
the figures live here and on that page. Each case (bench/kernel_cases.py) runs the choice and the
alternative on the same inputs, checks that they give the same result, then times them
interleaved (choice, alternative, choice, ...), best of N, each timing long enough to be read
(calls repeated up to MIN_SECONDS). The ratio is the alternative's time over the choice's: above 1
the choice is faster. Most cases expect the choice to win; a few show where it stops winning, or
another way that ties with it, and say what decides there (a few normal systems: the same keys at
any BLAS thread count; long CUBICSLERP channels: keyframes_batch.JOINED_KEYS). --strict: exit 1
when a case the choice should win goes the other way, or when the two results differ.

Times are this process's CPU time (time.process_time), on one BLAS thread (OPENBLAS_NUM_THREADS
and the like set to 1 before numpy loads, as in the fit workers): on a machine shared with other
jobs, wall-clock time also counts their turns on the CPU (--wall). With several BLAS threads
(--blas-threads N, or "default": as the environment says, as Blender's numpy runs) OpenBLAS hands
small LAPACK calls to its threads, which the wall clock shows; their spinning also counts as CPU
time.

The clip record's case stores a 1,000-key CUBICSLERP sampler as Blender keeps it, an ID property
of an Action, once from float64 buffers (SamplerRecord.to_record) and once from lists
(.tolist()); the matrix's reads a mathutils Matrix as the import does. Both need bpy (the
project venv's python: ``python dev.py run`` uses it) and are skipped without.
"""

import argparse
import gc
import os
import platform
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

if TYPE_CHECKING:  # loaded in main(), once the BLAS threads are set: for the annotations only
    import numpy as np
    from kernel_cases import Case

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 7
MIN_SECONDS = 0.02  # one timing of both sides: calls are repeated (x10) until they take this long
LABEL_WIDTH = 100
BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def timed(function, number: int, clock=time.process_time) -> float:
    """Seconds per call of ``function`` over ``number`` calls, the garbage collector off (as timeit)."""
    gc.disable()
    try:
        start = clock()
        for _ in range(number):
            function()
        return (clock() - start) / number
    finally:
        gc.enable()


def measure(case: "Case", repeats: int, clock=time.process_time) -> tuple[float, float]:
    """Best seconds per call of the choice and of the alternative, timed in turn."""
    number = 1
    while number < 100_000 and (timed(case.choice, number, clock)
                                + timed(case.alternative, number, clock)) * number < MIN_SECONDS:
        number *= 10
    best_choice = best_alternative = float("inf")
    for _ in range(min(repeats, case.repeats or repeats)):
        best_choice = min(best_choice, timed(case.choice, number, clock))
        best_alternative = min(best_alternative, timed(case.alternative, number, clock))
    return best_choice, best_alternative


def duration(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def verdict(case: "Case", ratio: float) -> tuple[str, bool]:
    """(what the row says, whether it went as the case expects)."""
    if case.expect == "choice":
        return ("choice faster", True) if ratio >= 1.0 else ("MISSED: the alternative is faster", False)
    return case.note, True


def clip_record_case(cases: ModuleType, bpy: ModuleType, rng: "np.random.Generator") -> "Case":
    """A 1,000-key CUBICSLERP sampler stored as an Action's ID property: to_record's float64
    buffers against lists of floats. Both become Blender double arrays (checked: typecode 'd',
    the same values)."""
    import numpy as np
    from gltf_sqlerp.core.blender_model import KEY, SamplerRecord
    from gltf_sqlerp.core.constants import CUBICSLERP
    times = np.cumsum(rng.uniform(0.02, 0.06, 1_000))
    record = SamplerRecord(CUBICSLERP, times, cases.cubicslerp_rows(times, cases.rotations(rng, 1_000, 6.0)))
    holder = bpy.data.actions.new("bench_kernels")

    def as_lists():
        return {"interpolation": record.interpolation, "pointer": record.pointer, "times": record.times.tolist(),
                "width": record.width, "values": record.values.ravel().tolist()}

    def store(stored):
        holder[KEY] = stored

    def read_back(stored):
        store(stored)
        kept = holder[KEY]
        return [(kept[name].typecode, kept[name].to_list()) for name in ("times", "values")]

    def same(_choice, _alternative) -> bool:
        kept = read_back(record.to_record())
        return kept == read_back(as_lists()) and all(typecode == "d" for typecode, _ in kept)
    return cases.Case("SamplerRecord.to_record, float64 buffers | .tolist(), stored as an ID property "
                      "(1,000-key CUBICSLERP sampler)", "blender_model/clip_record.py",
                      lambda: store(record.to_record()), lambda: store(as_lists()), same)


def matrix_case(cases: ModuleType, rng: "np.random.Generator") -> "Case":
    """A mathutils Matrix as numpy, as the import reads each channel's parent matrices
    (bundled_gltf/imported.py): row by row against np.array(matrix), which reads each element
    through Python's sequence protocol."""
    import numpy as np
    from mathutils import Matrix
    matrix: Any = Matrix(rng.normal(size=(4, 4)).tolist())  # as imported.py gets it: untyped
    return cases.Case("a mathutils Matrix read row by row | np.array(matrix) (4x4)", "bundled_gltf/imported.py",
                      lambda: np.array([tuple(row) for row in matrix]), lambda: np.array(matrix), cases.equal)


def with_bpy(cases: ModuleType, rng: "np.random.Generator") -> list["Case"]:
    """The cases that need Blender, or none (said) where this Python has no bpy."""
    try:
        bpy = devpath.quiet(lambda: __import__("bpy"))
    except ImportError:
        print("no bpy in this Python: the clip record's and the matrix's cases are skipped "
              "(python dev.py run ... has it)")
        return []
    return [clip_record_case(cases, bpy, rng), matrix_case(cases, rng)]


def where(module: str) -> str:
    """The repository path of a case's module: the core's are named from core/."""
    return module if module.startswith("bundled_gltf/") else f"core/{module}"


def cpu_name() -> str:
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor() or platform.machine()
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
                platform.machine())


def blas_threads(wanted: str) -> str:
    """Set the BLAS libraries' thread count before numpy loads ("default": leave it); say which."""
    if wanted != "default":
        for name in BLAS_VARIABLES:
            os.environ[name] = wanted
        return wanted
    named = [f"{name}={os.environ[name]}" for name in BLAS_VARIABLES if name in os.environ]
    return f"default ({', '.join(named) or 'none set'})"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--repeats", type=int, default=REPEATS, help=f"best of this many (default {REPEATS})")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a choice loses or a result differs")
    parser.add_argument("--wall", action="store_true", help="time the wall clock, not this process's CPU time")
    parser.add_argument("--blas-threads", default="1", help='BLAS threads: a number, or "default" (default 1)')
    parser.add_argument("--only", metavar="TEXT", help="only the cases whose line holds TEXT")
    args = parser.parse_args()
    threads = blas_threads(args.blas_threads)
    import numpy as np
    devpath.import_package()
    cases = devpath.load_module("gltf_sqlerp_kernel_cases", ROOT / "bench" / "kernel_cases.py")
    rng = np.random.default_rng(39)
    chosen = [case for case in cases.numpy_cases(rng) + with_bpy(cases, rng)
              if not args.only or args.only in case.label]
    print(f"{time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, numpy {np.__version__}, "
          f"{cpu_name()}, {os.cpu_count()} CPUs, BLAS threads {threads}; {'wall-clock' if args.wall else 'CPU'} "
          f"time, best of {args.repeats} (at most 3 for the slowest cases), choice and alternative in turn")
    print(f"{'choice | alternative':<{LABEL_WIDTH}}{'choice':>11}{'alternative':>13}{'ratio':>8}  verdict")
    failed = 0
    for case in chosen:
        same = case.same(case.choice(), case.alternative())
        choice, alternative = measure(case, args.repeats, time.perf_counter if args.wall else time.process_time)
        line, expected = verdict(case, alternative / choice)
        print(f"{case.label:<{LABEL_WIDTH}}{duration(choice):>11}{duration(alternative):>13}"
              f"{alternative / choice:>7.2f}x  {line}{'' if same else '; RESULTS DIFFER'}\n"
              f"{'':<4}{where(case.module)}", flush=True)
        failed += not (same and expected)
    print(f"\n{len(chosen) - failed} of {len(chosen)} cases as expected")
    return 1 if args.strict and failed else 0


if __name__ == "__main__":
    sys.exit(main())
