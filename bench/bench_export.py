"""Export of Blender-keyed rigs: the bundled glTF exporter, ours and two peers, world errors, in one run.
Figures of docs/manual/benchmarks.md: the table "Export of Blender-keyed rigs" (Benchmarks) and the bounds below it.

    python dev.py run bench/bench_export.py            # every rig (re-runs itself under .venv without bpy)
    python dev.py run bench/bench_export.py --quick    # the small rigs: a1, a4-s1..s3, a5
    python dev.py run bench/bench_export.py --strict   # exit 1 when a target is missed
    python dev.py run bench/bench_export.py --rigs a1 c --keep

Issue 17's sets (a) and (c); set (b), real dense clips, is bench/bench_real_export.py. Rigs
(tools/keyed_rig.py: Bezier keys, every rotation mode in turn, 24 fps): (a1) the round-trip rig of
the tests (build()'s defaults: 4 bones + 2 empties, 12 keys 4-12 frames apart, turns up to 100°
between keys); (a2) an animator's rig: 20 bones + 2 empties, 60 keys, turns up to 30°; (a3) a
69-bone character tree 19 bones deep (build_tree: spine, neck, arms with five 3-bone fingers, legs,
tail), 30 keys 6-10 frames apart, turns up to 30°; (a4-s1..s3) what a new user tries, build_arms
with seeds 1-3: a 4-bone arm and an empty at 29.97 fps (fps 30, fps_base 1.001), the arm's action
from frame -5, the empty's on quarter frames (a fractional range), FREE handles on half the curves,
turns up to 100°, the rotation modes from offset 3 * seed (the three seeds use all eight); (a5)
build_bone_meshes: a 31-bone character (spine, head, arms, 3-bone fingers ending in leaf bones)
whose armature object is turned 90° about X and scaled 0.01, 9 box meshes parented to bones, keyed
every frame like an imported clip; (a6) the same keyed by an animator; (c) the 100-bone x 1,000-key
rig (a chain, turns up to 30°), whose target is the fitting time.

Modes, each one .glb of the same scene in the same run: "bundled" (Blender's exporter alone: per-frame
LINEAR rotations), "no animation" (the same with export_animations=False: the baseline), "ours AUTO"
(export_scene.gltf_sqlerp, default settings), "ours LINEAR", "ours NONE" (other fallbacks), the
peers applied to the bundled file ("gltfpack": default options, 30 Hz resampling, 12-bit rotations;
"glTF-Transform": `resample`; pinned by bench/peers/ and installed into .node-peers/ by
export_peers.ensure_peers), and "ours @<peer>": ours with tolerance and fallback tolerance set
to that peer's measured world error (fallback AUTO; at most 10°, the settings' maximum). On (c) only
the default fallback is exported unless --all-fallbacks: since world tolerances each of ours' exports
of that 100-bone chain took about 16 minutes (2 CPUs) instead of under a minute.

Columns: ext/rot: rotation channels with an EXT_animation_sqlerp sampler / all. keys: the rotation
keys a viewer with the extension plays (CUBICSLERP where a channel has it, else its core sampler);
core keys: what a viewer without it plays (ours: the fallback; "-" for NONE, whose file requires the
extension). file B: the .glb. anim B: file minus the "no animation" file. bundled/this: the bundled
exporter's anim B over this row's. time/bundled: this row's export s over the bundled exporter's in
this run (peers: their tool's time alone, on top of the bundled export; its own time has a line
under the rows). max°: the largest WORLD rotation error over every bone and object
and every sample; fb max°: the same with the fallback played (ours only). export s: wall time of
the export (peers: of the tool); fit s: the add-on's time on Blender's thread (export_modes.FitClock:
export_fitting.prepare and export_rotations.rewrite wrapped in this process). Under each of our
rows, the export's own summary line, a WARNING where its world maxima differ from ours by more
than 0.002°, and how three.js plays the file with viewers/three/EXT_animation_sqlerp.js: every
node's quaternion at every key, key middle and 240 times a second against the core
(tools/three_player.py; needs the npm packages `python dev.py test` installs).

World error (keyed_world, on bench/real_clips.py's machinery): Blender sampled with
scene.frame_set(frame, subframe) at 8 samples per frame over each action's range ((c): its first
200 frames), world matrices of objects and bones; each file played by the add-on's core at
t = (frame - slide) / (fps / fps_base); one constant per node measured from the bundled file at a
whole frame.
Objects below an animated one (meshes on bones) are compared too. The sanity line: the bundled file
at its own keys (whole frames) timed as it keys them (frame / (fps * fps_base)), ~1e-5° else the
calibration is wrong; at 29.97 fps also at Blender's rate, what its fps_base^2 timing costs alone.
Targets (export_targets, --strict): per rig, the default export's file ratio, world errors, export
time; over the rigs, the median time ratio where the bundled exporter takes >= 0.5 s. The bpy
module of Blender 4.2 crashes at exit after a glTF export: the script ends with os._exit.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

if TYPE_CHECKING:  # loaded by path in main() once bpy is there: for the annotations only
    from export_modes import FitClock, Mode, Row
    from export_targets import Verdict
    from keyed_world import RigMotion

ROOT = Path(__file__).resolve().parents[1]
WARN_DEG = 0.002  # the export's own world maxima against ours: a larger gap is worth a look
# Bench modules, loaded in main() once bpy is there.
modes: ModuleType
world: ModuleType
targets: ModuleType
keyed_rig: ModuleType
three = devpath.load_module("gltf_sqlerp_three_player", ROOT / "tools" / "three_player.py")


@dataclass(frozen=True)
class Rig:
    key: str
    label: str
    build: Callable[[ModuleType], object]  # build(keyed_rig module) makes the rig in the current (empty) scene
    keyed: bool = True    # set (a); False: (c), judged on its fitting time
    quick: bool = True    # in --quick (small rigs only)
    window: int | None = None  # frames of each action sampled for the world error (None: all)
    # Our fallbacks exported by default; (c): only the default one, each of its exports taking
    # about a quarter of an hour since world tolerances (--all-fallbacks runs the others too).
    fallbacks: tuple[str, ...] = ("AUTO", "LINEAR", "NONE")


RIGS = [
    Rig("a1", "(a1) round trip: 4 bones + 2 empties, 12 keys, turns <= 100°", lambda k: k.build()),
    Rig("a2", "(a2) animator: 20 bones + 2 empties, 60 keys, turns <= 30°",
        lambda k: k.build(bones=20, objects=2, keys=60, max_turn_deg=30.0), quick=False),
    Rig("a3", "(a3) character tree: 69 bones, 19 deep, 30 keys every 6-10 frames, turns <= 30°",
        lambda k: k.build_tree(), quick=False),
    *(Rig(f"a4-s{seed}", f"(a4-s{seed}) arm, seed {seed}: 4 bones + 1 empty at 29.97 fps, 12 keys from frame -5 "
          f"and at quarter frames, free handles, turns <= 100°", lambda k, seed=seed: k.build_arms(seed=seed))
      for seed in (1, 2, 3)),
    Rig("a5", "(a5) meshes on bones: 31-bone character (armature turned 90°, scale 0.01), 9 box meshes on "
        "bones, a key every frame (130)", lambda k: k.build_bone_meshes(dense=True)),
    Rig("a6", "(a6) meshes on bones: the a5 character keyed by an animator (16 keys every 6-10 frames)",
        lambda k: k.build_bone_meshes(dense=False), quick=False),
    Rig("c", "(c) speed: 100 bones x 1,000 keys, turns <= 30°",
        lambda k: k.build(bones=100, objects=0, keys=1000, max_turn_deg=30.0), keyed=False, quick=False,
        window=200, fallbacks=("AUTO",)),
]


def base_modes(fallbacks: tuple[str, ...]) -> list[Mode]:
    return [modes.Mode(f"ours {fallback}", "ours", fallback) for fallback in fallbacks]


# --- report ----------------------------------------------------------------------------------------

HEADER = (f"  {'mode':<22}{'ext/rot':>8}{'keys':>11}{'core keys':>11}{'file B':>13}{'anim B':>13}"
          f"{'bundled/this':>13}{'time/bundled':>13}{'max°':>10}{'fb max°':>10}{'export s':>9}{'fit s':>7}  worst")


def degrees(value: float | None) -> str:
    return "-" if value is None else f"{value:.5f}" if value < 10 else f"{value:.2f}"


def time_ratio(row: Row, bundled: Row | None) -> str:
    """This row's export (or peer's tool) seconds over the bundled exporter's, same run."""
    if bundled is None or bundled.failed or bundled.export_s <= 0:
        return "n/a"
    return f"{row.export_s / bundled.export_s:.2f}x"


