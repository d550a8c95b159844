"""How faithfully Blender plays an imported glTF animation: every object's and bone's world rotation
and every skinned vertex, played in Blender at every frame and half frame, against the spec.

``measure`` makes the clip active (as the bundled importer does for its first clip), plays it in
Blender and compares, against the spec (``Document.node_matrices`` / ``Document.mesh_positions``) at
time t = frame / (fps / fps_base): the world rotation of every object and bone (degrees,
spec "Error measure" angle) and every vertex of every mesh after shape keys and armature deformation
(distance / the mesh's bounding-box diagonal). Both importers key t = 0 at frame 0; the bundled one
uses frame = t * fps * fps_base, so its timing error shows as deviation when fps_base != 1. Bones
differ from their nodes by a constant rotation (the importer's bone-direction heuristic), calibrated
once per bone at rest: the edit bone (what pose_position 'REST' shows) against the importer's bind
pose of the node (bundled_gltf.node_objects.bind_rotations). Vertices are matched to the file's
once, at the clip's first sample, and that match is reused. Nodes whose Blender ID the clip does not animate keep
what an earlier clip left there (Blender's behaviour when switching actions, not the import's):
they are left out and listed in ``skipped``.

It measures the result, not the way it was made: it reads the spec from ``core`` and the pose from
Blender, never the import's own code, so the tests (through tools/fidelity.py), the benchmarks and
``pipeline_run.py check`` use it as an outside check of the import and the preview.
"""

from dataclasses import dataclass, field

import bpy
import numpy as np

from ...core.sampling import quaternions
from ..blender_context import current_scene
from ...bundled_gltf import node_objects as nodes

MATCH_TOLERANCE = 1e-3  # vertex match at the first sample, relative to the bounding-box diagonal

# --- measure --------------------------------------------------------------------------------------

@dataclass
class Fidelity:
    samples: int = 0
    rotation_max_deg: float = 0.0
    rotation_rms_deg: float = 0.0
    rotation_worst: str = ""          # where the maximum is: node and frame
    vertex_max: float = 0.0           # distance / bounding-box diagonal
    vertex_worst: str = ""
    rotations: int = 0                # node rotations compared (all samples)
    vertices: int = 0                 # vertex positions compared (all samples)
    problems: list = field(default_factory=list)  # what could not be compared as it should
    skipped: list = field(default_factory=list)   # nodes not driven by this clip in Blender

    def __str__(self):
        return (f"{self.samples} samples: rotation max {self.rotation_max_deg:.5f}° "
                f"({self.rotation_worst}), rms {self.rotation_rms_deg:.5f}°; vertex max "
                f"{self.vertex_max:.2e} of the diagonal ({self.vertex_worst})"
                + (f"; problems: {self.problems}" if self.problems else ""))


def spec_time(scene):
    """frame -> seconds at the rate Blender really plays (fps / fps_base)."""
    return lambda frame: np.asarray(frame, dtype=np.float64) * scene.render.fps_base / scene.render.fps


def bundled_time(scene):
    """frame -> seconds as the bundled importer keys them (frame = t * fps * fps_base)."""
    return lambda frame: np.asarray(frame, dtype=np.float64) / (scene.render.fps * scene.render.fps_base)


def sample_frames(duration, to_seconds, step=0.5):
    """Every ``step`` frames from frame 0 to the frame where the clip ends (that frame included)."""
    end = float(duration / to_seconds(1.0))
    frames = np.arange(0.0, end + 1e-9, step)
    return frames if frames[-1] >= end - 1e-9 else np.append(frames, end)


