"""The error measure of spec "Error measure": angles between rotations over dense samples.

Used by the main job, the preview's deviation readout, the fitter and the benchmarks, so that every
figure the project prints is measured the same way.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .quaternions import angle_between

SAMPLES_PER_FRAME = 8


@dataclass(frozen=True)
class Deviation:
    max_deg: float
    rms_deg: float
    p99_deg: float
    at_time: float  # seconds where the maximum is reached

    def __str__(self) -> str:
        return (f"max {self.max_deg:.4f}° at {self.at_time:.4f} s, rms {self.rms_deg:.4f}°, "
                f"p99 {self.p99_deg:.4f}°")


def dense_times(start: float, end: float, fps: float, per_frame: int = SAMPLES_PER_FRAME) -> npt.NDArray[np.float64]:
    """Spread sample times from ``start`` to ``end`` seconds, ``per_frame`` per frame, ends included.

    Parameters
    ----------
    start : float
        First sample, seconds.
    end : float
        Last sample, seconds.
    fps : float
        Frames per second.
    per_frame : int
        Samples per frame (default SAMPLES_PER_FRAME, 8).

    Returns
    -------
    (T,) float64 array
        Evenly spaced seconds, T = ceil((end - start) fps per_frame) + 1, at least 2.

    Examples
    --------
    >>> dense_times(0.0, 0.25, fps=4, per_frame=2).tolist()  # one frame at 4 fps, 2 samples per frame
    [0.0, 0.125, 0.25]
    """
    count = max(int(np.ceil((end - start) * fps * per_frame)), 1) + 1
    return np.linspace(start, end, count)


def rotation_deviation(rotations_a: npt.ArrayLike, rotations_b: npt.ArrayLike,
                       times: npt.NDArray[np.float64]) -> Deviation:
    """Max, RMS and 99th percentile of the angle (degrees) between two rotation tracks."""
    angles = angle_between(rotations_a, rotations_b)
    peak = int(np.argmax(angles))
    return Deviation(float(angles[peak]), float(np.sqrt(np.mean(angles ** 2))),
                     float(np.percentile(angles, 99)), float(times[peak]))
