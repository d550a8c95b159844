"""Export size, fidelity and time: Blender's bundled glTF exporter alone against ``export_scene.gltf_sqlerp``.

    python dev.py run bench/bench_export.py            # re-runs itself under the project venv if bpy is missing
    python dev.py run bench/bench_export.py --strict   # exit 1 when a target is missed
    python dev.py run bench/bench_export.py --quick    # the two small rigs only

Rigs (tools/keyed_rig.py: Bezier keys every 4-12 frames, every rotation mode, 24 fps):
(1) the round-trip rig of the export tests (its defaults: 4 bones + 2 empties, 12 keys, turns up to
100 degrees between keys); (2) an animator's rig: 20 bones + 2 empties, 60 keys, turns up to 30
degrees; (3) the fitting-speed rig: 100 bones x 1,000 keys, turns up to 30 degrees.

Modes, each one export of the same scene in the same run: the bundled exporter alone (the add-on's
export switched off: per-frame LINEAR rotation keys), and ours with each fallback (LINEAR,
SAMPLED, CUBICSPLINE, NONE). Per mode: rotation keys and rotation sampler bytes (per rotation
channel, the sampler's input accessor bytes + output accessor bytes, summed; ours: the CUBICSLERP
sampler, and separately the fallback; the bundled exporter shares one input accessor among an
action's channels, so the targets line also gives the byte ratio with each accessor counted once),
the .glb's size, the export's wall time and, for ours, the fitting time on Blender's thread
(operators.export_fitting.prepare at the export's start, which reads the keys and hands the
predicted channels to the worker processes, plus operators.export_rotations.rewrite after the
bundled exporter gathered; both timed by wrapping them in this script only) and the CPU time of
the worker processes (which fit while the bundled exporter gathers: the export's wall time against
the bundled exporter's shows what they cost).

Error, independent of our fitter: Blender itself is sampled with scene.frame_set(frame, subframe)
at 8 samples per frame over each node's action range (rig 3: its first 200 frames only), and each
node's LOCAL rotation is taken from Blender's world matrices (bones: parent world^-1 @ bone world,
bone world = armature.matrix_world @ pose_bone.matrix, the root's parent being the armature object;
empties: matrix_world). The file is played with the add-on's core (channel.evaluate, glTF time
t = (frame - slide) / fps, slide = the action's first frame when it is negative, as the bundled
exporter slides it to 0). glTF and Blender differ by constants per node: a bone's glTF rotation is
L * blender_local (L the exporter's rest correction), an object's is L * blender_local * X^-1 (X:
-90 degrees about X, the Y-up change, so L = X). L is measured once per node at its first sample
(a whole frame) against the bundled export, and the same L serves every mode; the error is the
angle between L * blender_local (* X^-1) and the file's rotation, max and RMS over all nodes and
samples. Sanity check printed per rig: the bundled per-frame LINEAR at whole frames (its keys)
must be ~0.

Targets, per rig, the CUBICSLERP sampler against the bundled per-frame LINEAR sampler: at least
4x fewer keys and 2x fewer bytes, with a lower maximum error; and fitting 100 bones x 1,000 keys
in under 2 s of the export's time (Blender's thread). How many keys a rig's motion allows once the
animator's keys are kept: bench_key_bound.py (rig (1)'s turns: at most 3.23x fewer). The bpy
module of Blender 4.2 crashes at exit after a glTF export: the script ends with os._exit.
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
import devpath  # noqa: E402  (tools/devpath.py: how dev scripts import this repository)

ROOT = Path(__file__).resolve().parents[1]
PER_FRAME = 8
FALLBACKS = ("LINEAR", "SAMPLED", "CUBICSPLINE", "NONE")
MODES = ("bundled",) + FALLBACKS
X_INV = np.array([np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])  # X^-1: +90 degrees about X (x, y, z, w)
KEY_RATIO_TARGET, BYTE_RATIO_TARGET, FIT_SECONDS_TARGET = 4.0, 2.0, 2.0
EXTENSION = "EXT_animation_sqlerp"
quat = None  # gltf_sqlerp.core.quaternions, imported in main() (after ensure_bpy)
RIGS = [  # label, keyed_rig.build() arguments, frames sampled for the error (None: all)
    ("(1) round trip: 4 bones + 2 empties, 12 keys, <=100 deg", {}, None),
    ("(2) animator: 20 bones + 2 empties, 60 keys, <=30 deg",
     dict(bones=20, objects=2, keys=60, max_turn_deg=30.0), None),
    ("(3) speed: 100 bones x 1,000 keys, <=30 deg",
     dict(bones=100, objects=0, keys=1000, max_turn_deg=30.0), 200),
]


@dataclass
class Row:
    mode: str
    keys: int = 0
    fallback_keys: int = 0
    sampler_bytes: int = 0
    fallback_bytes: int = 0
    file_bytes: int = 0
    max_deg: float = 0.0
    rms_deg: float = 0.0
    fallback_max_deg: float = 0.0
    fallback_rms_deg: float = 0.0
    export_s: float = 0.0
    fit_s: float = 0.0
    workers_s: float = 0.0
    distinct_bytes: int = 0
    failed: str = ""


# --- Blender's own motion --------------------------------------------------------------------------

def node_ranges(bpy):
    """{name: (first frame, last frame, slide, is_object)} of every animated bone and empty."""
    ranges = {}
    for obj in bpy.context.scene.objects:
        action = obj.animation_data.action if obj.animation_data else None
        if action is None:
            continue
        first, last = (float(f) for f in action.frame_range)
        slide = min(0.0, first)
        if obj.type == 'ARMATURE':
            ranges.update({b.name: (first, last, slide, False) for b in obj.pose.bones})
        else:
            ranges[obj.name] = (first, last, slide, True)
    return ranges


def local_rotations(bpy):
    """{name: (w, x, y, z)} local rotation of every bone and empty at the current frame."""
    result = {}
    for obj in bpy.context.scene.objects:
        world = obj.matrix_world
        if obj.type == 'ARMATURE':
            for bone in obj.pose.bones:
                parent = world @ bone.parent.matrix if bone.parent else world
                result[bone.name] = (parent.inverted() @ (world @ bone.matrix)).to_quaternion()
        elif obj.type == 'EMPTY':
            result[obj.name] = world.to_quaternion()
    return result


def sample_blender(bpy, ranges, window):
    """(frames, {name: (len(frames), 4) x, y, z, w}): Blender's local rotations at 8 samples per
    frame from the earliest action start to the latest end (or ``window`` frames from the start)."""
    start = min(r[0] for r in ranges.values())
    end = max(r[1] for r in ranges.values())
    end = min(end, start + window) if window else end
    frames = start + np.arange(int(round((end - start) * PER_FRAME)) + 1) / PER_FRAME
    scene, rows = bpy.context.scene, {name: [] for name in ranges}
    for frame in frames:
        whole = int(np.floor(frame))
        scene.frame_set(whole, subframe=float(frame - whole))
        for name, q in local_rotations(bpy).items():
            if name in rows:
                rows[name].append((q.x, q.y, q.z, q.w))
    return frames, {name: np.array(values) for name, values in rows.items()}


# --- the exported file -----------------------------------------------------------------------------

def accessor_bytes(document, index):
    accessor = document.json["accessors"][index]
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[accessor["type"]]
    size = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}[accessor["componentType"]]
    return accessor["count"] * width * size


def sampler_size(document, animation, sampler_index):
    """(keys, input bytes + output bytes) of one sampler."""
    sampler = animation["samplers"][sampler_index]
    keys = document.json["accessors"][sampler["input"]]["count"]
    return keys, accessor_bytes(document, sampler["input"]) + accessor_bytes(document, sampler["output"])


def count_samplers(document, row):
    """Keys and bytes of every rotation channel's samplers: ``row.keys``/``sampler_bytes`` for the
    sampler played by default (CUBICSLERP for ours), ``fallback_*`` for ours' core sampler;
    ``row.distinct_bytes``: the default samplers' accessors counted once each (the bundled exporter
    shares one input accessor among an action's channels)."""
    distinct = set()
    for animation in document.json.get("animations", []):
        for channel in animation["channels"]:
            if channel["target"].get("path") != "rotation":
                continue
            core_keys, core_bytes = sampler_size(document, animation, channel["sampler"])
            extension = channel.get("extensions", {}).get(EXTENSION)
            played = animation["samplers"][(extension or channel)["sampler"]]
            distinct.update((played["input"], played["output"]))
            if extension is None:
                row.keys, row.sampler_bytes = row.keys + core_keys, row.sampler_bytes + core_bytes
                continue
            keys, size = sampler_size(document, animation, extension["sampler"])
            row.keys, row.sampler_bytes = row.keys + keys, row.sampler_bytes + size
            row.fallback_keys += core_keys
            row.fallback_bytes += core_bytes
    row.distinct_bytes = sum(accessor_bytes(document, index) for index in distinct)


