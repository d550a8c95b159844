"""Sampling throughput of the core evaluator, and CUBICSLERP against a mathutils per-sample loop.
Figures of docs/manual/benchmarks.md: the table "Core sampling throughput" (Benchmarks).

    python bench/bench_sampling.py            # re-runs itself under a Python that has bpy
    python bench/bench_sampling.py --core-only # numpy core only, current interpreter
    python bench/bench_sampling.py --strict    # exit 1 when a target is missed

mathutils can only be imported after ``import bpy``. Without bpy in the current interpreter the
script re-executes itself with the project venv's python (``python dev.py test`` creates it), so
that the core and the mathutils loop run in the same process,
on the same numpy that Blender ships. Targets: core CUBICSLERP >= 3 million samples/s and
>= 5x the mathutils loop.
"""

import argparse
import bisect
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
BPY_PYTHONS = (ROOT / ".venv" / "bin" / "python", ROOT / ".venv" / "Scripts" / "python.exe")
KEYS = 1_000
SAMPLES = 1_000_000
LOOP_SAMPLES = 100_000
REPEATS = 5
TARGET_RATE = 3e6
TARGET_RATIO = 5.0


def import_package():
    """The package under its manifest id, as tests/conftest.py imports it (no bpy needed)."""
    devpath.import_package()
    from gltf_sqlerp.core.sampling import interpolation, quaternions
    return interpolation, quaternions


def has_bpy(python):
    if not Path(python).exists():
        return False
    probe = subprocess.run([str(python), "-c", "import bpy, mathutils"], capture_output=True)
    return probe.returncode == 0


def make_track(quat, rng):
    """1,000 keys of a smooth random rotation walk at uneven times, time-aware tangents."""
    steps = rng.normal(0.0, 0.25, (KEYS, 3))                  # half-angle steps, ~29 deg rotations
    keys = np.empty((KEYS, 4))
    keys[0] = [0.0, 0.0, 0.0, 1.0]
    increments = quat.exp(steps)
    for i in range(1, KEYS):                                  # set-up only, not timed
        keys[i] = quat.multiply(keys[i - 1], increments[i])
    keys = quat.make_continuous(keys)
    times = np.cumsum(rng.uniform(0.02, 0.06, KEYS))
    s = quat.control_points(times, keys)
    return times, keys, np.stack([s, keys, s], axis=1).reshape(-1, 4)


