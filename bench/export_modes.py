"""The exports of bench/bench_export.py and what each written file holds (dev module, needs ``bpy``).

A mode is one file of the current scene: Blender's bundled exporter alone ("bundled"), the same
without animation ("no animation": the baseline that animation bytes subtract), ours
(``export_scene.gltf_sqlerp`` with a fallback and, for "ours at a peer's error", tolerances), or a
peer applied to the bundled file (bench/export_peers.py's pinned gltfpack and glTF-Transform).
Each file is then read back with the add-on's core and measured against Blender (keyed_world).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
rc = devpath.load_module("gltf_sqlerp_real_clips", ROOT / "bench" / "real_clips.py")
peers = devpath.load_module("gltf_sqlerp_export_peers", ROOT / "bench" / "export_peers.py")
bpy = rc.bpy
EXTENSION = "EXT_animation_sqlerp"
# export_properties' limits: a peer's error beyond them is asked for at the limit (a tighter
# tolerance than the peer's error: never in our favour).
TOLERANCE_RANGE, FALLBACK_TOLERANCE_RANGE = (0.0001, 10.0), (0.001, 10.0)
_T = TypeVar("_T")


@dataclass(frozen=True)
class Mode:
    label: str
    kind: str                              # "bundled", "no animation", "ours" or a peer's label
    fallback: str = "AUTO"
    tolerance: float | None = None         # degrees; None: the operator's default
    fallback_tolerance: float | None = None

    @property
    def ours(self) -> bool:
        return self.kind == "ours"


@dataclass
class Row:
    mode: Mode
    ext_channels: int = 0
    rot_channels: int = 0
    keys: int = 0               # rotation keys a viewer with the extension plays
    core_keys: int = 0          # rotation keys a viewer without it plays (ours: the fallback)
    file_bytes: int = 0
    anim_bytes: int = 0         # file bytes minus the no-animation file's
    max_deg: float | None = None
    fallback_max_deg: float | None = None
    worst: str = ""
    export_s: float = 0.0
    fit_s: float | None = None  # ours: the add-on's time on Blender's thread
    summary: str = ""           # ours: the export's own summary line
    # ours: the export's own world maxima (extension, fallback)
    reported: tuple[float | None, float | None] = (None, None)
    failed: str = ""
    problems: list[str] = field(default_factory=list)


class FitClock:
    """The add-on's work on Blender's thread during an export: operators.exporting.fitting.prepare
    (reads the keys at the export's start, hands predicted channels to the workers) and
    operators.exporting.rotations.rewrite (takes, checks and writes the fits after the bundled
    exporter gathered), both wrapped with one timer (only in this process, for this benchmark)."""

    def __init__(self):
        from gltf_sqlerp.operators.exporting import fitting as export_fitting, rotations as export_rotations
        self.seconds = 0.0
        # export_outcome.bundled_rewrite imports export_rotations.rewrite at each export.
        export_rotations.rewrite = self._timed(export_rotations.rewrite)
        export_fitting.prepare = self._timed(export_fitting.prepare)

    def _timed(self, original):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
        return timed


def export(mode: Mode, path: Path, clock: FitClock) -> Row:
    """One Blender export of the current scene in ``mode`` (from the scene's first frame, so that
    every mode starts from the same pose); the row's time, fit time and the export's own report."""
    from gltf_sqlerp.operators.exporting import session as export_session
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    scene.gltf_sqlerp_export.enabled = mode.ours
    if mode.kind == "bundled":
        call = lambda: bpy.ops.export_scene.gltf(filepath=str(path), export_format='GLB')  # noqa: E731
    elif mode.kind == "no animation":
        call = lambda: bpy.ops.export_scene.gltf(filepath=str(path), export_format='GLB',  # noqa: E731
                                                 export_animations=False)
    else:
        options = ours_options(mode)
        call = lambda: bpy.ops.export_scene.gltf_sqlerp(filepath=str(path), **options)  # noqa: E731
    row, clock.seconds = Row(mode), 0.0
    start = time.perf_counter()
    result = devpath.quiet(call)
    row.export_s = time.perf_counter() - start
    if result != {'FINISHED'} or not path.is_file():
        raise RuntimeError(f"the export returned {result}")
    if mode.ours:
        outcome = export_session.last_outcome
        row.fit_s, row.summary = clock.seconds, export_session.summary(outcome)
        if outcome is not None and not outcome.error:
            row.reported = (outcome.world_error_deg, outcome.fallback_world_error_deg)
    return row


def ours_options(mode: Mode) -> dict[str, str | float]:
    """export_scene.gltf_sqlerp's arguments for ``mode`` (tolerances held in the setting's range)."""
    options: dict[str, str | float] = {"fallback": mode.fallback}
    if mode.tolerance is not None:
        options["tolerance"] = min(max(mode.tolerance, TOLERANCE_RANGE[0]), TOLERANCE_RANGE[1])
    if mode.fallback_tolerance is not None:
        low, high = FALLBACK_TOLERANCE_RANGE
        options["fallback_tolerance"] = min(max(mode.fallback_tolerance, low), high)
    return options


def run_peer(bin_dir: Path, label: str, source: Path, output: Path) -> Row:
    """One peer on the bundled file; raises RuntimeError with the peer's message."""
    row = Row(Mode(label, label))
    start = time.perf_counter()
    peers.run_peer(bin_dir, label, source, output)
    row.export_s = time.perf_counter() - start
    return row


def count_rotations(document, row: Row) -> None:
    """Rotation channels and the keys each kind of viewer plays: with the extension its
    CUBICSLERP sampler where a channel has one, else the core sampler; without it the core
    samplers of every channel (ours: the fallback, or a LINEAR channel written alone)."""
    accessors = document.json.get("accessors", [])
    for animation in document.json.get("animations", []):
        samplers = animation["samplers"]
        for channel in (c for c in animation["channels"] if c["target"].get("path") == "rotation"):
            core = accessors[samplers[channel["sampler"]]["input"]]["count"]
            extension = channel.get("extensions", {}).get(EXTENSION)
            row.rot_channels += 1
            row.core_keys += core
            if extension is None:
                row.keys += core
            else:
                row.ext_channels += 1
                row.keys += accessors[samplers[extension["sampler"]]["input"]]["count"]


def measure(row: Row, path: Path, world, baseline: int) -> Row:
    """Fill ``row`` from its written file: keys, bytes, world errors (keyed_world.RigMotion
    ``world``); ours' fallback too, except NONE's one-key placeholder (meaningless)."""
    try:
        document = rc.core.load(str(path))
    except Exception as error:  # noqa: BLE001 - a file that does not read back is the row's failure
        row.failed = f"core.load: {' '.join(str(error).split())[:300]}"
        return row
    row.file_bytes = path.stat().st_size
    row.anim_bytes = row.file_bytes - baseline
    count_rotations(document, row)
    played = world.error(document)
    row.max_deg, row.worst, row.problems = played.max_deg, played.worst, played.problems
    if row.mode.ours and row.mode.fallback != "NONE":
        fallback = world.error(document, use_fallback=True)
        row.fallback_max_deg = fallback.max_deg
        row.worst += f"; fb {fallback.worst}"
    return row


def attempt(action: Callable[[], _T]) -> tuple[_T | None, str]:
    """(``action()``, '') or (None, its error in one line): a failed mode is a row, not the end."""
    try:
        return action(), ""
    except Exception as error:  # noqa: BLE001
        return None, f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
