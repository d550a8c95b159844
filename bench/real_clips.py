"""Real clips for bench/bench_real_export.py: which files, how Blender imports and plays them, and
the world rotations an exported file plays (dev module, needs the real ``bpy``; not shipped).

Conventions: rotation matrices are numpy (..., 3, 3), M[row, col]; ``AXES`` maps glTF axes to
Blender's (bundled_gltf/node_objects.py), so a file's world rotation R_g and Blender's R_b of the same
node satisfy R_g = AXES.T @ R_b @ C with one constant C per node (the exporter's bone-axis
correction; for objects the inverse axis change), measured once from the bundled exporter's file.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
# tools/fidelity.py imports bpy (with a scratch user folder) and registers the package.
fidelity = devpath.load_module("gltf_sqlerp_fidelity", ROOT / "tools" / "fidelity.py")
bpy, nodes = fidelity.bpy, fidelity.nodes
from gltf_sqlerp import core  # noqa: E402
from gltf_sqlerp.core.sampling import quaternions as quat  # noqa: E402

PER_FRAME = 8             # the project's rule: tolerances hold at >= 8 samples per frame
LONG_CLIP = 1000          # frames; only longer clips are sampled more sparsely (run time)
KEY_SNAP = 4 * float(np.finfo(np.float32).eps)  # relative: a time this close to a key is the key
SOLID = 1e-9              # |det| of a world 3x3 below this: scaled to nothing, no rotation to compare


@dataclass(frozen=True)
class ClipSource:
    name: str
    path: Path
    kind: str  # "gltf" or "bvh"


def find_clips(assets: Path) -> list[ClipSource]:
    """Every animated Khronos model (its .glb where there is one, else its .gltf) and the mocap clips."""
    clips = []
    for folder in sorted(p for p in (assets / "khronos").iterdir() if p.is_dir()):
        found = sorted((folder / "glTF-Binary").glob("*.glb")) or sorted((folder / "glTF").glob("*.gltf"))
        if found and core.load(str(found[0])).json.get("animations"):
            clips.append(ClipSource(folder.name, found[0], "gltf"))
    clips += [ClipSource(p.stem, p, "bvh") for p in sorted((assets / "mocap").glob("*.bvh"))]
    return clips


def import_clip(source: ClipSource) -> None:
    """An empty scene, then ``source`` imported with Blender's bundled importer alone."""
    scene = fidelity.reset_scene()
    # Our add-on's "Exact Animation" panel is on by default while it is enabled: switch it off so
    # that File > Import > glTF 2.0 stays the bundled importer; the preview must not pose frames.
    scene.gltf_sqlerp_import.exact_animation = False
    scene.gltf_sqlerp_preview.enabled = False
    if source.kind == "bvh":
        result = devpath.quiet(lambda: bpy.ops.import_anim.bvh(
            filepath=str(source.path), update_scene_fps=True, update_scene_duration=True,
            use_fps_scale=False))
    else:
        result = devpath.quiet(lambda: bpy.ops.import_scene.gltf(filepath=str(source.path)))
    if result != {'FINISHED'}:
        raise RuntimeError(f"import of {source.path.name} returned {result}")
    rewritten = [a.name for a in bpy.data.actions if "gltf_sqlerp" in a.keys()]
    if rewritten:  # our import hook stores its samplers on every action it rewrites
        raise RuntimeError(f"our import hook ran on {rewritten}: not the bundled import")


# --- which Blender object or bone plays each glTF node -------------------------------------------

@dataclass(frozen=True)
class Target:
    name: str              # glTF node name (= Blender object or bone name, as the exporter writes it)
    node: int              # node index in the bundled file
    owner: str             # Blender object (the armature, for a bone)
    bone: str | None = None