def rotation_channels(document):
    """{node name: channel} of every rotation channel."""
    nodes = document.json["nodes"]
    return {nodes[c.node].get("name"): c for a in document.animations for c in a.channels
            if c.path == "rotation"}


class Motion:
    """Blender's sampled local rotations of one rig and the per-node constants L."""

    def __init__(self, frames, rotations, ranges, rate):
        self.frames, self.rotations, self.ranges, self.rate = frames, rotations, ranges, rate
        self.offsets = {}

    def node(self, name):
        """(mask of self.frames, glTF times, Blender rotation (* X^-1 for objects)) of one node."""
        first, last, slide, is_object = self.ranges[name]
        mask = (self.frames >= first - 1e-9) & (self.frames <= last + 1e-9)
        blender = self.rotations[name][mask]
        if is_object:
            blender = quat.multiply(blender, X_INV)
        return mask, (self.frames[mask] - slide) / self.rate, blender

    def calibrate(self, document):
        """L per node, at its first sample, against the bundled export."""
        for name, channel in rotation_channels(document).items():
            if name in self.ranges:
                _, times, blender = self.node(name)
                played = channel.evaluate(times[:1])
                self.offsets[name] = quat.multiply(played[0], quat.conjugate(blender[0]))

    def errors(self, document, use_fallback=False, whole_frames_only=False):
        """Angles (degrees) between the file and Blender, all nodes and samples in one array."""
        angles = []
        for name, channel in rotation_channels(document).items():
            if name not in self.offsets:
                continue
            mask, times, blender = self.node(name)
            if whole_frames_only:
                whole = np.isclose(self.frames[mask], np.round(self.frames[mask]))
                times, blender = times[whole], blender[whole]
            played = channel.evaluate(times, use_fallback=use_fallback)
            angles.append(quat.angle_between(quat.multiply(self.offsets[name], blender), played))
        return np.concatenate(angles) if angles else np.zeros(1)