def measure(document, animation_index: int, use_fallback: bool = False, time_mapping=None, frames=None,
            vertex_every: int = 1) -> Fidelity:
    """Play clip ``animation_index`` of the imported scene and compare it with the spec.

    ``time_mapping``: frame -> seconds; default spec_time (what users expect). ``frames``: the
    frames to sample (default sample_frames: every half frame). ``vertex_every``: compare vertices
    on every n-th sample only (rotations are compared on all). Returns a Fidelity."""
    scene = current_scene()
    to_seconds = time_mapping or spec_time(scene)
    animation = document.animations[animation_index]
    frames = sample_frames(animation.duration, to_seconds) if frames is None else np.asarray(frames, float)
    key_times = _key_times(animation, use_fallback)
    times = np.array([_at_key(float(to_seconds(f)), key_times) for f in frames])
    result = Fidelity(samples=len(frames))
    stale = nodes.activate_clip(document, animation_index)
    node_map = nodes.map_nodes(document, bpy.data.objects)
    result.problems += node_map.missing
    skipped = nodes.stale_nodes(document, node_map, stale)
    result.skipped = sorted(skipped)
    rotated = [n for n in node_map.order
               if n not in skipped and (n in node_map.objects or n in node_map.bones)]
    meshes = [n for n in node_map.order if n in node_map.meshes and n not in skipped]
    spec = SpecPlayer(document, animation_index, times, use_fallback)
    result.problems += spec.self_check(animation_index, [0, len(times) - 1], use_fallback)
    blender = _BlenderPlayer(node_map, rotated)
    corrections = _corrections(document, node_map, rotated)
    matches, squares, worst = {}, [], (-1.0, "")
    for sample, frame in enumerate(frames):
        whole = float(np.floor(frame))
        scene.frame_set(int(whole), subframe=float(frame - whole))
        angles = _rotation_errors(spec.globals(sample)[rotated], blender.world(), corrections)
        if len(angles):
            squares.append(angles ** 2)
            if angles.max() > result.rotation_max_deg:
                name = nodes.node_name(document, rotated[int(np.argmax(angles))])
                result.rotation_max_deg = float(angles.max())
                result.rotation_worst = f"node {name!r} at frame {frame:g}"
        for node in meshes if sample % vertex_every == 0 else ():
            error = _vertex_errors(document, spec, sample, node, node_map, matches, result.problems)
            result.vertices += len(error)
            if len(error) and error.max() > worst[0]:
                worst = (float(error.max()), f"node {nodes.node_name(document, node)!r} at frame {frame:g}")
    if squares:
        every = np.concatenate(squares)
        result.rotations, result.rotation_rms_deg = len(every), float(np.sqrt(every.mean()))
    result.vertex_max, result.vertex_worst = max(worst[0], 0.0), worst[1]
    return result


def _key_times(animation, use_fallback):
    """Sorted key times of the samplers the clip plays."""
    samplers = [c.fallback if use_fallback and c.fallback is not None else c.sampler
                for c in animation.channels]
    return np.unique(np.concatenate([s.times for s in samplers])) if samplers else np.empty(0)


def _at_key(t, key_times):
    """``t``, or the key time it stands for. Key times are float32 in the file and frames float32
    in Blender: frame 41 at 24 fps (1.708333 s) lands exactly on a key stored as 1.7083334 s, and
    Blender plays that key there, while the exact time is 4e-8 s before it, where a STEP curve
    still holds the previous key. Within float32 resolution a sample is taken at the key."""
    if not len(key_times):
        return t
    nearest_key = key_times[np.argmin(np.abs(key_times - t))]
    resolution = 4 * np.finfo(np.float32).eps * max(abs(t), 1.0)
    return float(nearest_key) if abs(nearest_key - t) <= resolution else t


class SpecPlayer:
    """What the spec plays at every sample time: Document.pose / node_matrices / mesh_positions,
    with each channel evaluated once for all the times (one core call per channel, not per sample:
    dense CUBICSLERP samplers precompute per call)."""

    def __init__(self, document, animation_index, times, use_fallback):
        self.document, self.scene, self.times = document, document.scene, times
        self.rest = document.scene.rest_trs()
        self.tracks = [(c.node, c.path, c.evaluate(times, use_fallback=use_fallback))
                       for c in document.animations[animation_index].channels]
        self._sample = None

    def _pose(self, sample):
        if self._sample != sample:
            trs = dict(zip(("translation", "rotation", "scale"), (a.copy() for a in self.rest)))
            self._weights = {}
            for node, path, values in self.tracks:
                if path == "weights":
                    self._weights[node] = values[sample]
                else:
                    trs[path][node] = values[sample]
            self._globals = self.scene.global_matrices(trs["translation"], trs["rotation"], trs["scale"])
            self._sample = sample
        return self._globals, self._weights

    def globals(self, sample):
        return self._pose(sample)[0]

    def mesh_positions(self, node, sample):
        globals_, weights = self._pose(sample)
        return self.scene.mesh_positions(node, globals_, weights.get(node))

    def self_check(self, animation_index, samples, use_fallback):
        """Problems if this batching ever disagrees with the Document API it stands for."""
        problems = []
        for sample in samples:
            expected = self.document.node_matrices(animation_index, self.times[sample],
                                                   use_fallback=use_fallback)
            if not np.allclose(self.globals(sample), expected, rtol=0, atol=1e-12):
                problems.append(f"tool: batched pose differs from Document.node_matrices at sample {sample}")
        return problems