def map_targets(document) -> tuple[list[Target], list[str]]:
    """Targets of the named nodes of the bundled file, parents first, and the names not found.
    A node below an armature's node whose name is one of its bones is that bone."""
    armature_of: dict[int, str] = {}  # node -> the armature object above it (or itself)
    targets, missing = [], []
    scene = document.scene
    for node in (int(n) for n in scene.order):
        name = document.json["nodes"][node].get("name")
        parent = int(scene.parents[node])
        armature = armature_of.get(parent)
        obj = bpy.data.objects.get(name) if name else None
        if armature is not None and name in bpy.data.objects[armature].pose.bones:
            targets.append(Target(name, node, armature, name))
        elif obj is not None:
            targets.append(Target(name, node, obj.name))
            armature = obj.name if obj.type == 'ARMATURE' else armature
        elif name:
            missing.append(name)
        if armature is not None:
            armature_of[node] = armature
    return targets, missing


def activate(action) -> set[str]:
    """Make ``action`` play on every object whose NLA track holds it (with that strip's slot), as
    the bundled importer does for its first clip. Other animated objects lose their action and
    keep whatever pose the previous clip left: their names are returned (not comparable)."""
    stale = set()
    for obj in bpy.context.scene.objects:
        data = obj.animation_data
        if data is None:
            continue
        strip = next((s for t in data.nla_tracks for s in t.strips if s.action == action), None)
        if strip is not None:
            data.action = action
            if hasattr(strip, "action_slot"):  # 4.4+: slotted actions
                data.action_slot = strip.action_slot
        elif data.action != action:
            data.action = None
            stale.add(obj.name)
    return stale


def live_targets(document, targets: list[Target], stale: set[str]) -> list[Target]:
    """Targets whose object is driven by the clip and whose glTF ancestors are too."""
    dead = {t.node for t in targets if t.owner in stale}
    parents = document.scene.parents
    keep = []
    for target in targets:  # parents first
        if target.node in dead or int(parents[target.node]) in dead:
            dead.add(target.node)
        else:
            keep.append(target)
    return keep


# --- Blender's motion ------------------------------------------------------------------------------

@dataclass
class Motion:
    """One glTF animation of the bundled file as Blender plays its action."""
    animation: str
    frames: np.ndarray            # (S,) sample frames
    per_frame: int
    slide: float                  # the frame the exporter writes at t = 0
    targets: list[Target]
    rotations: np.ndarray         # (S, N, 3, 3) Blender world rotations, Blender axes
    solid: np.ndarray             # (S, N) bool: a rotation to compare (scale not zero)
    notes: list[str] = field(default_factory=list)


def sample_frames(start: float, end: float) -> tuple[np.ndarray, int]:
    """Every 1/PER_FRAME frame from the whole frame at or before ``start`` to ``end`` (included)."""
    first = math.floor(start + 1e-6)
    per_frame = PER_FRAME if end - first <= LONG_CLIP else max(1, int(PER_FRAME * LONG_CLIP / (end - first)))
    frames = first + np.arange(int(math.floor((end - first) * per_frame + 1e-6)) + 1) / per_frame
    return (frames if frames[-1] >= end - 1e-6 else np.append(frames, end)), per_frame


def sample_blender(targets: list[Target], frames: np.ndarray) -> np.ndarray:
    """(S, N, 4, 4) world matrices: matrix_world of objects, armature.matrix_world @ pose_bone.matrix
    of bones, with scene.frame_set(frame, subframe=...) at every sample (the one loop over frames)."""
    scene = bpy.context.scene
    armatures = sorted({t.owner for t in targets if t.bone})
    bone_rows = {t.name: bpy.data.objects[t.owner].pose.bones.find(t.bone) for t in targets if t.bone}
    out = np.empty((len(frames), len(targets), 4, 4))
    for s, frame in enumerate(frames):
        whole = math.floor(frame)
        scene.frame_set(whole, subframe=float(frame - whole))
        poses = {name: _pose_world(bpy.data.objects[name]) for name in armatures}
        for i, target in enumerate(targets):
            out[s, i] = (poses[target.owner][bone_rows[target.name]] if target.bone
                         else np.array(bpy.data.objects[target.owner].matrix_world))
    return out


def _pose_world(armature) -> np.ndarray:
    flat = np.empty(len(armature.pose.bones) * 16, dtype=np.float32)
    armature.pose.bones.foreach_get("matrix", flat)  # column-major 4x4 per bone
    return np.array(armature.matrix_world) @ flat.reshape(-1, 4, 4).transpose(0, 2, 1)


