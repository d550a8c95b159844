"""The rotation Blender plays for a target whose keys are not its motion, as Blender evaluated it.

Constraints (IK, Child Of, Copy Transforms, ...), drivers and NLA blending move a bone or object
through something else than its own rotation F-curves, which core.blender_model.fcurves emulates.
Such a channel is fitted to Blender's own evaluation instead, sampled at the export's check times
(SAMPLES_PER_FRAME per frame, core.fitting.rotation_export.check_grid): operators/exporting/
blender_samples.py reads it, frame by frame, as the target's effective basis rotation (what its
F-curves would have to key to give the same pose), so the map into glTF space is the keyed
channel's. Between samples the motion is their slerp; the fits and the world pass evaluate it at
the samples themselves.
"""

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..sampling import nearest_index
from ..sampling import quaternions as quat
from .rotation_export import check_grid

# A frame this close to a sample's (frames) is that sample: the check grid computed again, or
# from seconds, differs from the sampled one by float rounding only.
ON_SAMPLE = 1e-6


def sample_frames(start: float, end: float) -> np.ndarray:
    """Plan the frames at which Blender is sampled over a frame range.

    They are the check grid of a channel whose keys are the range's whole frames (the dense
    form: the export chooses its keys).

    Parameters
    ----------
    start : float
        The range's first frame.
    end : float
        Its last frame.

    Returns
    -------
    (T,) float array
        Sorted frames: SAMPLES_PER_FRAME per frame from ``start``, every whole frame inside the
        range and ``end`` (core.fitting.rotation_export.check_grid).

    Examples
    --------
    >>> frames = sample_frames(0.0625, 1.5)  # 8 per frame from 0.0625, frame 1 merged in, then 1.5
    >>> len(frames), frames[7:10].tolist(), frames[-1].item()
    (14, [0.9375, 1.0, 1.0625], 1.5)
    """
    return check_grid(start, end, whole_frames(start, end))


def whole_frames(start: float, end: float) -> np.ndarray:
    """``start``, every whole frame inside the range and ``end``."""
    inside = np.arange(np.floor(start) + 1.0, np.ceil(end))
    return np.unique(np.concatenate([[start, end], inside]))


@dataclass
class SampledMotion:
    """Rotation of one target as Blender played it, sampled.

    Duck-typed as core.fitting.RotationMotion where the fit reads it: ``key_frames``, ``at``,
    ``stepped``. Raises ValueError for fewer than two frames, frames not increasing, or not one
    rotation per frame.

    Attributes
    ----------
    frames : (n,) float array
        Sorted frames, n >= 2 (``sample_frames`` of its range).
    values : (n, 4) float array
        Unit quaternions (x, y, z, w) of the target's effective basis rotation at ``frames``,
        normalized and made sign-continuous on construction.
    """
    frames: np.ndarray
    values: np.ndarray

    def __post_init__(self) -> None:
        self.frames = np.asarray(self.frames, dtype=np.float64).reshape(-1)
        self.values = quat.make_continuous(quat.normalize(np.asarray(self.values, dtype=np.float64)))
        if len(self.frames) < 2 or len(self.values) != len(self.frames) or not (np.diff(self.frames) > 0).all():
            raise ValueError("a sampled motion needs two or more increasing frames, one rotation each")

    @property
    def key_frames(self) -> np.ndarray:
        """Its whole frames: many and close, so the fit takes it as dense and chooses its keys."""
        return whole_frames(float(self.frames[0]), float(self.frames[-1]))

    def stepped(self) -> bool:
        """Whether every key holds its value until the next: never, for samples of a motion."""
        return False

    def at(self, frames: npt.ArrayLike) -> np.ndarray:
        """(T, 4) rotations at ``frames``: a sample's own at its frame, else the slerp of the two
        around it; held at the ends."""
        query = np.clip(np.asarray(frames, dtype=np.float64).reshape(-1), self.frames[0], self.frames[-1])
        nearest = nearest_index(self.frames, query)
        on = np.abs(self.frames[nearest] - query) <= ON_SAMPLE
        out = self.values[nearest].copy()
        if not on.all():
            after = np.clip(np.searchsorted(self.frames, query[~on]), 1, len(self.frames) - 1)
            before = after - 1
            u = (query[~on] - self.frames[before]) / (self.frames[after] - self.frames[before])
            out[~on] = quat.slerp(self.values[before], self.values[after], u)
        return out
