"""World rotations of exported files against Blender's, for the export tests in the real Blender
(tests/operators/test_export_world.py, test_export_forms.py, test_export_driven.py,
test_export_rigify.py): the export's default world tolerance, the files' world rotations played by
the core, the angles between rotation matrices, and the world errors tools/world_measure.py
measures."""

import numpy as np

from .child_job import tool

from gltf_sqlerp.core import load


TOLERANCE = 0.01           # degrees: the export's default, world space


AXES = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])  # glTF axes -> Blender's
FPS = 24.0


def file_worlds(path, names, times, fallback=False):
    """{name: (S, 3, 3)} world rotations of the named nodes, the file played at ``times``."""
    document = load(str(path))
    scene = document.scene
    trs = [np.repeat(values[None], len(times), axis=0) for values in scene.rest_trs()[:3]]
    paths = {"translation": 0, "rotation": 1, "scale": 2}
    for channel in document.animations[0].channels:
        sampler = channel.fallback if fallback and channel.fallback is not None else channel.sampler
        trs[paths[channel.path]][:, channel.node] = sampler.evaluate(times)
    world = scene.global_matrices(*trs)
    index = {node.get("name"): n for n, node in enumerate(document.json["nodes"])}
    return {name: world[:, index[name], :3, :3] for name in names}


def angles_deg(p, q):
    """Angles between rotation matrices, (S,): of r = p^T q, atan2(|axis part|, cos part), where
    the axis part (r - r^T) / 2 is first-order in the angle (the trace alone would turn the 1e-7
    float32 noise of Blender's matrices into 0.03 degrees)."""
    r = np.einsum("sji,sjk->sik", p, q)
    axis = np.stack([r[:, 2, 1] - r[:, 1, 2], r[:, 0, 2] - r[:, 2, 0], r[:, 1, 0] - r[:, 0, 1]], axis=1) / 2.0
    cosine = (np.trace(r, axis1=1, axis2=2) - 1.0) / 2.0
    return np.degrees(np.arctan2(np.linalg.norm(axis, axis=1), cosine))


MEASURE = tool("tools/world_measure.py")


def measured_world_errors(job, name, calibration="bundled.glb"):
    """{node: largest angle in degrees} between Blender's world rotations and file ``name``'s
    (tools/world_measure.py), the constants from file ``calibration``."""
    times = np.asarray(job["frames"]) / FPS  # the bundled exporter keys frame f at f / fps
    return MEASURE.world_errors(job["worlds"], job["folder"] / name, job["folder"] / calibration, times)