def measure_motion(document, targets: list[Target], index: int) -> Motion | None:
    """Blender's world rotations for animation ``index`` of the bundled file (None: no action)."""
    spec = document.json["animations"][index]
    name = spec.get("name") or f"Animation_{index}"
    action = bpy.data.actions.get(name) or _track_action(name)
    if action is None:
        return None
    live = live_targets(document, targets, activate(action))
    start, end = (float(f) for f in action.frame_range)
    frames, per_frame = sample_frames(start, end)
    slide = min(0.0, float(math.floor(start + 1e-6)))  # the exporter slides negative starts to 0
    matrices = sample_blender(live, frames)
    motion = Motion(name, frames, per_frame, slide, live, nodes.rotation_part(matrices),
                    np.abs(np.linalg.det(matrices[..., :3, :3])) > SOLID)
    motion.notes += check_slide(document, spec, start, slide)
    return motion


def _track_action(name: str):
    """The action in an NLA track named ``name`` (Blender 4.2 names each object's action
    ``<animation>_<object>`` and its track after the animation), or None."""
    for obj in bpy.context.scene.objects:
        data = obj.animation_data
        for track in data.nla_tracks if data else ():
            if track.name == name and track.strips:
                return track.strips[0].action
    return None


def check_slide(document, spec, start, slide) -> list[str]:
    """The bundled file's first key must sit at the action's first whole frame, timed as the
    bundled exporter times keys (frame / (fps * fps_base)): else our time mapping is wrong."""
    render = bpy.context.scene.render
    first_key = min(float(document.json["accessors"][s["input"]]["min"][0]) for s in spec["samplers"])
    frame = first_key * render.fps * render.fps_base + slide
    expected = math.floor(start + 1e-6)
    if abs(frame - expected) > 1e-3:
        return [f"WARNING: the bundled file's first key is at frame {frame:.4f}, the action starts "
                f"at {start:g}: time mapping (frame - {slide:g}) / rate is off"]
    return []


# --- what a file plays -----------------------------------------------------------------------------

