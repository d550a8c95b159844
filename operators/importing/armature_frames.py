"""How the file's armature object and the rig's differ: one turn and one size ratio.

Two exports of one character often carry different armature objects (blender-notes.md, "Armature
objects differ between exports of one character"): turned +90° about X at scale 0.01 in one file,
-90° at 0.0012 in the other. A pose bone's matrix is in its armature's space, so a pose copied
between the two plays turned and scaled in the world. ``turn`` is the rotation G from the file's
armature space to the rig's (both objects' world matrices, parents included) that makes the rig's
bones point where the file's point in the world; ``size_ratio`` is k, the rig's skeleton over the
file's in armature units, by which animated translations grow so that the rig moves the same
fraction of its own size. Both act on pose matrices as P -> G @ S_k(P), S_k scaling the
translation part: a homomorphism of rigid transforms, so the pose chain keeps its form
(pose_mapping.rest_change).

Uneven or mirrored object scale has no such map unless both objects carry the same one (their
matrices differ by a rotation and a uniform scale only): otherwise the import is refused.
"""

from collections.abc import Iterable

import bpy
import numpy as np

from ...core.sampling import rotation_matrices

_SIMILAR = 1e-4  # how far from a rotation (scaled) the file's armature space may be, seen from the rig's
_TINY = 1e-9     # a skeleton shorter than this (one bone, or none matched) has no size


class MisfitError(ValueError):
    """The file's animated hierarchy does not fit the rig: nothing is imported."""


def world_matrix(obj: bpy.types.Object) -> np.ndarray:
    """``obj``'s world matrix from its and its parents' transforms: the objects the importer just
    built have no evaluated matrix_world yet. Under a bone: Blender's own (evaluated) one."""
    if obj.parent is not None and obj.parent_type == 'BONE':
        return _matrix(obj.matrix_world)
    local = _matrix(obj.matrix_parent_inverse) @ _matrix(obj.matrix_basis)
    return world_matrix(obj.parent) @ local if obj.parent is not None else local


def turn(file_object: bpy.types.Object, rig_object: bpy.types.Object, file_name: str) -> np.ndarray:
    """(4, 4) G: the rotation from the file's armature space to the rig's, so that rig world =
    file world for directions. Raises MisfitError when the two spaces differ by more than a turn
    and a uniform positive scale (uneven or mirrored scale on one of them), naming the object that
    is scaled so (``file_name``: the file's armature node)."""
    file_linear, rig_linear = world_matrix(file_object)[:3, :3], world_matrix(rig_object)[:3, :3]
    rotation = _unscaled(np.linalg.inv(rig_linear) @ file_linear)
    if rotation is None:
        # Name the one that is scaled so (both may be: then the rig)
        name, linear = (file_name, file_linear) if _uneven(file_linear) and not _uneven(rig_linear) \
            else (rig_object.name, rig_linear)
        raise MisfitError(f"armature object '{name}' is scaled {_how(linear)} unlike the other "
                          "armature: its bones cannot point the same way")
    result = np.eye(4)
    result[:3, :3] = rotation_matrices.nearest_rotation(rotation)  # float32 object matrices: not quite a rotation
    return result


def size_ratio(offsets: Iterable[tuple[np.ndarray, np.ndarray]]) -> float:
    """k: the rig's skeleton over the file's, each the sum of its matched joints' distances from
    their parents at rest (armature units; an A-pose and a T-pose have the same). ``offsets``:
    (file head - parent head, rig head - parent head) per matched bone. 1 without any."""
    file_length = rig_length = 0.0
    for file_offset, rig_offset in offsets:
        file_length += float(np.linalg.norm(file_offset))
        rig_length += float(np.linalg.norm(rig_offset))
    return rig_length / file_length if file_length > _TINY and rig_length > _TINY else 1.0


def scaled(matrix: np.ndarray, ratio: float) -> np.ndarray:
    """S_k(matrix): its translation part times ``ratio``."""
    result = matrix.copy()
    result[:3, 3] *= ratio
    return result


def _unscaled(linear: np.ndarray) -> np.ndarray | None:
    """A 3x3 rotation times a positive uniform scale, divided by that scale; None for any other."""
    determinant = np.linalg.det(linear)
    if determinant <= 0:
        return None
    rotation = linear / np.cbrt(determinant)
    return rotation if np.allclose(rotation @ rotation.T, np.eye(3), atol=_SIMILAR) else None


def _uneven(linear: np.ndarray) -> bool:
    """Whether a 3x3 is not a rotation times a positive uniform scale."""
    return _unscaled(linear) is None


def _how(linear: np.ndarray) -> str:
    return "mirrored" if np.linalg.det(linear) < 0 else "unevenly"


def _matrix(matrix) -> np.ndarray:
    return np.array([tuple(row) for row in matrix], dtype=np.float64)
