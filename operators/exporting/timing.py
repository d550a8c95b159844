"""The times of the bundled exporter's sampler inputs, and the times the export writes instead.

The bundled exporter writes seconds = frame / (fps * fps_base); Blender's rate is fps / fps_base
(the 29.97 preset is fps 30, base 1.001). Every input is rescaled to the real rate, so the
channels the add-on leaves alone stay in step with its own: KHR_animation_pointer ones too, which
the exporter times alike (its data sampler's frame / fps is not what it writes; measured in both
animation modes that write them, 4.2 to 5.0).
"""

from typing import Any

import numpy as np


class Timing:
    """The bundled exporter's rate (``bundled_rate``) and Blender's (``rate``), frames per second."""

    def __init__(self, fps: float, fps_base: float) -> None:
        self.bundled_rate, self.rate = fps * fps_base, fps / fps_base

    def written(self, bundled_times: np.ndarray) -> np.ndarray:
        """The times ``fix`` writes for an input of the bundled exporter's (float64)."""
        return bundled_times * self.bundled_rate / self.rate

    def fixed(self, bundled_times: np.ndarray) -> np.ndarray:
        """What the input holds once ``fix`` has written it (float32 values, as float64): its
        channels can be read before the rotations' rewrite fixes the shared inputs."""
        if self.bundled_rate == self.rate or not len(bundled_times):
            return bundled_times
        return self.written(bundled_times).astype("<f4").astype(np.float64)

    def fix(self, accessor: Any, bundled_times: np.ndarray) -> None:
        """Rewrite the bundled exporter's input ``accessor`` (its times ``bundled_times``) at
        Blender's rate, in place: every sampler sharing it follows."""
        if self.bundled_rate != self.rate and len(bundled_times):
            # Here, not at the top: export_session loads this module also where the exporter's
            # internals moved (export_outcome.bundled_rewrite says so then).
            from ...bundled_gltf import export_accessors as gltf
            gltf.replace_times(accessor, self.written(bundled_times))
