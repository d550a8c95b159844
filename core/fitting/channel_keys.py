"""What one rotation channel's export writes (``ChannelKeys``), and the bytes that costs.

core.fitting.rotation_export fits and chooses these keys; core.fitting.played_keys plays them, the
export writes them into the bundled exporter's objects and core.conversion into a file. Bytes are
counted as the file holds them: key times once per input accessor, values by their precision
(core.fitting.fallback_forms), and the JSON the extension adds to a channel that uses it.
"""

from dataclasses import dataclass

import numpy as np

from .fallback_forms import QUATERNION_BYTES, TIME_BYTES, sampler_bytes
from .linear_reduction import LinearKeys
from .sqlerp_fit import CubicSlerpFit

# JSON bytes the extension adds to a channel beyond a core sampler alone, measured on the files
# (4.5): the channel's extension entry (53), the CUBICSLERP sampler (54), its output accessor (82)
# and its "byteOffset" in the one buffer view of animation data (17; bundled_gltf.export_views).
EXTENSION_JSON_BYTES = 206


@dataclass
class ChannelKeys:
    """What one rotation channel writes.

    Either CUBICSLERP keys (``fit``) with a fallback for viewers without the extension, or a core
    sampler alone (``linear``: LINEAR, STEP or CUBICSPLINE keys, no extension), or nothing
    (``skipped`` says why: the channel keeps what it has).

    Attributes
    ----------
    fit : CubicSlerpFit or None
        The CUBICSLERP keys as written, with their dense check (what they play); None with
        ``linear`` or ``skipped``.
    precision : str
        How the extension's (or the core sampler's) values are written: "FLOAT" or "SHORT"
        components; "KEPT": stored keys imported earlier, written as floats.
    fallback : tuple (str, (m,) float array, (m, 4) or (3m, 4) float array) or None
        (interpolation, times, values) of the fallback sampler (channel.sampler), or None: keep
        the bundled exporter's.
    fallback_error_deg : float
        The fallback's largest angle to the CUBICSLERP curve.
    fallback_precision : str
        How the fallback's values are written: "FLOAT" or "SHORT" (LINEAR).
    skipped : str
        Why nothing is written (``fit`` None); "" when something is.
    linear : LinearKeys or None
        The core sampler's keys that replace the channel's sampler (``fit`` None): (n, 4) values,
        or (3n, 4) rows with ``spline``.
    dense : bool
        The channel's keys were samples of a motion (key times chosen freely).
    frame_keys : bool
        ``linear`` is at the bundled exporter's per-frame times (their input is shared).
    step : bool
        ``linear`` holds STEP keys: the motion jumps at its keys (constant F-curves).
    spline : bool
        ``linear`` holds CUBICSPLINE rows (3 per key) fitted to the motion.
    on_grid : tuple ((G, 4) float array, (G, 4) float array) or None
        (exact motion, what the keys play) at the task's grid (ChannelTask.grid), for the world
        pass.

    Examples
    --------
    Two LINEAR keys of 16-bit values: 4 bytes of time and 4 x 2 of value each, no extension JSON.

    >>> from gltf_sqlerp.core.fitting.linear_reduction import LinearKeys
    >>> keys = ChannelKeys(None, "SHORT", linear=LinearKeys(np.zeros(2), np.zeros((2, 4)), 0.0))
    >>> keys.interpolation, keys.key_count, keys.written_bytes, keys.file_bytes
    ('LINEAR', 2, 24, 24)
    """
    fit: CubicSlerpFit | None
    precision: str
    fallback: tuple[str, np.ndarray, np.ndarray] | None = None
    fallback_error_deg: float = 0.0
    fallback_precision: str = "FLOAT"
    skipped: str = ""
    linear: LinearKeys | None = None
    dense: bool = False
    frame_keys: bool = False
    step: bool = False
    spline: bool = False
    on_grid: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def interpolation(self) -> str:
        """The interpolation of the core sampler that ``linear`` writes."""
        return "STEP" if self.step else "CUBICSPLINE" if self.spline else "LINEAR"

    @property
    def key_count(self) -> int:
        """The keys of what viewers with the extension play (CUBICSLERP, or the core sampler's)."""
        return len(self.linear.times) if self.linear is not None else len(self.fit.times) if self.fit else 0

    @property
    def file_bytes(self) -> int:
        """written_bytes and the JSON the extension adds where the channel uses it."""
        return self.written_bytes + (EXTENSION_JSON_BYTES if self.linear is None and self.fit is not None else 0)

    @property
    def written_bytes(self) -> int:
        """Bytes of the samplers' data this channel writes (key times counted per sampler)."""
        total = self.extension_bytes
        if self.linear is None and self.fit is not None and self.fallback is not None:
            interpolation, times, _ = self.fallback
            total += sampler_bytes(interpolation, times, self.fallback_precision, self.fit.times)
        return total

    @property
    def extension_bytes(self) -> int:
        """Bytes of what viewers with the extension play: the CUBICSLERP sampler's data, or the
        LINEAR (or STEP) keys that replace the channel's sampler."""
        if self.linear is not None:
            time_bytes = 0 if self.frame_keys else TIME_BYTES
            rows = 3 if self.spline else 1
            return len(self.linear.times) * (time_bytes + rows * QUATERNION_BYTES[self.precision])
        if self.fit is None:
            return 0
        stored = "FLOAT" if self.precision == "KEPT" else self.precision
        return len(self.fit.times) * (TIME_BYTES + 3 * QUATERNION_BYTES[stored])
