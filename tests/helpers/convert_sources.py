"""Source files for the converter's tests (tests/core/test_convert.py, test_convert_files.py,
test_buffer_compaction.py): a dense LINEAR rotation about a moving axis, keyed every 1/24 s, written
as .gltf or .glb; and the JSON of a written file."""

import json
import struct

import numpy as np

from .child_job import ASSETS

from gltf_sqlerp.core.gltf.writer import BufferBuilder, write_glb, write_gltf


FPS = 24.0
KEYS = 200


CESIUM = ASSETS / "khronos" / "CesiumMan"
# (angle amplitude deg, angular frequency rad/s, drift deg/s, axis turn rate rad/s). GENTLE's
# 24 fps LINEAR keys follow the motion within 0.008 deg, LIVELY's within 0.026 deg: the size of
# the corners a smooth curve cannot follow.
GENTLE = (40.0, 0.9, 10.0, 0.5)
LIVELY = (90.0, 1.1, 30.0, 0.7)


def about(axis, degrees):
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    half = np.radians(np.asarray(degrees, dtype=float))[..., None] / 2.0
    return np.concatenate([axis * np.sin(half), np.cos(half)], axis=-1)


def moving_axis(times, amplitude, frequency, drift, axis_rate):
    """A rotation about an axis circling the z axis, by an angle that swings and drifts."""
    axis = np.stack([np.cos(axis_rate * times), np.sin(axis_rate * times),
                     np.full_like(times, 1.5)], axis=-1)
    q = about(axis, amplitude * np.sin(frequency * times) + drift * times)
    return q * np.where(q[:, 3:] < 0.0, -1.0, 1.0)  # angles stay under 180 deg: w > 0 is continuous


def gltf_json(path):
    data = path.read_bytes()
    if data[:4] != b"glTF":
        return json.loads(data)
    length, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    return json.loads(data[20:20 + length])


def write_source(path, motion=GENTLE, embed=False):
    """A file with the dense LINEAR rotation of ``motion`` on node 0 (channel 0), a LINEAR
    translation on node 0 and a STEP rotation on node 1, all keyed every 1/24 s."""
    times = (np.arange(KEYS) / FPS).astype(np.float32)
    rotations = moving_axis(times.astype(np.float64), *motion).astype(np.float32)
    document = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
                "nodes": [{"name": "Swing"}, {"name": "Stepper", "translation": [1.0, 0.0, 0.0]}]}
    buffer = BufferBuilder(document)
    time_input = buffer.add_accessor(times, bounds=True)
    outputs = [buffer.add_accessor(rotations),
               buffer.add_accessor(np.c_[np.sin(times), np.zeros((KEYS, 2))].astype(np.float32)),
               buffer.add_accessor(rotations[::-1].copy())]
    document["animations"] = [{"name": "Swing", "samplers": [
        {"input": time_input, "output": outputs[0], "interpolation": "LINEAR"},
        {"input": time_input, "output": outputs[1], "interpolation": "LINEAR"},
        {"input": time_input, "output": outputs[2], "interpolation": "STEP"}], "channels": [
        {"sampler": 0, "target": {"node": 0, "path": "rotation"}},
        {"sampler": 1, "target": {"node": 0, "path": "translation"}},
        {"sampler": 2, "target": {"node": 1, "path": "rotation"}}]}]
    if path.suffix == ".glb":
        write_glb(path, document, buffer.blob())
    else:
        write_gltf(path, document, buffer.blob(), embed=embed)
    return times.astype(np.float64), rotations.astype(np.float64)
