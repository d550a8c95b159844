"""One glTF sampler's key times and values, ready to evaluate for whole arrays of times."""

import numpy as np
import numpy.typing as npt

from . import interpolation
from ..constants import CUBIC_INTERPOLATIONS


class Sampler:
    """Key times and values of one glTF sampler, ready to evaluate.

    ``values`` has one row per key for STEP and LINEAR, and three rows per key (in-tangent, value,
    out-tangent) for CUBICSPLINE and CUBICSLERP. Morph weights have one column per morph target.
    """

    def __init__(self, interpolation_name: str, times: npt.NDArray[np.float64],
                 values: npt.NDArray[np.float64], path: str, pointer_: str) -> None:
        self.interpolation = interpolation_name
        self.times = times
        self.values = values
        self.path = path
        self.pointer = pointer_
        self._evaluator: interpolation.Evaluator | None = None

    @property
    def keys(self) -> npt.NDArray[np.float64]:
        """The key values without tangents: (key count, components)."""
        return self.values[1::3] if self.interpolation in CUBIC_INTERPOLATIONS else self.values

    def evaluate(self, times: npt.ArrayLike) -> npt.NDArray[np.float64]:
        if self._evaluator is None:  # set up once: fitting and previews evaluate many times
            self._evaluator = interpolation.Evaluator(self.interpolation, self.times, self.values,
                                                      rotation=self.path == "rotation")
        return self._evaluator(np.atleast_1d(np.asarray(times, dtype=np.float64)))

    def __repr__(self) -> str:
        return f"<Sampler {self.interpolation} {self.path} {len(self.times)} keys at {self.pointer}>"
