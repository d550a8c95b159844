"""Live preview cost per frame: ``scene.frame_set`` with "Play glTF Exactly" on against off.
Figures of docs/manual/benchmarks.md: the table "Live preview cost" (Benchmarks) and the per-frame costs below it.

    python bench/bench_preview.py            # re-runs itself under the project venv if bpy is missing
    python bench/bench_preview.py --strict   # exit 1 when a target is missed

The rig of bench/synthetic_rig.py (100 skinned bones, one rotation channel of 1,000 keys each),
LINEAR and CUBICSLERP with a LINEAR fallback, imported with ``import_scene.gltf_sqlerp``. A pass
calls ``scene.frame_set`` on 200 frames (every half frame from frame 10: subframes included), and
passes with the preview off and on alternate; best pass of N. Also timed alone: the preview's work
per frame (operators.preview.live.apply: what plays, PosePlayer.flat_at, writing 100 pose bones),
and inside it PosePlayer.flat_at (all channels at one time as one flat array). "added" is on
minus off: the handler plus Blender re-evaluating the posed armature and its skinned mesh in the
frame change's second pass.
Targets (issue 4): added <= 1 ms per frame and on <= 2x off.
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
FRAMES = [10.0 + 0.5 * i for i in range(200)]
ADDED_TARGET_MS = 1.0
RATIO_TARGET = 2.0


def frame_pass(scene):
    """Seconds per frame_set over FRAMES."""
    start = time.perf_counter()
    for frame in FRAMES:
        whole = int(frame)
        scene.frame_set(whole, subframe=frame - whole)
    return (time.perf_counter() - start) / len(FRAMES)


def best_passes(scene, preview, repeats):
    """(off, on) best seconds per frame, passes alternating after one warm-up each."""
    best = {False: float("inf"), True: float("inf")}
    for round_ in range(repeats + 1):
        for enabled in (False, True):
            scene.gltf_sqlerp_preview.enabled = enabled
            preview.refresh(scene)
            seconds = frame_pass(scene)
            if round_:
                best[enabled] = min(best[enabled], seconds)
    scene.gltf_sqlerp_preview.enabled = False
    preview.refresh(scene)
    return best[False], best[True]


def work_alone(scene, preview, preview_clips, repeats):
    """(apply, PosePlayer.flat_at) best seconds per frame, without frame_set around them."""
    played = list(preview_clips.playing(scene))
    data, action, slot, _ = played[0]
    _, clip = preview_clips.clip_for(action, slot, data.bl_rna.identifier, scene.gltf_sqlerp_preview.source)
    apply_best, at_best = float("inf"), float("inf")
    for _ in range(repeats):
        apply_s = at_s = 0.0
        for frame in FRAMES:
            scene.frame_current = int(frame)
            start = time.perf_counter()
            preview.apply(scene)
            apply_s += time.perf_counter() - start
            start = time.perf_counter()
            clip.player.flat_at(frame / clip.frames_per_second)
            at_s += time.perf_counter() - start
        apply_best = min(apply_best, apply_s / len(FRAMES))
        at_best = min(at_best, at_s / len(FRAMES))
    return apply_best, at_best, len(clip.records)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--repeats", type=int, default=15, help="timed passes per mode (default 15)")
    args = parser.parse_args()
    devpath.ensure_bpy(__file__)
    fidelity = devpath.load_module("gltf_sqlerp_fidelity", ROOT / "tools" / "fidelity.py")
    rig = devpath.load_module("gltf_sqlerp_synthetic_rig", ROOT / "bench" / "synthetic_rig.py")
    from gltf_sqlerp.operators.preview import live as preview, clips as preview_clips
    bpy = fidelity.bpy
    folder = Path(tempfile.mkdtemp(prefix="gltf_sqlerp_bench_"))
    cases = [("rig 100 bones x 1,000 LINEAR keys", rig.write_rig(folder / "rig_linear.glb"), 'EXTENSION'),
             ("rig, CUBICSLERP (extension)", rig.write_rig(folder / "rig_sqlerp.glb", interpolation="CUBICSLERP"),
              'EXTENSION'),
             ("rig, CUBICSLERP (fallback)", folder / "rig_sqlerp.glb", 'FALLBACK')]
    fidelity.enable_addon()
    print(f"Blender {bpy.app.version_string} (bpy module), Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs. frame_set on {len(FRAMES)} frames (every half frame from "
          f"{FRAMES[0]:g}), best of {args.repeats} passes after a warm-up, off and on alternating.\n")
    header = (f"{'case':<36}{'off ms':>8}{'on ms':>8}{'added ms':>10}{'ratio':>7}"
              f"{'apply ms':>10}{'flat_at ms':>11}{'channels':>10}")
    print(header + "\n" + "-" * len(header))
    missed = []
    try:
        for label, path, source in cases:
            devpath.quiet(lambda path=path: fidelity.import_gltf(str(path)))
            scene = bpy.context.scene
            scene.gltf_sqlerp_preview.source = source
            off, on = best_passes(scene, preview, args.repeats)
            apply_s, at_s, channels = work_alone(scene, preview, preview_clips, args.repeats)
            added, ratio = (on - off) * 1e3, on / off
            print(f"{label:<36}{off * 1e3:>8.3f}{on * 1e3:>8.3f}{added:>10.3f}{ratio:>6.2f}x"
                  f"{apply_s * 1e3:>10.3f}{at_s * 1e3:>11.3f}{channels:>10}", flush=True)
            if added > ADDED_TARGET_MS or ratio > RATIO_TARGET:
                missed.append(f"{label}: added {added:.3f} ms, {ratio:.2f}x")
    finally:
        fidelity.disable_addon()
    print(f"\ntargets: added <= {ADDED_TARGET_MS:g} ms per frame and on <= {RATIO_TARGET:g}x off: "
          + ("met" if not missed else "MISSED\n  " + "\n  ".join(missed)))
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.exit(code)
