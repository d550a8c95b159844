"""Channel records and Blender F-curve keys built by hand for the deviation tests
(tests/operators/test_deviation_*.py): samplers in the form the import stores them
(core.blender_model.clip_record), the bundled importer's Y-up to Z-up maps, and the peak of a pair."""

import numpy as np

from gltf_sqlerp.core.blender_model.clip_record import ChannelRecord
from gltf_sqlerp.core.blender_model.deviation import CurveKeys

FPS = 24.0  # frames per second of every record and curve here
# The bundled importer's Y-up to Z-up maps (blender-notes.md): glTF (x, y, z, w) -> Blender
# (w, x, -z, y) for quaternions, (x, y, z) -> (x, -z, y) for locations.
ROTATION_MAP = np.array([[0, 0, 0, 1], [1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0]], dtype=float)
LOCATION_MAP = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=float)


def axis_angle(axis, degrees):
    """(x, y, z, w) of a rotation by ``degrees`` about a unit axis, by the textbook formula."""
    half = np.radians(degrees) / 2.0
    return np.append(np.sin(half) * np.asarray(axis, dtype=float), np.cos(half))


def sampler(interpolation, times, rows):
    """A stored sampler of these key times and rows."""
    rows = np.asarray(rows, dtype=float)
    return {"interpolation": interpolation, "pointer": "", "times": list(map(float, times)),
            "width": rows.shape[1], "values": rows.ravel().tolist()}


PROPERTIES = {"rotation": "rotation_quaternion", "translation": "location",
              "weights": 'key_blocks["a"].value'}


def record(path, main, matrix, offset, fallback=None, data_path=None, name="Arm"):
    """A ChannelRecord read from its stored form (core.blender_model.clip_record), as the import stores it."""
    result = {"node": 0, "path": path, "pointer": "", "id_name": name, "id_type": "Object", "slot": "",
              "data_path": data_path or PROPERTIES[path],
              "matrix": np.asarray(matrix, dtype=float).ravel().tolist(),
              "offset": list(map(float, offset)), "source": "EXTENSION", "sampler": main,
              "curves": [{"data_path": "x", "index": i} for i in range(len(offset))]}
    if fallback is not None:
        result["fallback"] = fallback
    return ChannelRecord.from_record(result)


def curve(frames, values, mode, left=None, right=None):
    """CurveKeys of one component: keys (frame, value) and handles (frame, value) pairs."""
    co = np.stack([frames, values], axis=1)
    return CurveKeys(co, co if left is None else left, co if right is None else right,
                     np.full(len(frames), mode))


def peak(pair):
    """The largest difference of a pair compared with Blender (it must have been compared)."""
    assert pair is not None
    return pair.max


def per_component(frames, blender_values, mode):
    """One curve per column of ``blender_values``, keyed at ``frames``."""
    return [curve(frames, blender_values[:, c], mode) for c in range(blender_values.shape[1])]
