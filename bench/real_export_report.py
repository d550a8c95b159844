"""How bench/bench_real_export.py prints a clip's rows: one line per mode, in these columns.

Columns: ext/rot: rotation channels with an EXT_animation_sqlerp sampler / all rotation channels.
rot keys: the summed input counts of the samplers the rotation channels play (ours: the CUBICSLERP
sampler where a channel has the extension, else its core sampler); fb keys: ours' core samplers
behind the extension (the fallback). file B: the .glb's bytes. anim B: file bytes minus the "no
animation" file's bytes; the peers' too subtract that same file, so gltfpack's figure also holds
what its mesh quantization saved (a note line gives each peer applied to the no-animation file).
bundled/this: the bundled exporter's animation bytes over this row's. time/bundled: this row's export
s over the bundled exporter's; export s: the export's wall time (peers: their tool's alone, on the
bundled file; the bundled exporter's has a line under the rows). max deg: the largest WORLD
rotation error over every object and bone, every animation and every sample (the project's rule: a
rotation tolerance bounds the world rotation of every bone and object at >= 8 samples per frame);
fb max deg: the same with the fallback played (ours NONE's is the one-key STEP placeholder of the
required form: meaningless); worst: where the maximum is (node @frame, and the animation when there
are several; ours: then the fallback's). The bundled exporter's error at 8 samples per frame is its
row's max deg. Under each of our rows: how three.js plays the file with
viewers/three/EXT_animation_sqlerp.js, every node's quaternion at every key, key middle and 240
times a second against the core (tools/three_player.py; needs the npm packages `python dev.py
test` installs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # bench_real_export.py loads this module by path; here for the annotations only
    from bench_real_export import Row

# The clip column fits the longest model name (AnimatedMorphSphere) and a space.
CLIP_WIDTH = 21
HEADER = (f"{'clip':<{CLIP_WIDTH}}{'mode':<18}{'ext/rot':>8}{'rot keys':>10}{'fb keys':>9}{'file B':>11}{'anim B':>10}"
          f"{'bundled/this':>13}{'time/bundled':>13}{'max deg':>10}{'fb max deg':>11}{'export s':>9}  worst")


def degrees(value: float | None) -> str:
    return "-" if value is None else f"{value:.5f}" if value < 10 else f"{value:.2f}"


def ratio(bundled: int, this: int) -> str:
    return f"{bundled / this:.2f}x" if this > 0 and bundled > 0 else "n/a"


def time_ratio(row: Row, bundled: Row) -> str:
    """This row's export (peers: tool) seconds over the bundled exporter's, same run."""
    return f"{row.export_s / bundled.export_s:.2f}x" if not bundled.failed and bundled.export_s > 0 else "n/a"


def format_row(row: Row, bundled: Row) -> str:
    start = f"{row.clip:<{CLIP_WIDTH}}{row.mode:<18}"
    if row.failed:
        return f"{start}FAILED: {row.failed}"
    if row.mode == "no animation":
        return (f"{start}{'-':>8}{'-':>10}{'-':>9}{row.file_bytes:>11,}{0:>10,}{'-':>13}"
                f"{time_ratio(row, bundled):>13}{'':>21}{row.export_s:>9.2f}")
    ours = row.mode.startswith("ours")
    text = (f"{start}{f'{row.ext_channels}/{row.rot_channels}':>8}{row.keys:>10,}"
            f"{(f'{row.fallback_keys:,}' if ours else '-'):>9}{row.file_bytes:>11,}{row.anim_bytes:>10,}"
            f"{ratio(bundled.anim_bytes, row.anim_bytes) if not bundled.failed else 'n/a':>13}"
            f"{time_ratio(row, bundled):>13}{degrees(row.max_deg):>10}{degrees(row.fallback_max_deg):>11}"
            f"{row.export_s:>9.2f}  {row.worst}")
    return text + "".join(f"\n{'':<{CLIP_WIDTH + 18}}problem: {p}" for p in row.problems)