def format_row(row: Row, bundled: Row | None) -> str:
    start = f"  {row.mode.label:<22}"
    if row.failed:
        return f"{start}FAILED: {row.failed}"
    if row.mode.kind == "no animation":
        return (f"{start}{'-':>8}{'-':>11}{'-':>11}{row.file_bytes:>13,}{0:>13,}{'-':>13}"
                f"{time_ratio(row, bundled):>13}{'':>20}{row.export_s:>9.2f}")
    ratio = (f"{bundled.anim_bytes / row.anim_bytes:.2f}x" if bundled is not None and not bundled.failed
             and row.anim_bytes > 0 else "n/a")
    core = "-" if row.mode.ours and row.mode.fallback == "NONE" else f"{row.core_keys:,}"
    fit = "-" if row.fit_s is None else f"{row.fit_s:.2f}"
    text = (f"{start}{f'{row.ext_channels}/{row.rot_channels}':>8}{row.keys:>11,}{core:>11}{row.file_bytes:>13,}"
            f"{row.anim_bytes:>13,}{ratio:>13}{time_ratio(row, bundled):>13}"
            f"{degrees(row.max_deg):>10}{degrees(row.fallback_max_deg):>10}"
            f"{row.export_s:>9.2f}{fit:>7}  {row.worst}")
    return text + "".join(f"\n{'':<24}problem: {p}" for p in row.problems)


