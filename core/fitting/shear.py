"""What glTF cannot hold of a pose Blender plays: shear.

A glTF node's local transform is a translation, a rotation and a scale (TRS), and its world
matrix the product of those down the tree. Blender's bones may take a parent's scale otherwise
(Inherit Scale other than Full, Stretch To, Copy Transforms and other constraints): a bone's pose
in its parent's then has shear, which a TRS drops (the bundled exporter decomposes it into the
nearest TRS), and the world rotations of the node and of every node below it differ from
Blender's. No fit of the rotation keys can close that gap: it is measured here, per node, as the
angle between Blender's world rotation and the one the decomposed locals compose, so that the
export names those nodes with their error instead of reporting the fitted curves' figure alone.
World rotations are compared as their matrices' nearest rotations (quaternions.nearest_rotation:
polar decomposition), which a change of axes does not change.
"""

import numpy as np
import numpy.typing as npt

from ..sampling import depth_levels
from ..sampling import rotation_matrices
from ..sampling import quaternions as quat


def unheld_deg(parents: npt.ArrayLike, worlds: npt.ArrayLike, rests: npt.ArrayLike | None = None) -> np.ndarray:
    """Measure per node how far glTF's TRS locals put its world rotation off Blender's.

    Per node, the largest angle over the samples between the rotation of its world matrix
    (Blender's) and that of the product of its ancestors' and its own local matrices, each
    written as a glTF file holds it.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 at a root.
    worlds : (N, T, 4, 4) float array
        Blender's world matrices of the N nodes at T samples.
    rests : (N, 4, 4) float array or None
        Per node the rest C that the bundled exporter takes out of a bone's local matrix before
        it decomposes it (L = C · B: B decomposed into translation, rotation and scale, C's
        rotation put back on the left): a sheared B gives another rotation than a sheared L
        would. The identity for an object, and for every node when None.

    Returns
    -------
    (N,) float array
        Per node, the largest angle in degrees (0 where the TRS chain holds the motion).

    Examples
    --------
    A child that keeps its world turn (53.13 deg about Z) under a parent scaled (2, 1, 1), as
    Inherit Scale None does: its local matrix is sheared. Blender's own ``Matrix.decompose``
    (mathutils), composed again under the parent, gives the same 4.53 deg.

    >>> turn = np.array([[0.6, -0.8, 0, 0], [0.8, 0.6, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    >>> worlds = np.stack([np.diag([2.0, 1.0, 1.0, 1.0]), turn])[:, None]  # (2 nodes, 1 sample, 4, 4)
    >>> unheld_deg([-1, 0], worlds).round(2).tolist()
    [0.0, 4.53]
    """
    parents = np.asarray(parents, dtype=np.intp)
    worlds = np.asarray(worlds, dtype=np.float64)
    rests = np.broadcast_to(np.eye(4), (len(parents), 4, 4)) if rests is None else np.asarray(rests, dtype=np.float64)
    composed = np.empty_like(worlds)
    for level in depth_levels(parents):
        above = parents[level]
        roots = above < 0
        local = worlds[level].copy()
        if not roots.all():
            local[~roots] = np.linalg.solve(worlds[above[~roots]], worlds[level[~roots]])
        trs = _as_written(local, rests[level][:, None])
        composed[level[roots]] = trs[roots]
        if not roots.all():
            composed[level[~roots]] = composed[above[~roots]] @ trs[~roots]
    blender = rotation_matrices.from_matrix(rotation_matrices.nearest_rotation(worlds[..., :3, :3]))
    held = rotation_matrices.from_matrix(rotation_matrices.nearest_rotation(composed[..., :3, :3]))
    return quat.angle_between(blender, held).max(axis=-1, initial=0.0)


def _as_written(local, rest):
    """(..., 4, 4) local matrices as a file holds them: B = rest⁻¹ · local decomposed into its
    rotation (quaternions.from_matrix, as Blender's decompose() takes it) and each column's
    length (negative all three where B mirrors), composed again as rot(rest) · R · S, with the
    local translation."""
    basis = np.linalg.solve(np.broadcast_to(rest, local.shape), local)[..., :3, :3]
    scale = np.linalg.norm(basis, axis=-2)
    scale = np.where((np.linalg.det(basis) < 0.0)[..., None], -scale, scale)
    rest_turn = rotation_matrices.from_matrix(rest[..., :3, :3])
    turn = rotation_matrices.to_matrix(quat.multiply(rest_turn, rotation_matrices.from_matrix(basis)))
    out = np.zeros_like(local)
    out[..., :3, :3] = turn * scale[..., None, :]
    out[..., :3, 3] = local[..., :3, 3]
    out[..., 3, 3] = 1.0
    return out
