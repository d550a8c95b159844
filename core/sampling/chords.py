"""Squared chords between unit quaternions: the sign-free measure fits compare with tolerances.

A tolerance in degrees becomes a squared chord once (chord2_limit, degrees_to_chord2); samples are
compared against it without a trigonometric call, and only a maximum goes back to degrees
(chord2_to_degrees, max_angle_deg).
"""

from typing import overload

import numpy as np
import numpy.typing as npt


def chord2(p: npt.NDArray[np.floating], q: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """Squared chord |p - sign(p.q) q|^2 between (n, 4) unit quaternions (sign-free). Unlike
    1 - |p.q| it keeps full precision for tiny angles and grows with the rotation angle, so maxima
    are taken on it and converted once (chord2_to_degrees), cheaper than angle_between (measured:
    docs/manual/benchmarks.md, "Kernel choices")."""
    d = q * np.where(np.einsum("ij,ij->i", p, q) < 0.0, -1.0, 1.0)[:, None]
    np.subtract(p, d, out=d)  # in place: a fresh array per operation costs more than the maths
    return np.einsum("ij,ij->i", d, d)


@overload
def chord2_to_degrees(chord2_: float | np.floating) -> np.floating: ...
@overload
def chord2_to_degrees(chord2_: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]: ...
def chord2_to_degrees(chord2_: float | np.floating | npt.NDArray[np.floating]
                      ) -> np.floating | npt.NDArray[np.floating]:
    """Rotation angle (degrees) of a squared chord: angle = 4 asin(chord / 2)."""
    return np.degrees(4.0 * np.arcsin(np.minimum(np.sqrt(chord2_) / 2.0, 1.0)))


def max_angle_deg(p: npt.NDArray[np.floating], q: npt.NDArray[np.floating]) -> float:
    """The largest rotation angle (degrees) between rows of (n, 4) unit quaternions p and q."""
    return float(chord2_to_degrees(chord2(p, q).max()))


def degrees_to_chord2(degrees: float) -> float:
    return (2.0 * np.sin(np.radians(degrees) / 4.0)) ** 2


def chord2_limit(degrees: float) -> float:
    """degrees_to_chord2, lowered by an ulp or two where chord2_to_degrees would report it above
    ``degrees`` (about one tolerance in nine): a check against it never reports a maximum over
    its own tolerance."""
    limit = degrees_to_chord2(degrees)
    while chord2_to_degrees(limit) > degrees:
        limit = np.nextafter(limit, 0.0)
    return limit