def snap_to_keys(times: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``times``, each moved onto a key time within float32 resolution: keys are float32 in files
    and frames float32 in Blender, so a whole frame is 'at' its key (this matters for STEP)."""
    if len(keys) == 0:
        return times
    right = np.clip(np.searchsorted(keys, times), 0, len(keys) - 1)
    left = np.maximum(right - 1, 0)
    near = np.where(np.abs(keys[left] - times) <= np.abs(keys[right] - times), keys[left], keys[right])
    return np.where(np.abs(near - times) <= KEY_SNAP * np.maximum(np.abs(times), 1.0), near, times)


def file_world(document, index: int, times: np.ndarray, use_fallback: bool = False,
               snap: bool = True) -> np.ndarray:
    """(S, node_count, 4, 4) world matrices of every node at ``times`` (``snap``: snap_to_keys):
    Document.node_matrices for all times at once (each channel evaluated once for all times, one
    batched hierarchy pass)."""
    rest = document.scene.rest_trs()
    trs = {path: np.repeat(values[None], len(times), axis=0)
           for path, values in zip(("translation", "rotation", "scale"), rest[:3])}
    for channel in document.animations[index].channels:
        if channel.path in trs:
            sampler = channel.fallback if use_fallback and channel.fallback is not None else channel.sampler
            trs[channel.path][:, channel.node] = sampler.evaluate(snap_to_keys(times, sampler.times) if snap else times)
    return document.scene.global_matrices(trs["translation"], trs["rotation"], trs["scale"])


def check_batching(document, index: int, times: np.ndarray, use_fallback: bool) -> list[str]:
    """Problems if the batched pass ever disagrees with Document.node_matrices (at two of the
    sample times, unsnapped: node_matrices takes times as given)."""
    probes = times[[len(times) // 3, len(times) - 1]]
    batched = file_world(document, index, probes, use_fallback, snap=False)
    for t, world in zip(probes, batched):
        if not np.allclose(world, document.node_matrices(index, float(t), use_fallback=use_fallback),
                           rtol=0.0, atol=1e-9):
            return [f"tool: batched world matrices differ from Document.node_matrices at t={t:g}"]
    return []


def file_index(document) -> dict[str, int]:
    """Node index by name (the first node of a name)."""
    out: dict[str, int] = {}
    for i, node in enumerate(document.json.get("nodes", [])):
        if node.get("name"):
            out.setdefault(node["name"], i)
    return out


def animation_index(document, name: str) -> int | None:
    """The index of the file's animation of that name (peers keep the names)."""
    return next((i for i, a in enumerate(document.json.get("animations", []))
                 if (a.get("name") or f"Animation_{i}") == name), None)


# --- world-space error -----------------------------------------------------------------------------

class Calibration:
    """Per node name, the constant C with R_g = AXES.T @ R_b @ C: the Y-up change on the left is
    known, the exporter's per-node correction on the right is measured once, from the bundled
    exporter's file at a whole frame, where its per-frame keys are Blender's own samples."""

    def __init__(self):
        self.constants: dict[str, np.ndarray] = {}

    def add(self, motion: Motion, world: np.ndarray, index: dict[str, int]) -> None:
        """``world``: the bundled file at ``motion.frames`` timed as it keys them."""
        whole = np.isclose(motion.frames, np.round(motion.frames), rtol=0.0, atol=1e-9)
        for column, target in enumerate(motion.targets):
            if target.name in self.constants or target.name not in index:
                continue
            played = world[:, index[target.name]]
            usable = whole & motion.solid[:, column] & (np.abs(np.linalg.det(played[:, :3, :3])) > SOLID)
            if usable.any():
                s = int(np.argmax(usable))
                blender = nodes.AXES.T @ motion.rotations[s, column]
                self.constants[target.name] = blender.T @ nodes.rotation_part(played[s, :3, :3])


@dataclass
class WorldError:
    max_deg: float = 0.0
    worst: str = ""
    problems: list[str] = field(default_factory=list)


def motion_errors(motion: Motion, calibration: Calibration, world: np.ndarray,
                  index: dict[str, int]) -> tuple[np.ndarray, list[str]]:
    """(S, K) degrees between a file's world rotations and Blender's, and the K node names."""
    columns = [c for c, t in enumerate(motion.targets) if t.name in calibration.constants and t.name in index]
    names = [motion.targets[c].name for c in columns]
    if not columns:
        return np.zeros((len(motion.frames), 0)), names
    constants = np.stack([calibration.constants[name] for name in names])
    expected = nodes.AXES.T @ motion.rotations[:, columns] @ constants
    played = world[:, [index[name] for name in names], :3, :3]
    angles = quat.angle_between(nodes.quaternions(expected), nodes.quaternions(nodes.rotation_part(played)))
    solid = motion.solid[:, columns] & (np.abs(np.linalg.det(played)) > SOLID)
    return np.where(solid, angles, 0.0), names


def world_error(document, motions: list[Motion], calibration: Calibration, rate: float,
                use_fallback: bool = False, whole_frames: bool = False) -> WorldError:
    """Largest angle over every animation, node and sample; the file timed t = (frame - slide) / rate."""
    result, index = WorldError(), file_index(document)
    for motion in motions:
        animation = animation_index(document, motion.animation)
        if animation is None:
            result.problems.append(f"no animation {motion.animation!r} in the file")
            continue
        times = (motion.frames - motion.slide) / rate
        world = file_world(document, animation, times, use_fallback)
        result.problems += check_batching(document, animation, times, use_fallback)
        result.problems += [f"node {t.name!r} not in the file" for t in motion.targets if t.name not in index]
        angles, names = motion_errors(motion, calibration, world, index)
        if whole_frames:
            angles = angles * np.isclose(motion.frames, np.round(motion.frames), rtol=0.0, atol=1e-9)[:, None]
        if angles.size and angles.max() >= result.max_deg:
            s, k = np.unravel_index(int(np.argmax(angles)), angles.shape)
            result.max_deg = float(angles[s, k])
            result.worst = f"{names[k]} @{motion.frames[s]:g}" + (f" {motion.animation}" if len(motions) > 1 else "")
    result.problems = sorted(set(result.problems))
    return result
