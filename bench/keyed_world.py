"""Blender's own world rotations of a keyed rig, for bench/bench_export.py (dev module, needs ``bpy``).

The keyed rigs (tools/keyed_rig.py) give each object its own action, all playing at once, so unlike
the imported clips of bench/real_clips.py no action is switched: a glTF animation of the bundled
file is compared on the objects (and their bones) whose action has the animation's name. The rest
is real_clips' machinery: the same samples (8 per frame from the action's first whole frame, or a
window of its first frames), the same world matrices from Blender, the same per-node constants
measured from the bundled file at a whole frame, the same playback of a file.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

if TYPE_CHECKING:  # loaded by path below (it needs bpy): for the annotations only
    from real_clips import Calibration, Motion, WorldError

ROOT = Path(__file__).resolve().parents[1]
rc = devpath.load_module("gltf_sqlerp_real_clips", ROOT / "bench" / "real_clips.py")
bpy = rc.bpy


@dataclass
class RigMotion:
    """Blender's motion of every animation of the bundled file, and how a file is compared to it."""
    motions: list[Motion]          # per glTF animation
    calibration: Calibration
    rate: float                    # frames per second (fps / fps_base): t = (frame - slide) / rate
    keyed_rate: float              # how the bundled exporter times its keys: fps * fps_base
    window: int | None             # frames sampled from each action's start (None: all of it)
    notes: list[str] = field(default_factory=list)

    @property
    def samples(self) -> int:
        return sum(len(m.frames) for m in self.motions)

    def error(self, document, use_fallback: bool = False, whole_frames: bool = False,
              rate: float | None = None) -> WorldError:
        """real_clips.WorldError of ``document`` (its largest world rotation error, where, problems),
        timed at ``rate`` (default: Blender's, fps / fps_base)."""
        return rc.world_error(document, self.motions, self.calibration, rate or self.rate, use_fallback,
                              whole_frames)


def _action_of(name: str):
    data = bpy.data.objects[name].animation_data
    return data.action if data is not None else None


def _moved_by(name: str, action) -> bool:
    """Object ``name`` or one above it plays ``action``: a mesh hanging on a bone (or any child of
    an animated object) moves with it, so its world rotation is compared too."""
    obj = bpy.data.objects[name]
    while obj is not None:
        if _action_of(obj.name) == action:
            return True
        obj = obj.parent
    return False


def motion_of(document, targets: list, index: int, window: int | None):
    """real_clips.Motion of animation ``index`` of the bundled file: its action's objects and
    bones as Blender plays them (None: no action of that name)."""
    spec = document.json["animations"][index]
    name = spec.get("name") or f"Animation_{index}"
    action = bpy.data.actions.get(name)
    if action is None:
        return None
    live = [t for t in targets if _moved_by(t.owner, action)]
    start, end = (float(f) for f in action.frame_range)
    if window is not None:
        end = min(end, math.floor(start + 1e-6) + window)
    frames, per_frame = rc.sample_frames(start, end)
    slide = min(0.0, float(math.floor(start + 1e-6)))  # the exporter slides negative starts to 0
    matrices = rc.sample_blender(live, frames)
    motion = rc.Motion(name, frames, per_frame, slide, live, rc.nodes.rotation_part(matrices),
                       np.abs(np.linalg.det(matrices[..., :3, :3])) > rc.SOLID)
    motion.notes += rc.check_slide(document, spec, start, slide)
    return motion


def rig_motion(bundled, window: int | None = None) -> RigMotion:
    """Sample Blender for every animation of the bundled file and calibrate against that file."""
    render = bpy.context.scene.render
    targets, missing = rc.map_targets(bundled)
    keyed_rate = render.fps * render.fps_base  # how the bundled exporter times its keys
    result = RigMotion([], rc.Calibration(), render.fps / render.fps_base, keyed_rate, window)
    if missing:
        result.notes.append(f"nodes without a Blender object or bone (not compared): {missing}")
    index = rc.file_index(bundled)
    for animation in range(len(bundled.json.get("animations", []))):
        motion = motion_of(bundled, targets, animation, window)
        if motion is None:
            result.notes.append(f"animation {animation}: no Blender action of its name, not compared")
            continue
        times = (motion.frames - motion.slide) / keyed_rate
        result.calibration.add(motion, rc.file_world(bundled, animation, times), index)
        result.motions.append(motion)
        result.notes += motion.notes
    return result
