"""Export of real dense animation: Blender's bundled glTF exporter, ours and two peers, in one run.
Figures of docs/manual/benchmarks.md: the table "Export of real dense animation" (Benchmarks).

    python dev.py run bench/bench_real_export.py                   # every clip (re-runs itself under .venv without bpy)
    python dev.py run bench/bench_real_export.py --quick           # CesiumMan and one mocap clip
    python dev.py run bench/bench_real_export.py --clips CesiumMan 75_03
    python dev.py run bench/bench_real_export.py --keep            # keep the exported files (prints where)
    python dev.py run bench/bench_real_export.py --strict          # exit 1 when a target is missed

Clips (../shared/assets, or $GLTF_SQLERP_SHARED/assets; files are read there, never copied): every
Khronos model with animations (its glTF-Binary .glb where there is one, else its .gltf), imported
with Blender's bundled importer alone (our "Exact Animation" import switched off, and checked: no
action carries our import's data), and the CMU mocap clips 16_27 and 75_03 imported with Blender's
bundled BVH importer at the file's 120 fps. A model with several glTF animations (InterpolationTest)
is one clip: its errors are the worst over all of them.

Modes, each one .glb export of the same imported scene in the same run: "bundled" (Blender's
exporter alone, our export switched off: per-frame LINEAR rotations), "no animation" (the bundled
exporter with export_animations=False), "ours AUTO" (the default) / "ours LINEAR" / "ours NONE"
(export_scene.gltf_sqlerp with that fallback, other settings default), and two peers applied to the
bundled exporter's file: gltfpack (`gltfpack -i in.glb -o out.glb`, default options: resampled to
30 Hz, 12-bit rotations) and glTF-Transform (`gltf-transform resample in.glb out.glb`), pinned and
installed by bench/export_peers.py; a peer that fails says so in its row. Before the first clip, one
discarded export of each kind (a small keyed rig), so that no timed export pays first-call imports.

Columns: see bench/real_export_report.py, which prints the rows.

World error: Blender itself is sampled with scene.frame_set(frame, subframe) at 8 samples per frame
(fewer only for clips over 1,000 frames: the header says so) from the action's first whole frame to
its end: matrix_world of objects, armature.matrix_world @ pose_bone.matrix of bones, rotation part
by polar decomposition (scale removed the same way on both sides: it commutes with the constant
corrections below). Each file is played by the add-on's core: core.load, then the world matrices of
Document.node_matrices (batched over all times, checked against node_matrices at one sample) at
t = (frame - slide) / (fps / fps_base), slide = the action's first frame when negative, else 0
(the bundled exporter writes keys from the action's first whole frame at frame / (fps * fps_base):
checked against its file per animation, a WARNING line shows a mismatch); times within float32
resolution of a key are taken at the key. glTF nodes are Blender objects and bones of the same
name; glTF world = AXES^T @ Blender world @ C with the Y-up change AXES known and one constant C per
node, measured from the bundled file at a whole frame and reused for every mode. The sanity line
gives the bundled file's error at whole frames timed as it keys them (its own samples: ~1e-5 deg,
else the calibration is wrong). Nodes of an object the animation does not drive (another clip's
object) are not compared. The bpy module of Blender 4.2 crashes at exit after a glTF export: the
script ends with os._exit.

Targets (bench/export_targets.py, as bench/bench_export.py's; --strict): per clip, the default
export's file ratio (bundled bytes / ours >= 1.00x), world errors and export time; over the clips,
the median time ratio where the bundled exporter takes 0.5 s or more (on those clips both exports'
times are the medians of REPEATS runs, alternately).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
ASSETS = Path(os.environ.get("GLTF_SQLERP_SHARED", ROOT.parent / "shared")) / "assets"
OURS = ("AUTO", "LINEAR", "NONE")  # AUTO: the default
DEFAULT = "ours AUTO"
# Where the bundled exporter takes export_targets.TIME_FAST_S or more (the median target's clips),
# the default export and the bundled one are timed REPEATS times and their medians kept (write_files).
REPEATS = 3
QUICK = ("CesiumMan", "16_27")
EXTENSION = "EXT_animation_sqlerp"
rc: ModuleType  # bench/real_clips.py, loaded in main() once bpy is there
three = devpath.load_module("gltf_sqlerp_three_player", ROOT / "tools" / "three_player.py")
peers = devpath.load_module("gltf_sqlerp_export_peers", ROOT / "bench" / "export_peers.py")
targets = devpath.load_module("gltf_sqlerp_export_targets", ROOT / "bench" / "export_targets.py")
report = devpath.load_module("gltf_sqlerp_real_export_report", ROOT / "bench" / "real_export_report.py")


@dataclass
class Row:
    clip: str
    mode: str
    ext_channels: int = 0
    rot_channels: int = 0
    keys: int = 0
    fallback_keys: int = 0
    file_bytes: int = 0
    anim_bytes: int = 0
    max_deg: float | None = None
    fallback_max_deg: float | None = None
    worst: str = ""
    export_s: float = 0.0  # the export's wall time (peers: their tool's, on the bundled file)
    failed: str = ""
    problems: list[str] = field(default_factory=list)


# --- exports ---------------------------------------------------------------------------------------

def export(mode: str, path: Path) -> None:
    """One .glb export of the current scene in ``mode``; raises on failure."""
    bpy = rc.bpy
    bpy.context.scene.gltf_sqlerp_export.enabled = mode.startswith("ours")
    if mode == "bundled":
        call = lambda: bpy.ops.export_scene.gltf(filepath=str(path), export_format='GLB')  # noqa: E731
    elif mode == "no animation":
        call = lambda: bpy.ops.export_scene.gltf(filepath=str(path), export_format='GLB',  # noqa: E731
                                                 export_animations=False)
    else:
        call = lambda: bpy.ops.export_scene.gltf_sqlerp(filepath=str(path), fallback=mode.split()[1])  # noqa: E731
    result = devpath.quiet(call)
    if result != {'FINISHED'} or not path.is_file():
        raise RuntimeError(f"the export returned {result}")


def attempt(action: Callable[[], object]) -> str:
    """'' when ``action()`` succeeds, else its error in one line (a failed mode is a row, not the end)."""
    try:
        action()
        return ""
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"


def write_files(name: str, folder: Path, peers_bin: Path | str) -> tuple[dict, dict, dict]:
    """Every mode's file of the current scene: ({mode: path}, {mode: error}, {mode: wall seconds}).
    All exports run before Blender is sampled, which switches actions. The peers also run on the
    no-animation file (their own baseline for the note line: key '<peer> baseline')."""
    modes = ["bundled", "no animation"] + [f"ours {fallback}" for fallback in OURS]
    paths = {mode: folder / f"{name}_{mode.replace(' ', '_')}.glb" for mode in modes}
    seconds: dict[str, float] = {}

    def timed(key: str, action: Callable[[], object]) -> str:
        start = time.perf_counter()
        error = attempt(action)
        seconds[key] = time.perf_counter() - start
        return error

    errors = {mode: timed(mode, lambda mode=mode: export(mode, paths[mode])) for mode in modes}
    if seconds["bundled"] >= targets.TIME_FAST_S and not errors["bundled"] and not errors[DEFAULT]:
        # The median target's clips: a run's times vary by 10 % on a shared machine, so the
        # default export and the bundled one are timed REPEATS times, alternately, and their
        # medians kept (the same files each time: the exports are deterministic).
        runs = {mode: [seconds[mode]] for mode in ("bundled", DEFAULT)}
        for _ in range(REPEATS - 1):
            for mode in runs:
                timed(mode, lambda mode=mode: export(mode, paths[mode]))
                runs[mode].append(seconds[mode])
        seconds.update({mode: statistics.median(times) for mode, times in runs.items()})
    for label in peers.PEERS:
        for source, key in (("bundled", label), ("no animation", f"{label} baseline")):
            paths[key] = folder / f"{name}_{key.replace(' ', '_')}.glb"
            if isinstance(peers_bin, str):  # why the peers cannot run
                errors[key] = peers_bin
            elif errors[source]:
                errors[key] = f"no {source} file"
            else:
                errors[key] = timed(key, lambda label=label, source=source, key=key: peers.run_peer(
                    peers_bin, label, paths[source], paths[key]))
    return paths, {mode: error for mode, error in errors.items() if error}, seconds


# --- measuring one file ----------------------------------------------------------------------------

def count_rotations(document, row: Row) -> None:
    """Rotation channels and keys of the samplers they play (see the module docstring)."""
    accessors = document.json.get("accessors", [])
    for animation in document.json.get("animations", []):
        samplers = animation["samplers"]
        for channel in (c for c in animation["channels"] if c["target"].get("path") == "rotation"):
            core_keys = accessors[samplers[channel["sampler"]]["input"]]["count"]
            extension = channel.get("extensions", {}).get(EXTENSION)
            row.rot_channels += 1
            if extension is None:
                row.keys += core_keys
                continue
            row.ext_channels += 1
            row.keys += accessors[samplers[extension["sampler"]]["input"]]["count"]
            row.fallback_keys += core_keys


def measure(row: Row, path: Path, motions: list, calibration, rate: float, baseline: int) -> Row:
    """Fill ``row`` from one written file (its failure to read back is the row's failure)."""
    try:
        document = rc.core.load(str(path))  # ours must read back without error
    except Exception as error:  # noqa: BLE001
        row.failed = f"core.load: {' '.join(str(error).split())[:300]}"
        return row
    row.file_bytes = path.stat().st_size
    row.anim_bytes = row.file_bytes - baseline
    count_rotations(document, row)
    played = rc.world_error(document, motions, calibration, rate)
    row.max_deg, row.worst, row.problems = played.max_deg, played.worst, played.problems
    if row.mode.startswith("ours"):
        fallback = rc.world_error(document, motions, calibration, rate, use_fallback=True)
        row.fallback_max_deg = fallback.max_deg
        row.worst += f"; fb {fallback.worst}"
    return row


# --- one clip --------------------------------------------------------------------------------------

def blender_motions(bundled, render) -> tuple[list, object, list[str]]:
    """Blender's motion per animation of the bundled file, the calibration, and notes."""
    targets, missing = rc.map_targets(bundled)
    notes = [f"nodes without a Blender object or bone (not compared): {missing}"] if missing else []
    motions, calibration, index = [], rc.Calibration(), rc.file_index(bundled)
    keyed_rate = render.fps * render.fps_base  # how the bundled exporter times its keys
    for animation in range(len(bundled.json.get("animations", []))):
        motion = rc.measure_motion(bundled, targets, animation)
        if motion is None:
            notes.append(f"animation {animation}: no Blender action of its name, not compared")
            continue
        times = (motion.frames - motion.slide) / keyed_rate
        calibration.add(motion, rc.file_world(bundled, animation, times), index)
        motions.append(motion)
        notes += motion.notes
    return motions, calibration, notes


def clip_header(source, motions: list, render) -> str:
    samples = sum(len(m.frames) for m in motions)
    per_frame = min((m.per_frame for m in motions), default=rc.PER_FRAME)
    ranges = ", ".join(f"{m.frames[0]:g}-{m.frames[-1]:g}" for m in motions[:3]) + (" ..." if len(motions) > 3 else "")
    reduced = "" if per_frame == rc.PER_FRAME else f" (REDUCED from {rc.PER_FRAME}: over {rc.LONG_CLIP:,} frames)"
    nodes = max((len(m.targets) for m in motions), default=0)
    return (f"\n{source.name} ({source.path.relative_to(ASSETS)}): {len(motions)} animation(s), frames {ranges} "
            f"at {render.fps}/{render.fps_base:.7g} fps, {per_frame} samples per frame{reduced}, "
            f"{samples:,} samples, up to {nodes} nodes compared")


def run_clip(source, folder: Path, peers_bin: Path | str) -> list[Row]:
    """Import, write every mode's file, sample Blender, print the clip's rows."""
    started = time.perf_counter()
    rc.import_clip(source)
    paths, errors, seconds = write_files(source.name, folder, peers_bin)
    if "bundled" in errors or "no animation" in errors:
        print(f"\n{source.name}: cannot measure: {errors}", flush=True)
        return []
    render = rc.bpy.context.scene.render
    bundled = rc.core.load(str(paths["bundled"]))
    motions, calibration, notes = blender_motions(bundled, render)
    print(clip_header(source, motions, render), flush=True)
    baseline, rate = paths["no animation"].stat().st_size, render.fps / render.fps_base
    sanity = rc.world_error(bundled, motions, calibration, render.fps * render.fps_base, whole_frames=True)
    line = (f"  sanity: bundled file at whole frames, timed as it keys them (frame / (fps * fps_base)): "
            f"max {sanity.max_deg:.2e} deg ({sanity.worst})")
    if render.fps_base != 1.0:  # its timing is off by fps_base^2: what that alone costs at its keys
        real = rc.world_error(bundled, motions, calibration, rate, whole_frames=True)
        line += f"; at Blender's rate (fps / fps_base): {real.max_deg:.2e} deg ({real.worst})"
    print(line, flush=True)
    rows = [Row(source.name, "no animation", file_bytes=baseline, export_s=seconds["no animation"])]
    for mode in ["bundled"] + [f"ours {f}" for f in OURS] + list(peers.PEERS):
        row = Row(source.name, mode, export_s=seconds.get(mode, 0.0), failed=errors.get(mode, ""))
        rows.append(row if row.failed else measure(row, paths[mode], motions, calibration, rate, baseline))
    for row in rows:
        print(report.format_row(row, rows[1]), flush=True)
        if row.mode.startswith("ours") and not row.failed:
            print(f"    {three.report_line(paths[row.mode])}", flush=True)
    for line in notes + peer_notes(paths, errors, rows):
        print(f"  note: {line}", flush=True)
    print(f"  bundled exporter: {rows[1].export_s:.2f} s (time/bundled divides by it)", flush=True)
    print(f"  ({time.perf_counter() - started:.1f} s for this clip)", flush=True)
    return rows


def judge(rows: list[Row]) -> list:
    """export_targets' verdicts of one clip: the default export's file ratio, world errors and time."""
    by_mode = {row.mode: row for row in rows}
    ours, bundled = by_mode.get("ours AUTO"), by_mode["bundled"]
    return targets.default_targets(by_mode) + [targets.time_target(
        None if ours is None or ours.failed else ours.export_s, None if bundled.failed else bundled.export_s)]


def peer_notes(paths: dict, errors: dict, rows: list[Row]) -> list[str]:
    """Each peer applied to the no-animation file, for the part of its bytes that is not animation."""
    bundled = next(r for r in rows if r.mode == "bundled")
    notes = []
    for row in (r for r in rows if r.mode in peers.PEERS and not r.failed):
        key = f"{row.mode} baseline"
        if key in errors:
            notes.append(f"{row.mode} on the no-animation file failed: {errors[key]}")
            continue
        own = row.file_bytes - paths[key].stat().st_size
        notes.append(f"{row.mode} on the no-animation file: {paths[key].stat().st_size:,} B, so its "
                     f"animation takes {own:,} B (bundled/this {report.ratio(bundled.anim_bytes, own)})")
    return notes


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--clips", nargs="+", metavar="NAME", help="only these clips (model folder or .bvh stem)")
    parser.add_argument("--quick", action="store_true", help=f"only {' and '.join(QUICK)}")
    parser.add_argument("--keep", action="store_true", help="keep the exported files")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    devpath.ensure_bpy(__file__)
    started = time.perf_counter()
    load_real_clips()
    if not ASSETS.is_dir():
        sys.exit(f"no assets at {ASSETS}: clone the project with shared/ beside it or set GLTF_SQLERP_SHARED")
    wanted = {name.lower() for name in (args.clips or (QUICK if args.quick else ()))}
    clips = [c for c in rc.find_clips(ASSETS) if not wanted or c.name.lower() in wanted]
    unknown = wanted - {c.name.lower() for c in clips}
    if unknown:
        sys.exit(f"unknown or unanimated clips: {sorted(unknown)}")
    peers_bin = peers.ensure_peers_or_reason()
    folder = Path(tempfile.mkdtemp(prefix="gltf_sqlerp_bench_real_"))
    print(f"Blender {rc.bpy.app.version_string} (bpy module), Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs; peers: {peers.pinned_peers()}; {len(clips)} clips. Degrees: world rotation "
          f"error against Blender at {rc.PER_FRAME} samples per frame.\n{report.HEADER}", flush=True)
    rc.fidelity.enable_addon()
    verdicts: dict[str, list] = {}
    times: list[tuple[str, float, float]] = []  # (clip, ours AUTO s, bundled s) for the median
    try:
        warm_up(folder)
        for source in clips:
            rows: list[Row] = []
            problem = attempt(lambda source=source, rows=rows: rows.extend(run_clip(source, folder, peers_bin)))
            if problem:  # an import that fails, say: the other clips still run
                print(f"\n{source.name}: FAILED: {problem}", flush=True)
            verdicts[source.name] = judge(rows) if rows else [targets.Verdict("cannot measure", False)]
            by_mode = {row.mode: row for row in rows if not row.failed}
            if "ours AUTO" in by_mode and "bundled" in by_mode:
                times.append((source.name, by_mode["ours AUTO"].export_s, by_mode["bundled"].export_s))
            print("\n".join(f"  {v.line()}" for v in verdicts[source.name]), flush=True)
    finally:
        rc.fidelity.disable_addon()
        if args.keep:
            print(f"files kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    missed = targets.print_targets(verdicts, targets.median_time_target(times), "clips")
    print(f"total {time.perf_counter() - started:.0f} s")
    return 1 if args.strict and missed else 0


def load_real_clips() -> ModuleType:
    """bench/real_clips.py, which imports bpy: loaded once bpy is there, for this module's functions."""
    global rc
    rc = devpath.load_module("gltf_sqlerp_real_clips", ROOT / "bench" / "real_clips.py")
    return rc


def warm_up(folder: Path) -> None:
    """One discarded export of each kind of a small keyed rig, so that no timed export pays
    first-call imports (as bench/bench_export.py does)."""
    rc.fidelity.reset_scene()
    devpath.load_module("gltf_sqlerp_keyed_rig", ROOT / "tools" / "keyed_rig.py").build()
    for mode in ("bundled", "ours AUTO"):
        export(mode, folder / f"warm_{mode.replace(' ', '_')}.glb")



if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
