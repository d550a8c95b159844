"""Rotation matrices and unit quaternions: one from the other, and the rotation nearest a matrix.

Matrices are (..., 3, 3), M[row, col], acting on column vectors; quaternions (..., 4) in glTF
order (x, y, z, w).
"""

import numpy as np
import numpy.typing as npt

from .quaternions import normalize


def to_matrix(q: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Rotation matrices (..., 3, 3), M[row, col], acting on column vectors. q need not be unit."""
    q = np.asarray(q, dtype=np.float64)
    x, y, z, w = np.moveaxis(q, -1, 0)
    n = x * x + y * y + z * z + w * w
    s = np.where(n > 0.0, 2.0 / np.where(n > 0.0, n, 1.0), 0.0)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    rows = [
        [1.0 - yy - zz, xy - wz, xz + wy],
        [xy + wz, 1.0 - xx - zz, yz - wx],
        [xz - wy, yz + wx, 1.0 - xx - yy],
    ]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def from_matrix(matrices: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Unit quaternions (..., 4), w >= 0, of (..., 3, 3) matrices M[row, col], as Blender's
    Matrix.decompose() and to_quaternion() take them: columns made unit length (a scaled matrix's
    rotation), all negated where that leaves a reflection, then Mike Day's branches
    ("Converting a Rotation Matrix to a Quaternion", 2015: from the larger of the two diagonal
    sums each branch compares). A matrix with shear is no rotation: which branch takes it changes
    the result, and this is the branch Blender takes (the bundled exporter's samples agree)."""
    m: npt.NDArray[np.float64] = np.asarray(matrices, dtype=np.float64)
    m = m / np.linalg.norm(m, axis=-2, keepdims=True)
    m = np.where((np.linalg.det(m) < 0.0)[..., None, None], -m, m)
    m00, m01, m02 = m[..., 0, 0], m[..., 0, 1], m[..., 0, 2]
    m10, m11, m12 = m[..., 1, 0], m[..., 1, 1], m[..., 1, 2]
    m20, m21, m22 = m[..., 2, 0], m[..., 2, 1], m[..., 2, 2]
    # Per branch: its larger component (4 c^2), the other three times 4 c, and where it goes.
    branches = [
        (1.0 + m00 - m11 - m22, (m21 - m12, m10 + m01, m02 + m20), (0, 3, 1, 2)),  # x
        (1.0 - m00 + m11 - m22, (m02 - m20, m10 + m01, m21 + m12), (1, 3, 0, 2)),  # y
        (1.0 - m00 - m11 + m22, (m10 - m01, m02 + m20, m21 + m12), (2, 3, 0, 1)),  # z
        (1.0 + m00 + m11 + m22, (m21 - m12, m02 - m20, m10 - m01), (3, 0, 1, 2)),  # w
    ]
    which = np.where(m22 < 0.0, np.where(m00 > m11, 0, 1), np.where(m00 < -m11, 2, 3))
    q = np.zeros(m.shape[:-2] + (4,))
    for k, (square, others, places) in enumerate(branches):
        root = 2.0 * np.sqrt(np.maximum(square, 0.0))  # 4 |c|
        sign = np.where(others[0] < 0.0, -1.0, 1.0) if k < 3 else 1.0  # w >= 0
        scale = 1.0 / np.where(root > 0.0, root, 1.0)
        rows = which == k
        q[..., places[0]] = np.where(rows, 0.25 * root * sign, q[..., places[0]])
        for place, value in zip(places[1:], others):
            q[..., place] = np.where(rows, value * scale * sign, q[..., place])
    return normalize(q)


def nearest_rotation(matrices: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(..., 3, 3) the rotation nearest each matrix (its polar decomposition's, U · Vᵀ of its
    singular value decomposition; a mirroring matrix's nearest rotation after a mirror). A
    sheared world matrix has no rotation of its own: this one, unlike the one taken from its
    normalized columns, does not depend on the axes it is written in (glTF's or Blender's)."""
    u, _, vt = np.linalg.svd(np.asarray(matrices, dtype=np.float64))
    flip = np.where(np.linalg.det(u @ vt) < 0.0, -1.0, 1.0)
    u = u * np.stack([np.ones_like(flip), np.ones_like(flip), flip], axis=-1)[..., None, :]
    return np.matmul(u, vt, dtype=np.float64)
