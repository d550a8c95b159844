"""How far a glTF file's world rotations are from Blender's, node by node: the measure of
tests/operators/test_export_driven.py, tests/operators/test_export_rigify.py and bench/bench_driven_export.py (dev
module: numpy and the add-on's core only, no bpy; not shipped).

Blender's world matrices (3 x 3 parts, recorded by tools/driven_rigs.world_matrices) and the file's
(every animation played by the core and composed down its node tree) are compared as their nearest
rotations (core.sampling.quaternions.nearest_rotation: scale and shear out, whatever the axes). glTF = AXES^T ·
Blender · C, with the Y-up change AXES known and one constant C per node measured from a
calibration file (the bundled exporter's, whose keys are Blender's own samples) at the first time.
"""

import numpy as np

from gltf_sqlerp.core import Document, load
from gltf_sqlerp.core.sampling import rotation_matrices
from gltf_sqlerp.core.sampling import quaternions as quat

AXES = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])  # glTF axes -> Blender's


def file_worlds(document: Document, names: list[str], times: np.ndarray) -> dict[str, np.ndarray]:
    """{name: (S, 3, 3)} world matrices of the named nodes, every animation of ``document``
    played at ``times`` (an export has one per object's action)."""
    scene = document.scene
    trs = [np.repeat(values[None], len(times), axis=0) for values in scene.rest_trs()[:3]]
    paths = {"translation": 0, "rotation": 1, "scale": 2}
    for animation in document.animations:
        for channel in animation.channels:
            trs[paths[channel.path]][:, channel.node] = channel.sampler.evaluate(times)
    world = scene.global_matrices(*trs)
    index = {node.get("name"): n for n, node in enumerate(document.json["nodes"])}
    return {name: world[:, index[name], :3, :3] for name in names}


def _rotations(matrices) -> np.ndarray:
    """Unit quaternions of the rotations nearest ``matrices`` (..., 3, 3)."""
    return rotation_matrices.from_matrix(rotation_matrices.nearest_rotation(matrices))


def world_errors(worlds: dict, path: str, calibration: str, times: np.ndarray) -> dict[str, float]:
    """{node: largest angle in degrees} between Blender's world matrices ``worlds`` ({name: (S, 3,
    3) rows} at ``times``) and those of file ``path``, over the named nodes the file holds."""
    document = load(str(path))
    held = {node.get("name") for node in document.json["nodes"]}
    names = [name for name in worlds if name in held]
    first = file_worlds(load(str(calibration)), names, times[:1])
    played = file_worlds(document, names, times)
    errors = {}
    for name in names:
        blender = _rotations(AXES.T @ np.asarray(worlds[name]))
        constant = quat.multiply(quat.conjugate(blender[0]), _rotations(first[name][0]))
        file = _rotations(played[name])
        errors[name] = float(quat.angle_between(quat.multiply(blender, constant), file).max())
    return errors
