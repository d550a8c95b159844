"""Writing the converter's rewritten rotation samplers into a glTF document.

A unit (core.conversion.channels.Unit) with LINEAR keys alone replaces its sampler's input and output:
the channels need no extension. One with CUBICSLERP keys turns its sampler into the fallback
(LINEAR or CUBICSPLINE, conventions section 3) and gets a new CUBICSLERP sampler, which every
channel that used the sampler names in ``extensions.EXT_animation_sqlerp``. Samplers keep their
indices (nothing else has to be renumbered); the data they no longer use is left for
core.gltf.compaction. Key times already written (the same float32 values) are shared.
"""

import numpy as np

from ..gltf import as_stored
from ..sampling import EXTENSION
from ..fitting import ChannelKeys
from ..gltf import BufferBuilder

SHORT = 5122  # signed 16-bit components, normalized: core glTF for rotation outputs
FLOAT = 5126


class SamplerWriter:
    """Adds rewritten samplers to ``gltf`` (changed in place); their data goes to ``builder``."""

    def __init__(self, gltf: dict, builder: BufferBuilder):
        self.gltf, self.builder = gltf, builder
        self.inputs = {}  # float32 key-time bytes -> accessor index

    def write(self, animation: dict, unit, keys: ChannelKeys):
        sampler = animation["samplers"][unit.sampler]
        if keys.linear is not None:
            if not keys.frame_keys:  # else the per-frame keys: the sampler's own input stays
                sampler["input"] = self._times(keys.linear.times)
            sampler["output"] = self._values(keys.linear.values, keys.precision)
            sampler["interpolation"] = "LINEAR"
            return
        times = self._times(keys.fit.times)
        animation["samplers"].append({"input": times, "interpolation": "CUBICSLERP",
                                      "output": self._values(keys.fit.interleaved(), keys.precision)})
        for c in unit.channels:
            extensions = animation["channels"][c].setdefault("extensions", {})
            extensions[EXTENSION] = {"sampler": len(animation["samplers"]) - 1}
        interpolation, fallback_times, values = keys.fallback
        sampler["input"] = self._times(fallback_times)
        sampler["output"] = self._values(values, keys.fallback_precision)
        sampler["interpolation"] = interpolation
        used = self.gltf.setdefault("extensionsUsed", [])
        if EXTENSION not in used:
            used.append(EXTENSION)

    def _times(self, times):
        data = np.asarray(times, dtype=np.float32)
        key = data.tobytes()
        if key not in self.inputs:
            self.inputs[key] = self.builder.add_accessor(data, FLOAT, bounds=True)
        return self.inputs[key]

    def _values(self, values, precision):
        """An output accessor of rows stored as ``precision`` ("FLOAT", "SHORT"; "KEPT": floats)."""
        values = np.asarray(values, dtype=np.float64)
        if precision != "SHORT":
            return self.builder.add_accessor(values.astype(np.float32), FLOAT)
        raw = np.round(as_stored(values, "SHORT") * 32767.0)  # the integers as_stored decodes
        index = self.builder.add_accessor(raw.astype(np.int16), SHORT)
        self.gltf["accessors"][index]["normalized"] = True
        return index
