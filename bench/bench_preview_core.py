"""Cost of posing a rig from the core evaluator: one PosePlayer.at() call per frame change.
Figures of docs/manual/benchmarks.md: "The core player alone" (Benchmarks, after the live preview table).

    python bench/bench_preview_core.py           # numpy core only, current interpreter
    python bench/bench_preview_core.py --strict  # exit 1 when the target is missed

100 rotation channels x 1,000 keys at uneven times, different per channel: half LINEAR (slerp),
half CUBICSLERP with time-aware tangents, each mapped by a rotation matrix (w, x, y, z order, as
a pose bone's). at() is timed at query times spread over the clip and 2% past each end. Target:
<= 150 microseconds per call (issue 4: preview <= 1 ms per frame on a 100-bone rig).
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

CHANNELS = 100
KEYS = 1_000
CALLS = 20_000
REPEATS = 5
TARGET_US = 150.0
DENSE = 100_000


def import_package():
    devpath.import_package()
    from gltf_sqlerp.core.sampling import pose_player, quaternions
    return pose_player, quaternions


def make_channel(pose_player, quat, rng, interpolation):
    """A smooth random rotation walk (~29 degree steps) at uneven times; CUBICSLERP gets the
    time-aware control points of spec "Tangents a writer starts from" as both tangents."""
    increments = quat.exp(rng.normal(0.0, 0.25, (KEYS, 3)))
    keys = np.empty((KEYS, 4))
    keys[0] = quat.exp(rng.normal(0.0, 1.0, 3))
    for i in range(1, KEYS):                                    # set-up only, not timed
        keys[i] = quat.multiply(keys[i - 1], increments[i])
    keys = quat.make_continuous(keys)
    times = np.cumsum(rng.uniform(0.02, 0.06, KEYS))
    values = keys
    if interpolation == "CUBICSLERP":
        s = quat.control_points(times, keys)
        values = np.stack([s, keys, s], axis=1).reshape(-1, 4)
    # glTF (x, y, z, w) to Blender (w, x, y, z), then a fixed rest rotation on the left.
    order = np.eye(4)[[3, 0, 1, 2]]
    w, x, y, z = np.roll(quat.exp(rng.normal(0.0, 1.0, 3)), 1)
    left = np.array([[w, -x, -y, -z], [x, w, -z, y], [y, z, w, -x], [z, -y, x, w]])
    return pose_player.PlayerChannel(interpolation, times, values, "rotation", left @ order,
                                     np.zeros(4))


def time_calls(player, queries):
    """Microseconds per at() call, best of REPEATS passes over the query times."""
    best = float("inf")
    for _ in range(REPEATS):
        at = player.at
        start = time.perf_counter()
        for q in queries:
            at(q)
        best = min(best, (time.perf_counter() - start) / len(queries))
    return best * 1e6


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args()

    pose_player, quat = import_package()
    rng = np.random.default_rng(2024)
    channels = [make_channel(pose_player, quat, rng, "LINEAR" if i % 2 else "CUBICSLERP")
                for i in range(CHANNELS)]
    start = time.perf_counter()
    player = pose_player.PosePlayer(channels)
    setup = time.perf_counter() - start
    first = min(c.times[0] for c in channels)
    last = max(c.times[-1] for c in channels)
    span = last - first
    queries = rng.uniform(first - 0.02 * span, last + 0.02 * span, CALLS).tolist()

    print(f"Python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs; "
          f"{CHANNELS} channels x {KEYS:,} keys (half LINEAR slerp, half CUBICSLERP), "
          f"set-up {setup * 1e3:.0f} ms")
    per_call = time_calls(player, queries)
    missed = per_call > TARGET_US
    print(f"at(), random times (scrubbing): {per_call:.1f} us per call (best of {REPEATS} x "
          f"{CALLS:,} calls; target <= {TARGET_US:.0f} us): {'met' if not missed else 'MISSED'}")
    frames = (first + np.arange(CALLS) / 24.0 % span).tolist()
    print(f"at(), consecutive frames at 24 fps (playback): {time_calls(player, frames):.1f} us "
          f"per call")

    dense = np.linspace(first, last, DENSE // CHANNELS * 10)
    start = time.perf_counter()
    player.over(dense)
    seconds = time.perf_counter() - start
    samples = len(dense) * CHANNELS
    print(f"over(): {len(dense):,} times x {CHANNELS} channels in {seconds * 1e3:.1f} ms "
          f"= {samples / seconds / 1e6:.2f} M channel samples/s")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
