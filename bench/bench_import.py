"""Import time and fidelity: Blender's bundled glTF importer alone against ``import_scene.gltf_sqlerp``.
Figures of docs/manual/benchmarks.md: the table "Import: fidelity and time" (Benchmarks).

    python bench/bench_import.py            # re-runs itself under the project venv if bpy is missing
    python bench/bench_import.py --strict   # exit 1 when a target is missed
    python bench/bench_import.py --repeats 3 --frame-step 2.5   # a quicker, rougher run

Cases: (a) the synthetic rig of bench/synthetic_rig.py (100 bones x 1,000 LINEAR rotation keys),
(b) every animated Khronos model in ../shared/assets/khronos (its .glb where there is one),
(c) the same rig with CUBICSLERP channels and a LINEAR fallback, (d) our sample
samples/sqlerp_arm.gltf. Time: the operator call alone, into an empty scene, best of N after one
warm-up each, the two importers interleaved. Deviation from the spec (tools/fidelity.py): the
largest world-rotation error of any object or bone (degrees) and the largest vertex error (fraction
of the mesh's bounding-box diagonal) over every frame and half frame of the first clip, at the time
the scene's rate gives (fps / fps_base). Targets: ours <= 1.5x the bundled time on (a) and (b),
<= 3x on (c) (CUBICSLERP, 1,000 keys a channel); our deviation within the import tolerance (0.01
degrees, 1e-4 of the diagonal) everywhere.
"""

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GLTF_SQLERP_SHARED", ROOT.parent / "shared"))
TIME_RATIO_TARGET = 1.5
SQLERP_RATIO_TARGET = 3.0  # CUBICSLERP files of 1,000 keys a channel or more
ROTATION_TOLERANCE_DEG = 0.01
VERTEX_TOLERANCE = 1e-4


def best_import_times(fidelity, path, repeats):
    """(bundled seconds, ours seconds): best of ``repeats`` after one warm-up, interleaved."""
    best = {False: float("inf"), True: float("inf")}
    for round_ in range(repeats + 1):
        for exact in (False, True):
            fidelity.reset_scene()
            start = time.perf_counter()
            result = devpath.quiet(lambda exact=exact: fidelity.run_import(path, exact=exact))
            elapsed = time.perf_counter() - start
            if result != {'FINISHED'}:
                raise RuntimeError(f"import of {path} ({'ours' if exact else 'bundled'}) returned {result}")
            if round_:  # round 0 is the warm-up
                best[exact] = min(best[exact], elapsed)
    return best[False], best[True]


def khronos_models(core):
    """Every animated Khronos model of the shared assets: its .glb where there is one, else its .gltf."""
    models = []
    for folder in sorted(p for p in (SHARED / "assets" / "khronos").iterdir() if p.is_dir()):
        files = sorted(folder.glob("glTF-Binary/*.glb")) or sorted(folder.glob("glTF/*.gltf"))
        if files and core.load(files[0]).animations:
            models.append(files[0])
    return models


def deviation(fidelity, document, path, exact, frame_step):
    devpath.quiet(lambda: fidelity.import_gltf(path, exact=exact))
    scene = fidelity.bpy.context.scene
    frames = fidelity.sample_frames(document.animations[0].duration, fidelity.spec_time(scene), frame_step)
    return fidelity.measure(document, 0, frames=frames)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--repeats", type=int, default=7, help="timed imports per importer (default 7)")
    parser.add_argument("--frame-step", type=float, default=0.5,
                        help="frames between deviation samples (default 0.5: every frame and half frame)")
    args = parser.parse_args()
    devpath.ensure_bpy(__file__)
    started = time.perf_counter()
    fidelity = devpath.load_module("gltf_sqlerp_fidelity", ROOT / "tools" / "fidelity.py")
    rig = devpath.load_module("gltf_sqlerp_synthetic_rig", ROOT / "bench" / "synthetic_rig.py")
    from gltf_sqlerp import core
    bpy = fidelity.bpy
    folder = Path(tempfile.mkdtemp(prefix="gltf_sqlerp_bench_"))
    cases = [("(a) rig 100 bones x 1,000 LINEAR keys", rig.write_rig(folder / "rig_linear.glb"), TIME_RATIO_TARGET)]
    cases += [(f"(b) {path.name}", path, TIME_RATIO_TARGET) for path in khronos_models(core)]
    cases += [("(c) rig, CUBICSLERP + LINEAR fallback",
               rig.write_rig(folder / "rig_sqlerp.glb", interpolation="CUBICSLERP"), SQLERP_RATIO_TARGET),
              ("(d) samples/sqlerp_arm.gltf", ROOT / "samples/sqlerp_arm.gltf", None)]
    fidelity.enable_addon()
    print(f"Blender {bpy.app.version_string} (bpy module), Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs. Time: best of {args.repeats} after a warm-up, interleaved. "
          f"Deviation: every {args.frame_step:g} frame at {bpy.context.scene.render.fps} fps, "
          "rotation in degrees, vertex as a fraction of the bounding-box diagonal.\n")
    header = (f"{'case':<40}{'bundled s':>10}{'ours s':>9}{'ratio':>7}  {'rot° bundled':>13}"
              f"{'rot° ours':>11}{'vtx bundled':>13}{'vtx ours':>10}{'samples':>9}")
    print(header + "\n" + "-" * len(header))
    missed = []
    try:
        for label, path, timed_target in cases:
            document = core.load(path)
            bundled_s, ours_s = best_import_times(fidelity, path, args.repeats)
            theirs = deviation(fidelity, document, path, False, args.frame_step)
            ours = deviation(fidelity, document, path, True, args.frame_step)
            ratio = ours_s / bundled_s
            print(f"{label:<40}{bundled_s:>10.3f}{ours_s:>9.3f}{ratio:>6.2f}x  "
                  f"{theirs.rotation_max_deg:>13.5f}{ours.rotation_max_deg:>11.5f}"
                  f"{theirs.vertex_max:>13.2e}{ours.vertex_max:>10.2e}"
                  f"{ours.samples:>9}", flush=True)
            if timed_target and ratio > timed_target:
                missed.append(f"{label}: ours {ratio:.2f}x the bundled time (target <= {timed_target}x)")
            within = ours.rotation_max_deg <= ROTATION_TOLERANCE_DEG and ours.vertex_max <= VERTEX_TOLERANCE
            if not within or ours.problems:
                missed.append(f"{label}: our deviation {ours}")
    finally:
        fidelity.disable_addon()
    print(f"\ntargets: ours <= {TIME_RATIO_TARGET}x the bundled time on (a) and (b), <= {SQLERP_RATIO_TARGET}x "
          f"on (c); our deviation <= "
          f"{ROTATION_TOLERANCE_DEG}° and <= {VERTEX_TOLERANCE:g} of the diagonal on every case: "
          + ("met" if not missed else "MISSED\n  " + "\n  ".join(missed)))
    print(f"total {time.perf_counter() - started:.0f} s")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
