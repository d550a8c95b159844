"""Small glTF documents for the validation tests (tests/core/test_validate_sqlerp_*.py,
test_validate_animations.py): accessors packed with numpy into one ``data:`` URI buffer, animations
in the EXT_animation_sqlerp channel forms (its spec's "Channel forms"), and the findings read through
``gltf_file.parse_bytes`` like a file."""

import base64
import json

import numpy as np

from gltf_sqlerp.core.gltf.file import parse_bytes
from gltf_sqlerp.core.gltf.validation import validate

EXT = "EXT_animation_sqlerp"
S = 0.6, 0.8  # sin and cos of a half angle: (0.6, 0.8) gives unit quaternions
UNIT = np.array([[0, 0, 0, 1], [0, S[0], 0, S[1]], [S[0], 0, 0, S[1]], [0, 0, S[0], S[1]]])
CUBIC_SAMPLER = "/animations/0/samplers/0"
CHANNEL = "/animations/0/channels/0"
EXT_SAMPLER = f"{CHANNEL}/extensions/{EXT}/sampler"
DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}


class Asset:
    """Accessors packed into one buffer; ``validate`` wraps them into a whole document."""

    def __init__(self):
        self.blob, self.views, self.accessors = bytearray(), [], []

    def accessor(self, values, kind, component=5126, normalized=False, bounds=None):
        values = np.asarray(values, dtype=np.float64)
        data = values.astype(DTYPES[component]).tobytes()
        self.blob += bytes(-len(self.blob) % 4)
        self.views.append({"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(data)})
        self.blob += data
        accessor = {"bufferView": len(self.views) - 1, "componentType": component,
                    "count": len(values), "type": kind}
        if normalized:
            accessor["normalized"] = True
        if bounds is not None:
            accessor["min"], accessor["max"] = [bounds[0]], [bounds[1]]
        self.accessors.append(accessor)
        return len(self.accessors) - 1

    def times(self, values, bounds: str | tuple[float, float] | None = "data"):  # "data": its min and max
        values = np.asarray(values, dtype=np.float64)
        if isinstance(bounds, str):
            bounds = (float(values.min()), float(values.max()))
        return self.accessor(values.reshape(-1, 1), "SCALAR", bounds=bounds)

    def quaternions(self, values, component=5126, normalized=False):
        return self.accessor(values, "VEC4", component, normalized)

    def validate(self, animations, used=(EXT,), required=(), nodes=None, **extra):
        """Findings for a document with these animations, one node (or ``nodes``) and ``extra``
        top-level arrays such as meshes or skins."""
        document = {"asset": {"version": "2.0"}, "nodes": nodes or [{"name": "bone"}],
                    "animations": animations, "accessors": self.accessors, **extra}
        if self.blob:
            uri = "data:application/octet-stream;base64," + base64.b64encode(self.blob).decode()
            document["bufferViews"] = self.views
            document["buffers"] = [{"byteLength": len(self.blob), "uri": uri}]
        if used:
            document["extensionsUsed"] = list(used)
        if required:
            document["extensionsRequired"] = list(required)
        return validate(parse_bytes(json.dumps(document).encode()))


def cubic_rows(keys):
    """3 * keys unit quaternions: a_i, v_i, b_i for every key."""
    return UNIT[np.arange(3 * keys) % 4].copy()


def animation(asset, keys=3, rows=None, path="rotation", draft=False, times=None):
    """Sampler 0: CUBICSLERP; sampler 1: LINEAR fallback (fallback form), or the draft form."""
    t = asset.times(np.arange(keys, dtype=float) if times is None else times)
    cubic = asset.quaternions(cubic_rows(keys) if rows is None else rows)
    channel = {"target": {"node": 0, "path": path}, "extensions": {EXT: {"sampler": 0}}}
    samplers = [{"input": t, "interpolation": "CUBICSLERP", "output": cubic}]
    if not draft:
        fallback = asset.quaternions(UNIT[np.arange(keys) % 4])
        samplers.append({"input": t, "interpolation": "LINEAR", "output": fallback})
        channel["sampler"] = 1
    return {"channels": [channel], "samplers": samplers}


def errors(findings):
    """(code, pointer) of every error among ``findings``."""
    return {(f.code, f.pointer) for f in findings if f.severity == "error"}


def of(findings, code):
    """The findings of this code."""
    return [f for f in findings if f.code == code]
