"""The clip record kept on each imported Action (``action["gltf_sqlerp"]``), defined once.

The import writes it (operators/action_data.py); the preview, the deviation report, the clip list,
the command line and a later export read it, from .blend files saved by any earlier version of the
add-on. Stored form: plain JSON-like values (Blender keeps them as ID properties), numbers as
lists of floats. Here: dataclasses with numpy arrays.

``version`` is checked on every read. A record of an older version is migrated (``MIGRATIONS``,
one step per version); one of a newer version, or without the fields its version promises, is
refused with RecordError naming what is wrong, never read half-way.

Version 1 (add-on 0.1.0): file, animation (index), name (NLA track), source, tolerance_deg, bake,
frames_per_second, channels: per channel node, path ('translation' | 'rotation' | 'scale' |
'weights'), pointer, id_name, id_type ('Object' | 'Key'), slot (identifier, '' on 4.2),
data_path, curves ({data_path, index} per component, index -1 where Blender has no property),
matrix (k*k floats, row-major) and offset (k floats) mapping glTF values to the property's,
source ('EXTENSION' | 'FALLBACK'), sampler and, for EXT_animation_sqlerp channels, fallback:
{interpolation, pointer, times, width, values (rows flattened)}.

Version 2 (KHR_animation_pointer references): adds ``pointers``, one entry per KHR_animation_pointer
channel to a property that is not a node's (materials' node sockets, material settings, cameras,
lights) and per action slot its F-curves are in, on the action that holds those F-curves (one
action per animation on 4.4+; per animation and animated data-block on 4.2, then with no
``channels``): pointer (the channel's JSON pointer), target (the glTF property it animates),
id_type (the animated data-block's kind as Blender names it: the slot's ``target_id_type`` or the
action's ``id_root``: 'NODETREE', 'MATERIAL', 'CAMERA', 'LIGHT'), id_name (the material, camera or
light shown in reports), slot (identifier, '' on 4.2), interpolation ('LINEAR' between samples, or
'STEP'), curves ({data_path, index} per F-curve, k of them), times (n float32, seconds: the samples
fed to Blender's importer) and values (n·k float32, sample-major: what the importer made of each
sample, in Blender units). The spec's value in Blender units is ``values`` at ``times`` and, for
LINEAR, linear between them (8 samples a frame: within the import's tolerance). Version 1 records
are read with no pointers.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

KEY = "gltf_sqlerp"
VERSION = 2
# A stored record: JSON-like values as Blender's ID properties keep them (Any: any JSON value).
Record = dict[str, Any]
# version -> function(record dict of that version) -> record dict of the next version.
MIGRATIONS: dict[int, Callable[[Record], Record]] = {
    1: lambda stored: {**stored, "version": 2, "pointers": []},  # 1 -> 2: no pointer references
}


class RecordError(ValueError):
    """A stored clip record this add-on cannot read: not a record, damaged, or of a newer version.

    Its message names the record (``where``) and what is wrong with it.
    """


@dataclass
class SamplerRecord:
    """One stored sampler, in glTF values: how it interpolates, its key times and value rows.

    Attributes
    ----------
    interpolation : str
        STEP, LINEAR, CUBICSPLINE or CUBICSLERP.
    times : (n,) float64 array
        Key times in seconds.
    values : (n, width) or (3n, width) float64 array
        One row per key; cubic samplers keep three, (in-tangent, value, out-tangent).
    pointer : str
        Where the sampler is in its file (a JSON pointer).
    width : int
        The components per row (read-only: ``values``' columns).

    Examples
    --------
    >>> SamplerRecord("LINEAR", np.array([0.0, 1.0]), np.zeros((2, 4))).to_record()["width"]
    4
    """
    interpolation: str
    times: np.ndarray
    values: np.ndarray
    pointer: str = ""

    @property
    def width(self) -> int:
        return int(self.values.shape[1])

    @classmethod
    def from_record(cls, stored: Record) -> "SamplerRecord":
        width = int(stored["width"])
        values = np.asarray(stored["values"], dtype=np.float64).reshape(-1, width)
        return cls(str(stored["interpolation"]), np.asarray(stored["times"], dtype=np.float64),
                   values, str(stored.get("pointer", "")))

    def to_record(self) -> Record:
        # float64 arrays are stored as the same double arrays lists of floats become, read straight
        # from their buffer: faster than .tolist() (measured: docs/manual/benchmarks.md, "Kernel choices").
        return {"interpolation": self.interpolation, "pointer": self.pointer,
                "times": _doubles(self.times), "width": self.width, "values": _doubles(self.values)}


@dataclass
class CurveTarget:
    """The F-curve one glTF component drives: a data path and an array index.

    Attributes
    ----------
    data_path : str
        The property's data path; '' (with ``index`` -1) where Blender has no property for the
        component (a morph target without a shape key).
    index : int
        The F-curve's array index, -1 with no property.
    """
    data_path: str
    index: int


@dataclass
class ChannelRecord:
    """One imported node channel: the F-curves it drives and the samplers they were written from.

    Attributes
    ----------
    node : int
        The glTF node's index.
    path : str
        'translation', 'rotation', 'scale' or 'weights'.
    pointer : str
        The channel's JSON pointer in its file.
    id_name : str
        The animated data-block's name (the object or armature, or the shape keys).
    id_type : str
        'Object' or 'Key'.
    slot : str
        The action slot's identifier, '' on Blender 4.2.
    data_path : str
        The property the channel drives, e.g. 'pose.bones["Elbow"].rotation_quaternion'; '' for
        morph weights (``curves`` name each shape key's).
    curves : list of CurveTarget
        The F-curve of each of the k components.
    matrix : (k, k) float64 array
        With ``offset``, maps glTF values to the property's: Blender value = matrix @ glTF value
        + offset.
    offset : (k,) float64 array
        See ``matrix``.
    source : str
        EXTENSION or FALLBACK: the sampler the curves were written to play.
    sampler : SamplerRecord
        The channel's sampler (the CUBICSLERP one of an EXT_animation_sqlerp channel).
    fallback : SamplerRecord or None
        An EXT_animation_sqlerp channel's fallback sampler, None for other channels.
    rotation_mode : str
        Not stored: set by the preview's "as exported" records (a Blender rotation mode), else ''.
    """
    node: int
    path: str
    pointer: str
    id_name: str
    id_type: str
    slot: str
    data_path: str
    curves: list[CurveTarget]
    matrix: np.ndarray
    offset: np.ndarray
    source: str
    sampler: SamplerRecord
    fallback: SamplerRecord | None = None
    rotation_mode: str = ""

    @classmethod
    def from_record(cls, stored: Record) -> "ChannelRecord":
        offset = np.asarray(stored["offset"], dtype=np.float64)
        fallback = stored.get("fallback")
        return cls(int(stored["node"]), str(stored["path"]), str(stored["pointer"]),
                   str(stored["id_name"]), str(stored["id_type"]), str(stored["slot"]),
                   str(stored["data_path"]),
                   [CurveTarget(str(c["data_path"]), int(c["index"])) for c in stored["curves"]],
                   np.asarray(stored["matrix"], dtype=np.float64).reshape(len(offset), -1), offset,
                   str(stored["source"]), SamplerRecord.from_record(stored["sampler"]),
                   SamplerRecord.from_record(fallback) if fallback else None)

    def to_record(self) -> Record:
        stored: Record = {"node": int(self.node), "path": self.path, "pointer": self.pointer,
                          "id_name": self.id_name, "id_type": self.id_type, "slot": self.slot,
                          "data_path": self.data_path,
                          "curves": [{"data_path": c.data_path, "index": int(c.index)} for c in self.curves],
                          "matrix": np.asarray(self.matrix, dtype=np.float64).ravel().tolist(),
                          "offset": np.asarray(self.offset, dtype=np.float64).tolist(),
                          "source": self.source, "sampler": self.sampler.to_record()}
        if self.fallback is not None:
            stored["fallback"] = self.fallback.to_record()
        return stored

    def played(self, source: str) -> SamplerRecord:
        """The sampler ``source`` plays: FALLBACK plays the fallback where there is one."""
        return self.fallback if source == "FALLBACK" and self.fallback is not None else self.sampler


@dataclass
class PointerRecord:
    """The reference of one pointer channel's F-curves in one action slot (version 2).

    Attributes
    ----------
    pointer : str
        The channel's JSON pointer, "/animations/a/channels/c".
    target : str
        The glTF property it animates, "/materials/0/emissiveFactor".
    id_type : str
        The animated data-block's kind: 'NODETREE', 'MATERIAL', 'CAMERA', 'LIGHT', ...
    id_name : str
        The material, camera or light (for reports).
    slot : str
        The action slot's identifier, '' on Blender 4.2.
    interpolation : str
        LINEAR or STEP: how the reference plays between its samples.
    curves : list of CurveTarget
        The k F-curves.
    times : (n,) float32 array
        The samples' times in seconds.
    values : (n, k) float32 array
        What Blender's importer made of each sample, in Blender units.
    """
    pointer: str
    target: str
    id_type: str
    id_name: str
    slot: str
    interpolation: str
    curves: list[CurveTarget]
    times: np.ndarray
    values: np.ndarray

    @classmethod
    def from_record(cls, stored: Record) -> "PointerRecord":
        curves = [CurveTarget(str(c["data_path"]), int(c["index"])) for c in stored["curves"]]
        times = np.asarray(stored["times"], dtype=np.float32).reshape(-1)
        values = np.asarray(stored["values"], dtype=np.float32).reshape(len(times), len(curves))
        return cls(str(stored["pointer"]), str(stored["target"]), str(stored["id_type"]),
                   str(stored["id_name"]), str(stored["slot"]), str(stored["interpolation"]),
                   curves, times, values)

    def to_record(self) -> Record:
        # float32 arrays become Blender's float arrays, read straight from their buffer.
        return {"pointer": self.pointer, "target": self.target, "id_type": self.id_type,
                "id_name": self.id_name, "slot": self.slot, "interpolation": self.interpolation,
                "curves": [{"data_path": c.data_path, "index": int(c.index)} for c in self.curves],
                "times": np.ascontiguousarray(self.times, dtype=np.float32).reshape(-1),
                "values": np.ascontiguousarray(self.values, dtype=np.float32).reshape(-1)}


@dataclass
class ClipRecord:
    """The record of one imported glTF animation, as its Action keeps it (``action[KEY]``).

    Attributes
    ----------
    file : str
        The imported file's path.
    animation : int
        The glTF animation's index.
    name : str
        Its NLA track's name in Blender.
    source : str
        EXTENSION or FALLBACK: what EXT_animation_sqlerp channels were imported to play.
    tolerance_deg : float
        The import's rotation tolerance in degrees.
    bake : bool
        Whether the import keyed every frame instead of fitting curves.
    frames_per_second : float
        The scene's frame rate at import: action frame = seconds * frames_per_second.
    channels : list of ChannelRecord
        The node channels (none for a Blender 4.2 action of pointer F-curves alone).
    version : int
        The record's version, VERSION once read (older ones are migrated).
    pointers : list of PointerRecord
        The KHR_animation_pointer references of the F-curves this action holds.

    Examples
    --------
    >>> ClipRecord.from_record({"version": 99})
    Traceback (most recent call last):
    ...
    gltf_sqlerp.core.blender_model.clip_record.RecordError: the clip record was written by a newer version ...
    """
    file: str
    animation: int
    name: str
    source: str
    tolerance_deg: float
    bake: bool
    frames_per_second: float
    channels: list[ChannelRecord] = field(default_factory=list)
    version: int = VERSION
    pointers: list[PointerRecord] = field(default_factory=list)

    @classmethod
    def from_record(cls, stored: Record, where: str = "the clip record") -> "ClipRecord":
        """Read a stored record (migrated first when older); RecordError when it cannot be."""
        stored = migrated(stored, where)
        try:
            return cls(str(stored["file"]), int(stored["animation"]), str(stored["name"]),
                       str(stored["source"]), float(stored["tolerance_deg"]), bool(stored["bake"]),
                       float(stored["frames_per_second"]),
                       [ChannelRecord.from_record(c) for c in stored["channels"]], VERSION,
                       [PointerRecord.from_record(p) for p in stored["pointers"]])
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"{where} (version {VERSION}) is damaged: "
                              f"{type(error).__name__}: {error}") from None

    def to_record(self) -> Record:
        return {"version": VERSION, "file": self.file, "animation": int(self.animation),
                "name": self.name, "source": self.source, "tolerance_deg": float(self.tolerance_deg),
                "bake": bool(self.bake), "frames_per_second": float(self.frames_per_second),
                "channels": [c.to_record() for c in self.channels],
                "pointers": [p.to_record() for p in self.pointers]}


def migrated(stored: Record, where: str = "the clip record") -> Record:
    """``stored`` brought to VERSION through MIGRATIONS; RecordError for a newer or unknown one."""
    if not isinstance(stored, dict):
        raise RecordError(f"{where} is not a record ({type(stored).__name__})")
    version = stored.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordError(f"{where} has no valid version ({version!r})")
    if version > VERSION:
        raise RecordError(f"{where} was written by a newer version of glTF Sqlerp Animation "
                          f"(record version {version}; this one reads up to {VERSION}): update the add-on")
    while version < VERSION:
        stored = MIGRATIONS[version](stored)
        version += 1
    return stored


def _doubles(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.float64).reshape(-1)