def ours_lines(row: Row, tolerance_note: str, window: int | None) -> list[str]:
    """The export's own summary line under our row, and a WARNING where its world maxima differ
    from the independent measure by more than WARN_DEG (a windowed rig: we see part of the range)."""
    lines = [f"{'':<24}export says: {row.summary}{tolerance_note}"]
    part = f" over the first {window} frames only (the export: all of them)" if window else ""
    for what, theirs, mine in (("extension", row.reported[0], row.max_deg),
                               ("fallback", row.reported[1], row.fallback_max_deg)):
        if theirs is not None and mine is not None and abs(theirs - mine) > WARN_DEG:
            lines.append(f"{'':<24}WARNING: the export reports {what} world max {theirs:.5f}°, "
                         f"measured here {mine:.5f}°{part} (difference {mine - theirs:+.5f}°)")
    return lines


# --- one rig ---------------------------------------------------------------------------------------

class RigRun:
    """The files and rows of one rig, printed as they are measured."""

    def __init__(self, rig: Rig, folder: Path, peers_bin: Path | str, clock: FitClock, fallbacks: tuple[str, ...]):
        self.rig, self.folder, self.peers_bin, self.clock = rig, folder, peers_bin, clock
        self.fallbacks = fallbacks
        self.rows: dict[str, Row] = {}
        self.peer_anim: dict[str, int] = {}
        self.notes: list[str] = []
        self.motion: RigMotion | None = None
        self.baseline = 0

    def path(self, label: str) -> Path:
        return self.folder / f"{self.rig.key}_{label.replace(' ', '_').replace('@', 'at_')}.glb"

    def add(self, row: Row) -> None:
        self.rows[row.mode.label] = row
        print(format_row(row, self.rows.get("bundled")), flush=True)

    def export(self, mode: Mode) -> Row:
        """Export ``mode`` and measure its file (not the baseline's, nor before Blender is sampled)."""
        row, error = modes.attempt(lambda: modes.export(mode, self.path(mode.label), self.clock))
        row = row or modes.Row(mode, failed=error)
        if not row.failed and mode.kind != "no animation" and self.motion is not None:
            modes.measure(row, self.path(mode.label), self.motion, self.baseline)
        return row

    def run(self) -> dict[str, Row]:
        started = time.perf_counter()
        keyed_rig_scene(self.rig)
        bundled = self.export(modes.Mode("bundled", "bundled"))  # measured once calibrated below
        baseline = self.export(modes.Mode("no animation", "no animation"))
        if bundled.failed or baseline.failed:
            print(f"\n{self.rig.label}: cannot measure: {bundled.failed or baseline.failed}", flush=True)
            return {}
        self.baseline = baseline.file_bytes = self.path("no animation").stat().st_size
        document = modes.rc.core.load(str(self.path("bundled")))
        motion: RigMotion = world.rig_motion(document, self.rig.window)
        self.motion = motion
        self.print_header(motion)
        self.add(modes.measure(bundled, self.path("bundled"), self.motion, self.baseline))
        self.add(baseline)
        self.run_peers()
        skipped = [f for f in ("AUTO", "LINEAR", "NONE") if f not in self.fallbacks]
        if skipped:
            self.notes.append(f"fallbacks not exported in this run: {', '.join(skipped)} (--all-fallbacks)")
        for mode in base_modes(self.fallbacks) + self.at_peer_modes():
            row = self.export(mode)
            self.add(row)
            if not row.failed:
                print("\n".join(ours_lines(row, self.tolerance_note(mode), self.rig.window)), flush=True)
                print(f"    {three.report_line(self.path(mode.label))}", flush=True)
        for note in motion.notes + self.notes:
            print(f"  note: {note}", flush=True)
        print(f"  bundled exporter: {bundled.export_s:.2f} s (time/bundled divides by it)", flush=True)
        print(f"  ({time.perf_counter() - started:.0f} s for this rig)", flush=True)
        return self.rows

    def print_header(self, motion: RigMotion) -> None:
        ranges = ", ".join(f"{m.animation} {m.frames[0]:g}-{m.frames[-1]:g}" for m in motion.motions)
        window = f" (the first {self.rig.window} frames of each action)" if self.rig.window else ""
        print(f"\n{self.rig.label}\n  error samples: {motion.samples:,} at 8 per frame{window}: {ranges}; "
              f"{max((len(m.targets) for m in motion.motions), default=0)} nodes at most per animation",
              flush=True)
        document = modes.rc.core.load(str(self.path("bundled")))
        # Timed as the bundled exporter keys (frame / (fps * fps_base)): only its own samples.
        sanity = motion.error(document, whole_frames=True, rate=motion.keyed_rate)
        line = f"  sanity: bundled file at its keys (whole frames): max {sanity.max_deg:.2e}° ({sanity.worst})"
        if motion.keyed_rate != motion.rate:  # 29.97 fps: what its timing (off by fps_base^2) costs
            real = motion.error(document, whole_frames=True)
            line += f"; at Blender's rate (fps / fps_base): {real.max_deg:.2e}° ({real.worst})"
        print(f"{line}\n{HEADER}", flush=True)

    def run_peers(self) -> None:
        """Each peer on the bundled file (a row) and on the no-animation file (its own baseline)."""
        for label in modes.peers.PEERS:
            if isinstance(self.peers_bin, str):
                self.add(modes.Row(modes.Mode(label, label), failed=self.peers_bin))
                continue
            row, error = modes.attempt(lambda label=label: modes.run_peer(
                self.peers_bin, label, self.path("bundled"), self.path(label)))
            row = row or modes.Row(modes.Mode(label, label), failed=error)
            self.add(row if row.failed else modes.measure(row, self.path(label), self.motion, self.baseline))
            if not row.failed:
                self.peer_anim[label] = self.peer_own_bytes(label, row)

    def peer_own_bytes(self, label: str, row: Row) -> int:
        """The peer's animation bytes for the targets: the smaller of its file minus our
        no-animation file and minus the peer applied to that file (what it saves elsewhere is
        then not counted as animation in its favour or against it)."""
        own = self.path(f"{label} baseline")
        _, error = modes.attempt(lambda: modes.peers.run_peer(self.peers_bin, label, self.path("no animation"), own))
        if error:
            self.notes.append(f"{label} on the no-animation file failed: {error}")
            return row.anim_bytes
        own_bytes = row.file_bytes - own.stat().st_size
        self.notes.append(f"{label} on the no-animation file: {own.stat().st_size:,} B, so its animation "
                          f"takes {own_bytes:,} B; the targets take {min(own_bytes, row.anim_bytes):,} B")
        return min(own_bytes, row.anim_bytes)

    def at_peer_modes(self) -> list[Mode]:
        """Ours at each measured peer's world error (AUTO fallback)."""
        result = []
        for label in self.peer_anim:
            error = self.rows[label].max_deg
            if error is not None and error > 0:
                result.append(modes.Mode(f"ours @{label}", "ours", "AUTO", error, error))
        return result

    @staticmethod
    def tolerance_note(mode: Mode) -> str:
        if mode.tolerance is None:
            return ""
        asked = modes.ours_options(mode)
        return (f" [tolerance {asked['tolerance']:.4f}°, fallback {asked['fallback_tolerance']:.4f}°"
                + (f"; the peer's {mode.tolerance:.4f}° is beyond the setting's range" if
                   asked["tolerance"] != mode.tolerance else "") + "]")