def max_rms(angles):
    return float(angles.max()), float(np.sqrt(np.mean(angles ** 2)))


# --- exports ----------------------------------------------------------------------------------------

class FitClock:
    """Wraps operators.export_fitting.prepare and operators.export_rotations.rewrite (and
    export_hook's imported name) with one timer."""

    def __init__(self):
        from gltf_sqlerp.operators import export_fitting, export_hook, export_rotations
        self.seconds = 0.0
        export_rotations.rewrite = export_hook.rewrite = self.timed(export_rotations.rewrite)
        export_fitting.prepare = self.timed(export_fitting.prepare)

    def timed(self, original):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
        return timed


def children_cpu_seconds():
    """CPU seconds of this process's ended child processes (the fit workers, once stopped)."""
    times = os.times()
    return times.children_user + times.children_system


def export(bpy, mode, path, clock):
    """One export of the current scene; returns (seconds, fitting seconds, workers' CPU seconds)."""
    scene = bpy.context.scene
    scene.gltf_sqlerp_export.enabled = mode != "bundled"
    clock.seconds, workers = 0.0, children_cpu_seconds()
    start = time.perf_counter()
    if mode == "bundled":
        result = devpath.quiet(lambda: bpy.ops.export_scene.gltf(filepath=str(path), export_format='GLB'))
    else:
        result = devpath.quiet(lambda: bpy.ops.export_scene.gltf_sqlerp(filepath=str(path), fallback=mode))
    seconds = time.perf_counter() - start
    if result != {'FINISHED'} or not path.is_file():
        raise RuntimeError(f"the export returned {result}")
    return seconds, clock.seconds, children_cpu_seconds() - workers


