"""CUBICSLERP keys an action already carries: the samplers its import stored (action_data).

Re-exporting a clip imported from a CUBICSLERP file should give back its keys and tangents, not
a new fit. The stored quaternions are in the original file's node space; the import's affine map
takes them to the pose bone's (or object's) quaternion and the exporter's measured map takes that
to the new file's node space. Both maps are isometries of R^4, which commute with every slerp of
the CUBICSLERP formula, so mapping the three quaternions of each key maps the whole curve
exactly. The caller still checks the result against what Blender plays: edited curves are fitted
anew.
"""

import bpy
import numpy as np

from ...core.sampling import quaternions as quat
from ...core.blender_model import ChannelRecord, from_blender_quaternion
from ...core.fitting import ChannelTarget
from .. import action_data
from ...core import CUBICSLERP


def stored_keys(action: bpy.types.Action | None, obj: bpy.types.Object, bone_name: str | None,
                target: ChannelTarget) -> tuple[np.ndarray, np.ndarray] | None:
    """(times (n,) seconds of the new file, interleaved (3n, 4) values in its node space) of the
    CUBICSLERP sampler stored for this rotation, or None (also for a record this version cannot
    read: the channel is then fitted anew)."""
    try:
        data = action_data.load(action) if action is not None else None
    except action_data.RecordError:
        return None
    if data is None:
        return None
    record = _record(data.channels, obj, bone_name)
    if record is None:
        return None
    sampler = next((s for s in (record.sampler, record.fallback)
                    if s is not None and s.interpolation == CUBICSLERP), None)
    if sampler is None:
        return None
    frames = sampler.times * data.frames_per_second
    blender = from_blender_quaternion(sampler.values.reshape(-1, 4) @ record.matrix.T + record.offset)
    mapped = quat.multiply(quat.multiply(target.a, blender), target.b)
    return (frames - target.slide) / target.rate, mapped


# The last record list looked up and its rotation records by (object name, data path): an
# export asks once per channel (RecursiveSkeletons: 840 channels of 840 records, 0.11 s searched).
_index: tuple[list[ChannelRecord], dict[tuple[str, str], ChannelRecord]] | None = None


def _record(records: list[ChannelRecord], obj: bpy.types.Object, bone_name: str | None) -> ChannelRecord | None:
    """The first rotation record of the object's (or its bone's) quaternion, or None."""
    global _index
    if _index is None or _index[0] is not records:  # action_data.load gives the same list again
        found: dict[tuple[str, str], ChannelRecord] = {}
        for record in records:
            if record.path == "rotation" and record.id_type == "Object":
                found.setdefault((record.id_name, record.data_path), record)
        _index = (records, found)
    prefix = f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"].' if bone_name else ""
    return _index[1].get((obj.name, prefix + "rotation_quaternion"))