class _BlenderPlayer:
    """World matrices of the compared nodes as Blender plays them now."""

    def __init__(self, node_map, rotated):
        self.slots = []  # per node: (armature name, bone index) or (object name, None)
        for node in rotated:
            if node in node_map.bones:
                armature, bone = node_map.bones[node]
                self.slots.append((armature, bpy.data.objects[armature].pose.bones.find(bone)))
            else:
                self.slots.append((node_map.objects[node], None))

    def world(self):
        out = np.empty((len(self.slots), 4, 4))
        poses = {}
        for i, (name, bone) in enumerate(self.slots):
            obj = bpy.data.objects[name]
            if bone is None:
                out[i] = np.array(obj.matrix_world)
                continue
            if name not in poses:
                flat = np.empty(len(obj.pose.bones) * 16, dtype=np.float32)
                obj.pose.bones.foreach_get("matrix", flat)  # column-major 4x4 per bone
                poses[name] = np.array(obj.matrix_world) @ flat.reshape(-1, 4, 4).transpose(0, 2, 1)
            out[i] = poses[name][bone]
        return out


def _corrections(document, node_map, rotated):
    """(len(rotated), 3, 3): per node, the constant rotation C with Blender world = glTF world
    (Blender axes) @ C. Bones: read at rest, the edit bone (armature space, Bone.matrix_local: what
    pose_position 'REST' shows) against the importer's bind pose of that node. Objects: the
    importer's camera and light turn, else identity (node_objects.object_correction)."""
    bind = nodes.bind_rotations(document, nodes.armatures_and_bones(document))
    out = np.tile(np.eye(3), (len(rotated), 1, 1))
    for i, node in enumerate(rotated):
        if node in node_map.bones:
            armature, bone = node_map.bones[node]
            rest = np.array(bpy.data.objects[armature].data.bones[bone].matrix_local, dtype=np.float64)
            out[i] = nodes.to_blender_axes(bind[node]).T @ nodes.rotation_part(rest)
        else:
            out[i] = nodes.object_correction(document, node)
    return out


def _rotation_errors(spec, blender, corrections):
    """Degrees between spec and Blender world rotations, (len(spec),)."""
    if not len(spec):
        return np.empty(0)
    solid = np.abs(np.linalg.det(spec[:, :3, :3])) > 1e-12  # scaled to zero: no rotation to compare
    expected = nodes.to_blender_axes(nodes.rotation_part(spec)) @ corrections
    played = nodes.rotation_part(blender)
    angles = quaternions.angle_between(nodes.quaternions(expected), nodes.quaternions(played))
    return np.where(solid, angles, 0.0)


def _blender_vertices(name):
    """World-space vertex positions of an object's evaluated mesh (shape keys, armature applied)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = bpy.data.objects[name].evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        flat = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", flat)
    finally:
        evaluated.to_mesh_clear()
    matrix = np.array(evaluated.matrix_world, dtype=np.float64)
    return flat.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]


def _spec_vertices(spec, sample, node, used):
    primitives = spec.mesh_positions(node, sample)
    points = np.concatenate([p if keep is None else p[keep] for p, keep in zip(primitives, used)])
    return points @ nodes.AXES.T


def _vertex_errors(document, spec, sample, node, node_map, matches, problems):
    """Distances / diagonal at one sample; the first call per node matches the vertices."""
    name = node_map.meshes[node]
    blender = _blender_vertices(name)
    if node in matches:
        used, index, diagonal = matches[node]
        return np.linalg.norm(blender - _spec_vertices(spec, sample, node, used)[index], axis=1) / diagonal
    used = nodes.vertices_used(document, node)
    points = _spec_vertices(spec, sample, node, used)
    diagonal = float(np.linalg.norm(points.max(axis=0) - points.min(axis=0))) or 1.0
    index, distance = nodes.nearest(blender, points)
    matches[node] = (used, index, diagonal)
    if len(blender) != len(points):
        problems.append(f"mesh node {node} {name!r}: {len(blender)} vertices in Blender, "
                        f"{len(points)} in the file")
    far = int(np.count_nonzero(distance > MATCH_TOLERANCE * diagonal))
    if far:
        problems.append(f"mesh node {node} {name!r}: {far} vertices have no match")
    return distance / diagonal