def keyed_rig_scene(rig: Rig) -> None:
    modes.rc.fidelity.reset_scene()
    rig.build(keyed_rig)


def judge(rig: Rig, run: RigRun) -> list[Verdict]:
    """The target lines of one rig (export_targets)."""
    rows = run.rows
    verdicts = targets.default_targets(rows)
    if rig.keyed:
        verdicts += targets.keyed_targets(rows)
    verdicts += targets.peer_targets(rows, run.peer_anim)
    if not rig.keyed:
        verdicts += targets.fit_target(rows)
    return verdicts + [targets.time_target(*default_times(rows))]


def default_times(rows: dict[str, Row]) -> tuple[float | None, float | None]:
    """(ours AUTO's export s, the bundled exporter's), None where that export failed."""
    def seconds(label: str) -> float | None:
        row = rows.get(label)
        return None if row is None or row.failed else row.export_s
    return seconds("ours AUTO"), seconds("bundled")


def warm_up(folder: Path, clock: FitClock) -> None:
    """One discarded export of each kind, so that no timed export pays first-call imports."""
    keyed_rig_scene(RIGS[0])
    for mode in (modes.Mode("bundled", "bundled"), modes.Mode("ours AUTO", "ours")):
        modes.export(mode, folder / f"warm_{mode.kind}.glb", clock)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--quick", action="store_true", help="the keyed rigs (a) only")
    parser.add_argument("--rigs", nargs="+", choices=[r.key for r in RIGS], help="only these rigs")
    parser.add_argument("--keep", action="store_true", help="keep the exported files")
    parser.add_argument("--all-fallbacks", action="store_true",
                        help="export every fallback on (c) too (each export takes minutes)")
    args = parser.parse_args()
    devpath.ensure_bpy(__file__)
    started = time.perf_counter()
    global modes, world, targets, keyed_rig
    modes = devpath.load_module("gltf_sqlerp_export_modes", ROOT / "bench" / "export_modes.py")
    world = devpath.load_module("gltf_sqlerp_keyed_world", ROOT / "bench" / "keyed_world.py")
    targets = devpath.load_module("gltf_sqlerp_export_targets", ROOT / "bench" / "export_targets.py")
    keyed_rig = devpath.load_module("gltf_sqlerp_keyed_rig", ROOT / "tools" / "keyed_rig.py")
    rigs = [r for r in RIGS if (r.key in args.rigs if args.rigs else r.quick or not args.quick)]
    peers_bin = modes.peers.ensure_peers_or_reason()
    folder = Path(tempfile.mkdtemp(prefix="gltf_sqlerp_bench_export_"))
    print(f"Blender {modes.bpy.app.version_string} (bpy module), Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs; peers: {modes.peers.pinned_peers()}.\nReproduce: python dev.py run "
          f"bench/bench_export.py {' '.join(sys.argv[1:])}".rstrip() + "\nDegrees: WORLD rotation error "
          "against Blender at 8 samples per frame; anim B: file minus the no-animation file.", flush=True)
    modes.rc.fidelity.enable_addon()
    verdicts, times = [], []
    try:
        clock = modes.FitClock()
        warm_up(folder, clock)
        for rig in rigs:
            run = RigRun(rig, folder, peers_bin, clock, RIGS[0].fallbacks if args.all_fallbacks else rig.fallbacks)
            run.run()
            verdicts.append((rig, judge(rig, run)))
            ours_s, bundled_s = default_times(run.rows)
            if ours_s is not None and bundled_s is not None:
                times.append((rig.key, ours_s, bundled_s))
            print("\n".join(f"  {v.line()}" for v in verdicts[-1][1]), flush=True)
    finally:
        modes.rc.fidelity.disable_addon()
        if args.keep:
            print(f"files kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    missed = targets.print_targets({rig.label: lines for rig, lines in verdicts},
                                   targets.median_time_target(times), "rigs")
    print(f"total {time.perf_counter() - started:.0f} s")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
