"""One glTF sampler's key times and values, ready to evaluate for whole arrays of times."""

import numpy as np
import numpy.typing as npt

from . import interpolation
from ..constants import CUBIC_INTERPOLATIONS


class Sampler:
    """Key times and values of one glTF sampler, ready to evaluate.

    Attributes
    ----------
    interpolation : str
        STEP, LINEAR, CUBICSPLINE or CUBICSLERP.
    times : (n,) float64 array
        Key times in seconds (the sampler's input accessor).
    values : (n, k) or (3n, k) float64 array
        One row per key for STEP and LINEAR, three rows per key (in-tangent, value, out-tangent)
        for CUBICSPLINE and CUBICSLERP. k: 3 for translation and scale, 4 for rotations
        (x, y, z, w), one column per morph target for weights.
    path : str
        The animated property: translation, rotation, scale or weights.
    pointer : str
        The sampler's JSON pointer, such as ``/animations/0/samplers/2``.
    keys : (n, k) float64 array
        The key values without tangents (a property).
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
        """Evaluate the sampler at ``times`` as the glTF spec plays it (interpolation.evaluate).

        Parameters
        ----------
        times : (T,) float array or float
            Seconds, clamped to the keys.

        Returns
        -------
        (T, k) float64 array
            The values at ``times`` (one row for a single time); rotations normalized between keys.

        Examples
        --------
        >>> import numpy as np
        >>> keys = np.array([[0.0, 0.0, 0.0], [2.0, 4.0, 6.0]])
        >>> bob = Sampler("LINEAR", np.array([0.0, 2.0]), keys, "translation", "/animations/0/samplers/0")
        >>> bob.evaluate(0.5).tolist()  # a quarter of the way
        [[0.5, 1.0, 1.5]]
        """
        if self._evaluator is None:  # set up once: fitting and previews evaluate many times
            self._evaluator = interpolation.Evaluator(self.interpolation, self.times, self.values,
                                                      rotation=self.path == "rotation")
        return self._evaluator(np.atleast_1d(np.asarray(times, dtype=np.float64)))

    def __repr__(self) -> str:
        return f"<Sampler {self.interpolation} {self.path} {len(self.times)} keys at {self.pointer}>"
