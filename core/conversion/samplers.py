"""Writing the converter's rewritten rotation samplers into a glTF document.

A unit (core.conversion.channels.Unit) with LINEAR keys alone replaces its sampler's input and output:
the channels need no extension. One with CUBICSLERP keys turns its sampler into the fallback
(LINEAR or CUBICSPLINE, spec "Channel forms") and gets a new CUBICSLERP sampler, which every
channel that used the sampler names in ``extensions.EXT_animation_sqlerp``. Samplers keep their
indices (nothing else has to be renumbered); the data they no longer use is left for
core.gltf.compaction. Key times already written (the same float32 values) are shared.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

from ..gltf import as_stored
from ..fitting import ChannelKeys
from ..gltf import BufferBuilder
from .channels import Unit, cubicslerp, fallback
from ..constants import CUBICSLERP, EXTENSION_NAME

SHORT = 5122  # signed 16-bit components, normalized: core glTF for rotation outputs
FLOAT = 5126


class SamplerWriter:
    """Adds rewritten samplers to ``gltf`` (changed in place; JSON, hence Any); their data goes to
    ``builder``."""

    def __init__(self, gltf: dict[str, Any], builder: BufferBuilder):
        self.gltf, self.builder = gltf, builder
        self.inputs: dict[bytes, int] = {}  # float32 key-time bytes -> accessor index

    def write(self, animation: dict[str, Any], unit: Unit, keys: ChannelKeys) -> None:
        sampler = animation["samplers"][unit.sampler]
        if keys.linear is not None:
            if not keys.frame_keys:  # else the per-frame keys: the sampler's own input stays
                sampler["input"] = self._times(keys.linear.times)
            sampler["output"] = self._values(keys.linear.values, keys.precision)
            sampler["interpolation"] = "LINEAR"
            return
        fit = cubicslerp(keys)
        times = self._times(fit.times)
        animation["samplers"].append({"input": times, "interpolation": CUBICSLERP,
                                      "output": self._values(fit.interleaved(), keys.precision)})
        for c in unit.channels:
            extensions = animation["channels"][c].setdefault("extensions", {})
            extensions[EXTENSION_NAME] = {"sampler": len(animation["samplers"]) - 1}
        interpolation, fallback_times, values = fallback(keys)
        sampler["input"] = self._times(fallback_times)
        sampler["output"] = self._values(values, keys.fallback_precision)
        sampler["interpolation"] = interpolation
        used = self.gltf.setdefault("extensionsUsed", [])
        if EXTENSION_NAME not in used:
            used.append(EXTENSION_NAME)

    def _times(self, times: npt.ArrayLike) -> int:
        data = np.asarray(times, dtype=np.float32)
        key = data.tobytes()
        if key not in self.inputs:
            self.inputs[key] = self.builder.add_accessor(data, FLOAT, bounds=True)
        return self.inputs[key]

    def _values(self, values: npt.ArrayLike, precision: str) -> int:
        """An output accessor of rows stored as ``precision`` ("FLOAT", "SHORT"; "KEPT": floats)."""
        values = np.asarray(values, dtype=np.float64)
        if precision != "SHORT":
            return self.builder.add_accessor(values.astype(np.float32), FLOAT)
        raw = np.round(as_stored(values, "SHORT") * 32767.0)  # the integers as_stored decodes
        index = self.builder.add_accessor(raw.astype(np.int16), SHORT)
        self.gltf["accessors"][index]["normalized"] = True
        return index
