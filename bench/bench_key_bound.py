"""How few CUBICSLERP keys a rig's rotations allow: the export's fit against the best placement found.
Figures: the CHANGELOG's key bound of the round-trip rig (not in the manual).

    python dev.py run bench/bench_key_bound.py           # rigs (1) and (2) of bench_export.py
    python dev.py run bench/bench_key_bound.py --rig 1   # one of them

The issue's key target (4x fewer keys than the bundled exporter's per-frame LINEAR sampler) asks
for at most a quarter of one key per frame. Whether a rig's motion allows that at all does not
depend on our fitter alone: every key the animator set is kept, and between two of them the curve
needs as many pieces as the motion asks for. This script counts them, per channel of a default
export (operators.exporting.headstart.predicted_tasks: the channels, ranges and rest maps the export
fits), cutting each segment between two animator keys in three ways:

- ours: the keys the export writes (ChannelTask.fit with the default options);
- equal: the fewest equal pieces that each follow the motion;
- greedy: from the segment's start, each piece as long as still follows the motion (bisection over
  the dense check times). When a shorter piece never follows worse, no placement of the added keys
  needs fewer pieces: the greedy count is the bound for these tangents and for added keys on the
  motion (values off the motion, within the tolerance, are not tried).

A piece "follows the motion" when the export's own fit (core.fitting.sqlerp_fit.fit_cubicslerp) of it,
its ends on the motion, needs no key more to stay within the export's fitting tolerance (0.01 deg
x FIT_MARGIN) at every dense check time inside it (core.fitting.rotation_export.check_grid, 8 per frame);
in float64, which follows at least as well as the file's rounded keys. The allowed count is the
bundled exporter's keys (one per frame of each channel's range) divided by 4.
"""

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

if TYPE_CHECKING:  # core's, imported in main() (after ensure_bpy)
    from gltf_sqlerp.core.fitting.sqlerp_fit import fit_cubicslerp

ROOT = Path(__file__).resolve().parents[1]
RIGS = {  # keyed_rig.build() arguments of bench_export.py's rigs (1) and (2)
    "1": ("(1) round trip: 4 bones + 2 empties, 12 keys, <=100 deg", {}),
    "2": ("(2) animator: 20 bones + 2 empties, 60 keys, <=30 deg",
          dict(bones=20, objects=2, keys=60, max_turn_deg=30.0)),
}
KEY_RATIO_TARGET = 4.0


class Channel:
    """One channel's motion on its dense check times, and the pieces that follow it."""

    def __init__(self, task, tolerance_deg):
        self.target, self.tolerance_deg = task.target, tolerance_deg
        key_frames, check_frames = task.frames()
        self.key_times, self.check_times = self._seconds(key_frames), self._seconds(check_frames)
        self.expected = self.target(self.check_times)

    def _seconds(self, frames):
        return (frames - self.target.slide) / self.target.rate

    def follows(self, start, end):
        """Whether one CUBICSLERP segment from ``start`` to ``end`` (seconds) follows the motion:
        the export's fit of it, allowed no key more (float64 keys: they follow at least as well
        as the file's rounded ones, so the count stays a bound)."""
        try:
            fit_cubicslerp(self.target, [start, end], self.check_times, tolerance_deg=self.tolerance_deg,
                           max_keys=2, check_values=self.expected)
        except ValueError:
            return False
        return True

    def equal_pieces(self, start, end, most=64):
        count = 1
        while count < most:
            cuts = np.linspace(start, end, count + 1)
            if all(self.follows(a, b) for a, b in zip(cuts[:-1], cuts[1:])):
                break
            count += 1
        return count

    def greedy_pieces(self, start, end):
        grid = self.check_times[(self.check_times > start) & (self.check_times <= end)]
        count = 0
        while True:
            count += 1
            if self.follows(start, end):
                return count
            low, high = np.searchsorted(grid, start, side="right"), len(grid) - 2
            best = low  # a piece of one check step: the shortest cut the grid offers
            while low <= high:
                middle = (low + high) // 2
                if self.follows(start, grid[middle]):
                    best, low = middle, middle + 1
                else:
                    high = middle - 1
            start = grid[best]

    def counts(self):
        """(equal, greedy) keys of the channel: its animator keys plus the added ones."""
        segments = list(zip(self.key_times[:-1], self.key_times[1:]))
        equal = 1 + sum(self.equal_pieces(a, b) for a, b in segments)
        greedy = 1 + sum(self.greedy_pieces(a, b) for a, b in segments)
        return equal, greedy


def measure(bpy, keyed_rig, fidelity, label, build_args):
    from gltf_sqlerp.core.fitting.rotation_export import FIT_MARGIN, ExportOptions
    from gltf_sqlerp.operators.exporting.headstart import predicted_tasks
    fidelity.reset_scene()
    keyed_rig.build(**build_args)
    scene = bpy.context.scene
    options = ExportOptions(fallback="NONE")
    total = dict(animator=0, bundled=0, ours=0, equal=0, greedy=0)
    for _, task in predicted_tasks(scene, scene.render.fps / scene.render.fps_base):
        channel = Channel(task, options.tolerance_deg * FIT_MARGIN)
        equal, greedy = channel.counts()
        total["animator"] += len(channel.key_times)
        total["bundled"] += int(np.floor(task.end) - np.ceil(task.start)) + 1
        written = task.fit(options)
        if written.fit is None:  # the counts below compare CUBICSLERP keys only
            raise RuntimeError(f"a channel got no CUBICSLERP fit: {written.skipped or 'LINEAR keys'}")
        total["ours"] += len(written.fit.times)
        total["equal"] += equal
        total["greedy"] += greedy
    allowed = total["bundled"] / KEY_RATIO_TARGET
    print(f"\n{label}\n  animator keys {total['animator']:,}; bundled per-frame keys {total['bundled']:,}, "
          f"a {KEY_RATIO_TARGET:g}x target allows {allowed:,.0f}")
    for name in ("ours", "equal", "greedy"):
        print(f"  {name:<7}{total[name]:>8,} keys  {total['bundled'] / total[name]:5.2f}x fewer than bundled"
              f"  {total[name] / total['animator']:5.2f} per animator key")
    return total


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--rig", choices=sorted(RIGS), action="append", help="a rig (default: all)")
    args = parser.parse_args()
    devpath.ensure_bpy(__file__)
    started = time.perf_counter()
    fidelity = devpath.load_module("gltf_sqlerp_fidelity", ROOT / "tools" / "fidelity.py")
    keyed_rig = devpath.load_module("gltf_sqlerp_keyed_rig", ROOT / "tools" / "keyed_rig.py")
    global fit_cubicslerp
    from gltf_sqlerp.core.fitting.sqlerp_fit import fit_cubicslerp
    bpy = fidelity.bpy
    print("CUBICSLERP keys at the export's tolerance, the animator's keys kept (see the docstring).")
    for name in args.rig or sorted(RIGS):
        measure(bpy, keyed_rig, fidelity, *RIGS[name])
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