def best_time(function, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def core_cases(times, keys, sqlerp_values, rng):
    translations = np.cumsum(rng.normal(size=(KEYS, 3)), axis=0)
    tangents = rng.normal(size=(KEYS, 3))
    spline_vec = np.stack([tangents, translations, tangents], axis=1).reshape(-1, 3)
    rot_tangents = rng.normal(0.0, 0.3, (KEYS, 4))
    spline_rot = np.stack([rot_tangents, keys, rot_tangents], axis=1).reshape(-1, 4)
    return [
        ("STEP (rotation)", "STEP", keys, False),
        ("LINEAR translation", "LINEAR", translations, False),
        ("LINEAR rotation (slerp)", "LINEAR", keys, True),
        ("CUBICSPLINE translation", "CUBICSPLINE", spline_vec, False),
        ("CUBICSPLINE rotation", "CUBICSPLINE", spline_rot, True),
        ("CUBICSLERP", "CUBICSLERP", sqlerp_values, True),
    ]


def mathutils_cubicslerp(times, keys, values, query):
    """The same CUBICSLERP work per sample in Python with mathutils (float32 C math).

    Segment by bisect, t, three Quaternion.slerp calls (Blender's interp_qt_qtqt takes the short
    path by the sign of the dot product, as the spec requires), normalize; clamping and
    exact key times return the key, like the core.
    """
    from mathutils import Quaternion
    wxyz = lambda q: Quaternion((q[3], q[0], q[1], q[2]))  # noqa: E731
    v = [wxyz(q) for q in keys]
    a = [wxyz(q) for q in values[0::3]]
    b = [wxyz(q) for q in values[2::3]]
    t_list = [float(x) for x in times]
    q_list = [float(x) for x in query]
    first, last, n = t_list[0], t_list[-1], len(t_list)

    def run():
        out = []
        append = out.append
        for tc in q_list:
            if tc <= first:
                append(v[0])
                continue
            if tc >= last:
                append(v[-1])
                continue
            k = bisect.bisect_right(t_list, tc, 0, n) - 1
            t0 = t_list[k]
            u = (tc - t0) / (t_list[k + 1] - t0)
            if u == 0.0:
                append(v[k])
                continue
            q = v[k].slerp(v[k + 1], u).slerp(b[k].slerp(a[k + 1], u), 2.0 * u * (1.0 - u))
            q.normalize()
            append(q)
        return out
    return run


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--core-only", action="store_true", help="skip the mathutils loop")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()

    use_mathutils = not args.core_only
    if use_mathutils and "bpy" not in sys.modules:
        try:
            import bpy
        except ImportError:
            for python in BPY_PYTHONS:
                if has_bpy(python):
                    print(f"re-running under {python} (has bpy)", flush=True)
                    script = str(Path(__file__).resolve())
                    os.execv(str(python), [str(python), script, *sys.argv[1:]])
            print("no Python with bpy found: core only")
            use_mathutils = False

    interpolation, quat = import_package()
    rng = np.random.default_rng(2024)
    times, keys, sqlerp_values = make_track(quat, rng)
    span = times[-1] - times[0]
    query = np.linspace(times[0] - 0.02 * span, times[-1] + 0.02 * span, SAMPLES)

    print(f"Python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs; "
          f"{KEYS:,} keys (uneven), {SAMPLES:,} sorted query times (2% clamped at each end), "
          f"best of {REPEATS}")
    print(f"{'interpolation':<28}{'ms':>9}{'samples/s':>16}")
    rates, outputs = {}, {}
    for label, name, values, rotation in core_cases(times, keys, sqlerp_values, rng):
        seconds, out = best_time(
            lambda name=name, values=values, rotation=rotation: interpolation.evaluate(
                name, times, values, query, rotation=rotation), REPEATS)
        rates[label], outputs[label] = SAMPLES / seconds, out
        print(f"{label:<28}{seconds * 1e3:>9.1f}{SAMPLES / seconds:>16,.0f}")

    core_rate = rates["CUBICSLERP"]
    missed = core_rate < TARGET_RATE
    print(f"\ncore CUBICSLERP: {core_rate / 1e6:.2f} M samples/s "
          f"(target >= {TARGET_RATE / 1e6:.0f} M): {'met' if not missed else 'MISSED'}")
    if use_mathutils:
        import bpy
        stride = SAMPLES // LOOP_SAMPLES
        subset = query[::stride]
        run = mathutils_cubicslerp(times, keys, sqlerp_values, subset)
        seconds, result = best_time(run, 3)
        loop_rate = len(subset) / seconds
        got = np.array([(q.x, q.y, q.z, q.w) for q in result])
        diff = quat.angle_between(got, outputs["CUBICSLERP"][::stride])
        ratio = core_rate / loop_rate
        print(f"mathutils {bpy.app.version_string} loop: {len(subset):,} samples in "
              f"{seconds * 1e3:.1f} ms = {loop_rate:,.0f} samples/s (best of 3)")
        print(f"max angle core vs mathutils on those samples: {np.max(diff):.2e} deg "
              f"(mathutils computes in float32)")
        print(f"ratio core/mathutils CUBICSLERP: {ratio:.1f}x (target >= {TARGET_RATIO:.0f}x): "
              f"{'met' if ratio >= TARGET_RATIO else 'MISSED'}")
        missed |= ratio < TARGET_RATIO
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
