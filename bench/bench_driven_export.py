"""Export of motion Blender plays through constraints, drivers and the NLA: ours and the bundled
exporter's, world errors, bytes and time, in one run.
Figures of docs/manual/benchmarks.md: the table "Export of constraint-driven motion" (Benchmarks).

    python dev.py run bench/bench_driven_export.py            # every rig (re-runs itself under .venv without bpy)
    python dev.py run bench/bench_driven_export.py --strict   # exit 1 when a target is missed

Rigs (tools/driven_rigs.py, 24 fps): "ik-arm" build_driven(): an arm under an IK constraint to an
animated target with a pole, its hand turned by a driver, and a prop keyed under Child Of to a
spinning, moving empty (animation mode Actions, the default); "nla" build_nla(): a bone and an
empty each playing an ADD strip at influence 0.5 over a REPLACE strip (animation mode Scene);
"rigify" and "rigify-deform" build_rigify(): a Rigify human generated from Blender's metarig,
animated through its IK and FK controls, exported whole and deforming bones only. Each rig is
exported with File > Export > glTF 2.0 twice, the add-on's EXT_animation_sqlerp panel on (default
settings: "ours") and off ("bundled").

World error (tools/world_measure.py): Blender's world matrix of every exported bone and object at
8 samples per frame (recorded before the exports) against the file played by the add-on's core
(every animation, composed down the node tree) at frame / fps, both as their matrices' nearest
rotations (polar decomposition: scale and shear out, whatever the axes), with one constant per
node measured from the bundled file at the first frame (glTF = AXES^T · Blender · C). "named" counts the channels
the export names as what glTF cannot hold (shear) with their error; "held max" is the largest
error over the others. "report" is the export's own world maximum.

Targets (issue 35): ours' held max <= 0.01° on every rig; ours' time <= 10x the bundled
exporter's (1 s more allowed where it takes under 0.1 s).
"""

import argparse
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 0.01
TIME_BOUND = 10.0
QUICK_S = 0.1  # the bundled exporter's seconds under which 1 s more is allowed instead


@dataclass(frozen=True)
class Rig:
    key: str
    build: str          # the tools/driven_rigs.py builder
    frames: str         # its frame range constant there
    options: dict       # File > Export > glTF 2.0 options


RIGS = [
    Rig("ik-arm", "build_driven", "DRIVEN_FRAMES", {}),
    Rig("nla", "build_nla", "DRIVEN_FRAMES", {"export_animation_mode": 'SCENE'}),
    Rig("rigify", "build_rigify", "RIGIFY_FRAMES", {}),
    Rig("rigify-deform", "build_rigify", "RIGIFY_FRAMES", {"export_def_bones": True}),
]


def run_rig(rig, folder, tools):
    """The row of one rig: per mode (ours, bundled) bytes, seconds, errors; ours' outcome."""
    fidelity, rigs, measure = tools
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.reset_scene(24, 1.0)
    getattr(rigs, rig.build)()
    frames = rigs.check_frames(getattr(rigs, rig.frames))
    worlds = rigs.world_matrices(frames)
    scene = fidelity.bpy.context.scene
    row = {}
    for mode in ("ours", "bundled"):
        scene.gltf_sqlerp_export.enabled = mode == "ours"
        path = Path(folder) / f"{rig.key}-{mode}.glb"
        start = time.perf_counter()
        devpath.quiet(lambda path=path: fidelity.bpy.ops.export_scene.gltf(filepath=str(path), **rig.options))
        row[mode] = {"seconds": time.perf_counter() - start, "bytes": path.stat().st_size, "path": path}
        if mode == "ours":
            row["outcome"] = export_session.last_outcome
    times = np.asarray(frames) / 24.0
    for mode in ("ours", "bundled"):
        row[mode]["errors"] = measure.world_errors(worlds, row[mode]["path"], row["bundled"]["path"], times)
    return row


def report(rig, row):
    """Print the rig's rows and return its targets' (label, passed)."""
    outcome = row["outcome"]
    named = {c.target for c in outcome.channels if c.unheld_deg}
    sampled = sum(bool(c.sampled) for c in outcome.channels)
    ours, bundled = row["ours"], row["bundled"]
    held = max((e for n, e in ours["errors"].items() if n not in named), default=0.0)
    ratio = ours["seconds"] / bundled["seconds"]
    print(f"  {rig.key:<14} {len(outcome.channels):>5} {sampled:>8} {len(named):>6} "
          f"{held:>9.5f} {max(ours['errors'].values()):>9.4f} {outcome.world_error_deg:>9.4f} "
          f"{max(bundled['errors'].values()):>9.4f} {ours['bytes']:>10,} {bundled['bytes']:>10,} "
          f"{bundled['bytes'] / ours['bytes']:>7.3f}x {ours['seconds']:>7.2f} {bundled['seconds']:>7.2f} "
          f"{ratio:>6.2f}x")
    quick = bundled["seconds"] < QUICK_S  # there: at most 1 s more
    in_time = ours["seconds"] <= bundled["seconds"] + 1.0 if quick else ratio <= TIME_BOUND
    bound = (f"it takes under {QUICK_S:g} s: at most 1 s more, +{ours['seconds'] - bundled['seconds']:.2f} s"
             if quick else f"<= {TIME_BOUND:g}x")
    return [(f"{rig.key}: held max {held:.5f}° (<= {TOLERANCE}°)", held <= TOLERANCE),
            (f"{rig.key}: time {ours['seconds']:.2f} s vs the bundled exporter's {bundled['seconds']:.2f} s "
             f"({ratio:.2f}x; {bound})", in_time)]


def main():
    devpath.ensure_bpy(__file__)
    parser = argparse.ArgumentParser(description="Export of constraint-driven motion against the bundled exporter")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    fidelity = devpath.load_module("gltf_sqlerp_fidelity", ROOT / "tools" / "fidelity.py")
    rigs = devpath.load_module("gltf_sqlerp_driven_rigs", ROOT / "tools" / "driven_rigs.py")
    measure = devpath.load_module("gltf_sqlerp_world_measure", ROOT / "tools" / "world_measure.py")
    fidelity.enable_addon()
    bpy = fidelity.bpy
    print(f"Blender {bpy.app.version_string}, Python {platform.python_version()}, {os.cpu_count()} CPUs")
    print(f"  {'rig':<14} {'rot':>5} {'sampled':>8} {'named':>6} {'held max':>9} {'max°':>9} "
          f"{'report°':>9} {'bundled°':>9} {'ours B':>10} {'bundled B':>10} {'b/ours':>8} "
          f"{'ours s':>7} {'bund s':>7} {'time':>7}")
    targets = []
    with tempfile.TemporaryDirectory(prefix="gltf_sqlerp_driven_") as folder:
        for rig in RIGS:
            targets += report(rig, run_rig(rig, folder, (fidelity, rigs, measure)))
    print("targets (issue 35):")
    for label, passed in targets:
        print(f"  {'PASS' if passed else 'MISS'}  {label}")
    missed = sum(not passed for _, passed in targets)
    print(f"  {len(targets) - missed} passed, {missed} missed")
    sys.stdout.flush()
    os._exit(1 if args.strict and missed else 0)  # the bpy module of 4.2 crashes at exit after a glTF export


if __name__ == "__main__":
    main()