def measure_mode(bpy, core, motion, mode, path, clock):
    row = Row(mode)
    try:
        row.export_s, row.fit_s, row.workers_s = export(bpy, mode, path, clock)
        document = core.load(str(path))
    except Exception as error:  # noqa: BLE001 - a failed mode is a row of the table, not the end
        row.failed = f"{type(error).__name__}: {str(error).strip()[:200]}"
        return row, None
    row.file_bytes = path.stat().st_size
    count_samplers(document, row)
    if mode == "bundled":
        motion.calibrate(document)
    row.max_deg, row.rms_deg = max_rms(motion.errors(document))
    if mode != "bundled":
        row.fallback_max_deg, row.fallback_rms_deg = max_rms(motion.errors(document, use_fallback=True))
    return row, document


# --- report -------------------------------------------------------------------------------------------

HEADER = (f"{'mode':<17}{'keys':>9}{'fb keys':>9}{'bytes':>11}{'fb bytes':>11}{'file':>11}"
          f"{'max°':>9}{'rms°':>9}{'fb max°':>9}{'fb rms°':>9}{'export s':>10}{'fit s':>8}{'cpu s':>7}")


def format_row(row):
    if row.failed:
        return f"{row.mode:<17}FAILED: {row.failed}"
    ours = row.mode != "bundled"
    mode = "bundled" if not ours else f"ours {row.mode}"
    fb = (lambda text: text if ours else "-")
    return (f"{mode:<17}{row.keys:>9,}{fb(f'{row.fallback_keys:,}'):>9}{row.sampler_bytes:>11,}"
            f"{fb(f'{row.fallback_bytes:,}'):>11}{row.file_bytes:>11,}{row.max_deg:>9.4f}{row.rms_deg:>9.4f}"
            f"{fb(f'{row.fallback_max_deg:.4f}'):>9}{fb(f'{row.fallback_rms_deg:.4f}'):>9}"
            f"{row.export_s:>10.2f}{fb(f'{row.fit_s:.2f}'):>8}{fb(f'{row.workers_s:.1f}'):>7}")


def verdict(label, rows):
    """The targets line of one rig (the CUBICSLERP sampler of the LINEAR-fallback export)."""
    bundled, ours = rows.get("bundled"), rows.get("LINEAR")
    if bundled is None or ours is None or bundled.failed or ours.failed:
        return f"{label}: cannot compare (an export failed)", False
    key_ratio, byte_ratio = bundled.keys / ours.keys, bundled.sampler_bytes / ours.sampler_bytes
    met = (key_ratio >= KEY_RATIO_TARGET and byte_ratio >= BYTE_RATIO_TARGET
           and ours.max_deg < bundled.max_deg)
    distinct_ratio = bundled.distinct_bytes / ours.distinct_bytes
    # Whether the motion allows the key target at all: bench_key_bound.py.
    bound = "" if key_ratio >= KEY_RATIO_TARGET else "; the motion's bound: bench_key_bound.py"
    return (f"{label}: keys {key_ratio:.2f}x fewer (>= {KEY_RATIO_TARGET:g}x{bound}), bytes {byte_ratio:.2f}x "
            f"fewer (>= {BYTE_RATIO_TARGET:g}x; shared accessors counted once: {distinct_ratio:.2f}x), max error {ours.max_deg:.4f}° vs {bundled.max_deg:.4f}° "
            f"(lower): {'MET' if met else 'MISSED'}"), met


