"""The points that make an export's model size (core.fitting.property_export.model_size): what the
exported objects show, in world space, read from Blender in bulk.

Meshes and other geometry give the corners of their evaluated bounding boxes (modifiers, shape
keys and the pose applied), armatures the heads and tails of their bones at rest; every
exported object's origin is the fallback for a scene with neither. World space in Blender's axes:
the exporter's turn to Y-up keeps distances, which is all the size is used for.
"""

from typing import TYPE_CHECKING

import bpy
import numpy as np

from ..blender_context import current_scene

if TYPE_CHECKING:
    from ...bundled_gltf import exported as bundled_exported

_GEOMETRY = {'MESH', 'CURVE', 'SURFACE', 'FONT', 'META', 'CURVES', 'POINTCLOUD', 'VOLUME'}


def scene_points(exported: "bundled_exported.ExportedScene") -> tuple[np.ndarray, np.ndarray]:
    """((n, 3) world points of the exported geometry and bones, (m, 3) exported objects'
    origins), at the frame whose scene the exporter writes: frame 0 (its default; the hook runs
    after its animation sampling moved the frame, which is then put back), else the current one.
    ``exported``: bundled_gltf.exported.ExportedScene."""
    scene = current_scene()
    found = scene.frame_current, scene.frame_subframe
    moved = not exported.at_current_frame and found != (0, 0.0)
    if moved:
        scene.frame_set(0)
    try:
        return _points(exported.written(), bpy.context.evaluated_depsgraph_get())
    finally:
        if moved:
            scene.frame_set(found[0], subframe=found[1])


def _points(nodes, depsgraph):
    points, origins, seen = [np.zeros((0, 3))], [np.zeros((0, 3))], set()
    for node in nodes:
        obj = node.blender_object
        # A bone's points are its armature's: its bone ends.
        if obj is None or node.is_bone or obj.name in seen:
            continue
        seen.add(obj.name)
        world = np.array(obj.matrix_world, dtype=np.float64)
        origins.append(world[None, :3, 3])
        if obj.type == 'ARMATURE':
            points.append(_to_world(world, _bone_ends(obj.data.bones)))
        elif obj.type in _GEOMETRY:
            corners = np.array(obj.evaluated_get(depsgraph).bound_box, dtype=np.float64)
            points.append(_to_world(world, corners))
    return np.concatenate(points), np.concatenate(origins)


def _bone_ends(bones):
    """(2 x bones, 3) rest heads and tails in armature space."""
    heads, tails = np.zeros(3 * len(bones)), np.zeros(3 * len(bones))
    bones.foreach_get("head_local", heads)
    bones.foreach_get("tail_local", tails)
    return np.concatenate([heads, tails]).reshape(-1, 3)


def _to_world(matrix, local):
    return local @ matrix[:3, :3].T + matrix[:3, 3]
