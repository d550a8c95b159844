"""A channel's target corrected for what the file plays above it (world-space tolerances).

A node's world rotation is its parent's world rotation times its own local one. When the parent's
written curves play W'(t) instead of the exact W(t), the node's world rotation is right again if
its own channel plays

    L'(t) = C(t) · L(t),   C(t) = W'(t)⁻¹ · W(t)

instead of its exact local rotation L(t). Fitted to L', the channel's world error is its own fit's
error alone, whatever the depth: each channel keeps the whole tolerance (and 16-bit values), where
splitting the tolerance along a chain of n bones leaves each a share of about 1 / n of it.

C(t) is a rotation within the tolerance of the identity (the parent's world error). It is sampled
at the exporter's world check times (operators/export_world) and travels with the channel's task
(core.fitting.channel_motion.ChannelTask.correction) as float32 x, y, z (w is positive: C is near the
identity); between samples it is interpolated (nlerp), which is exact to about 1e-7 degrees at 8
samples per frame for a correction of 0.01 degrees.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..sampling import quaternions as quat

if TYPE_CHECKING:  # channel_motion imports this module
    from .channel_motion import ChannelTarget, RotationMotion
    from .sampled_motion import SampledMotion


@dataclass
class WorldCorrection:
    """Correction C(t) of a channel under its written parent, sampled.

    Held at the first and last sample outside them; nlerp between them (``at``).

    Attributes
    ----------
    seconds : (T,) float array
        Sorted sample times.
    xyz : (T, 3) float32 array
        The vector part of C at ``seconds``: a unit quaternion whose w is positive (C is near
        the identity), so w follows from x, y and z.

    Examples
    --------
    >>> z1 = np.array([[0.0, 0.0, np.sin(np.radians(0.5)), np.cos(np.radians(0.5))]])  # 1 deg about Z
    >>> c = WorldCorrection.between([0.0], np.array([[0.0, 0.0, 0.0, 1.0]]), z1)  # written: still
    >>> c.at([0.0, 5.0]).round(6).tolist()  # C = written⁻¹ · exact: 1 deg about Z, held after the sample
    [[0.0, 0.0, 0.008727, 0.999962], [0.0, 0.0, 0.008727, 0.999962]]
    """
    seconds: np.ndarray
    xyz: np.ndarray

    @classmethod
    def between(cls, seconds: np.ndarray, written_world: np.ndarray, exact_world: np.ndarray) -> "WorldCorrection":
        """C = written⁻¹ · exact at ``seconds``, from (T, 4) world rotations of the parent."""
        correction = quat.multiply(quat.conjugate(written_world), exact_world)
        correction = correction * np.where(correction[:, 3:] < 0.0, -1.0, 1.0)
        return cls(np.asarray(seconds, dtype=np.float64), correction[:, :3].astype(np.float32))

    def at(self, seconds: npt.ArrayLike) -> np.ndarray:
        """(T, 4) unit quaternions C(seconds)."""
        seconds = np.asarray(seconds, dtype=np.float64)
        xyz = self.xyz.astype(np.float64)
        if len(self.seconds) == 1:
            return _with_w(np.broadcast_to(xyz[0], seconds.shape + (3,)))
        right = np.clip(np.searchsorted(self.seconds, seconds), 1, len(self.seconds) - 1)
        left = right - 1
        span = self.seconds[right] - self.seconds[left]
        t = np.clip((seconds - self.seconds[left]) / np.where(span > 0.0, span, 1.0), 0.0, 1.0)[..., None]
        return quat.normalize(_with_w(xyz[left] * (1.0 - t) + xyz[right] * t))


def _with_w(xyz):
    w = np.sqrt(np.clip(1.0 - np.einsum("...i,...i->...", xyz, xyz), 0.0, 1.0))
    return np.concatenate([xyz, w[..., None]], axis=-1)


@dataclass
class CorrectedTarget:
    """A channel target (core.fitting.channel_motion.ChannelTarget) played as C(t) · target(t): what the
    channel must play so that its node's world rotation is right under its written parent."""
    target: "ChannelTarget"
    correction: WorldCorrection

    @property
    def slide(self) -> float:
        return self.target.slide

    @property
    def rate(self) -> float:
        return self.target.rate

    @property
    def motion(self) -> "RotationMotion | SampledMotion":
        return self.target.motion

    def frames(self, seconds: npt.ArrayLike) -> np.ndarray:
        return self.target.frames(seconds)

    def __call__(self, seconds: npt.ArrayLike) -> np.ndarray:
        return self.at_frames(self.target.frames(seconds))

    def at_frames(self, frames: npt.ArrayLike) -> np.ndarray:
        frames = np.asarray(frames, dtype=np.float64)
        return self.corrected(frames, self.target.at_frames(frames))

    def corrected(self, frames: npt.ArrayLike, values: np.ndarray) -> np.ndarray:
        """``values`` (T, 4), the exact target's at ``frames``, corrected."""
        seconds = (np.asarray(frames, dtype=np.float64) - self.target.slide) / self.target.rate
        return quat.multiply(self.correction.at(seconds), values)