def run_rig(bpy, core, keyed_rig, fidelity, folder, index, label, build_args, window, clock):
    fidelity.reset_scene()
    keyed_rig.build(**build_args)
    ranges = node_ranges(bpy)
    frames, rotations = sample_blender(bpy, ranges, window)
    motion = Motion(frames, rotations, ranges, bpy.context.scene.render.fps / bpy.context.scene.render.fps_base)
    where = f"frames {frames[0]:g} to {frames[-1]:g}" + (f" (first {window} only)" if window else "")
    print(f"\n{label}\n  error samples: {len(frames)} at {PER_FRAME} per frame, {where}\n{HEADER}", flush=True)
    rows = {}
    for mode in MODES:
        row, document = measure_mode(bpy, core, motion, mode, folder / f"rig{index}_{mode}.glb", clock)
        rows[mode] = row
        print(format_row(row), flush=True)
        if mode == "bundled" and document is not None:
            whole, _ = max_rms(motion.errors(document, whole_frames_only=True))
            print(f"  sanity: bundled per-frame LINEAR at whole frames (its keys): max {whole:.2e}°", flush=True)
    return rows


def warm_up(bpy, keyed_rig, fidelity, folder, clock):
    """One discarded export of each kind, so that neither timing pays first-call imports."""
    fidelity.reset_scene()
    keyed_rig.build()
    for mode in ("bundled", "LINEAR"):
        export(bpy, mode, folder / f"warm_{mode}.glb", clock)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--quick", action="store_true", help="the two small rigs only")
    args = parser.parse_args()
    devpath.ensure_bpy(__file__)
    started = time.perf_counter()
    fidelity = devpath.load_module("gltf_sqlerp_fidelity", ROOT / "tools" / "fidelity.py")
    keyed_rig = devpath.load_module("gltf_sqlerp_keyed_rig", ROOT / "tools" / "keyed_rig.py")
    global quat
    from gltf_sqlerp import core
    from gltf_sqlerp.core import quaternions as quat
    bpy = fidelity.bpy
    folder = Path(tempfile.mkdtemp(prefix="gltf_sqlerp_bench_export_"))
    fidelity.enable_addon()
    clock = FitClock()
    print(f"Blender {bpy.app.version_string} (bpy module), Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs; one export per mode after a warm-up. keys / bytes: rotation samplers "
          "(bundled: per-frame LINEAR; ours: CUBICSLERP), fb: our fallback; file: the .glb; errors in "
          "degrees against Blender's local rotations at 8 samples per frame.")
    missed = []
    try:
        warm_up(bpy, keyed_rig, fidelity, folder, clock)
        verdicts = []
        for index, (label, build_args, window) in enumerate(RIGS[:2] if args.quick else RIGS, 1):
            rows = run_rig(bpy, core, keyed_rig, fidelity, folder, index, label, build_args, window, clock)
            verdicts.append(verdict(label, rows))
            if build_args.get("keys") == 1000 and not rows["LINEAR"].failed:
                ours, bundled = rows["LINEAR"], rows["bundled"]
                fit = ours.fit_s
                alone = "" if rows["NONE"].failed else f"; the CUBICSLERP fit alone (NONE) {rows['NONE'].fit_s:.2f} s"
                verdicts.append((f"{label}: fitting {fit:.2f} s of the export on Blender's thread with the "
                                 f"LINEAR fallback{alone} (< {FIT_SECONDS_TARGET:g} s; the workers' "
                                 f"{ours.workers_s:.1f} CPU s ran while the bundled exporter gathered: "
                                 f"export {ours.export_s:.1f} s against its {bundled.export_s:.1f} s alone): "
                                 + ("MET" if fit < FIT_SECONDS_TARGET else "MISSED"), fit < FIT_SECONDS_TARGET))
    finally:
        fidelity.disable_addon()
    print("\ntargets (CUBICSLERP of the LINEAR-fallback export against the bundled per-frame LINEAR):")
    for text, met in verdicts:
        print("  " + text)
        missed += [] if met else [text]
    print(f"total {time.perf_counter() - started:.0f} s")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
