"""A loaded document converted in memory (core.conversion.converter's work without the files): which rotation
samplers are rewritten, their fit in world space, the new samplers' data and the compacted buffers.
"""

import copy
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..gltf import compact
from ..document import Document
from .channels import Unit, cubicslerp, fallback, key_count, old_bytes
from .samplers import SamplerWriter
from .world import AnimationWorld, hold
from ..gltf import pointer
from ..gltf import BufferBuilder
from ..constants import CUBICSLERP, EXTENSION_NAME


@dataclass(frozen=True)
class ChannelReport:
    """What a conversion did with one rotation channel, or why it left it alone.

    Attributes
    ----------
    pointer : str
        The channel's JSON pointer, /animations/a/channels/c.
    node : int
        The node it rotates.
    original_keys : int
        Keys of the sampler it played in the source.
    interpolation : str
        That sampler's interpolation.
    form : str
        "LINEAR" (keys alone, no extension), "CUBICSLERP" (in the extension) or "" (left alone).
    keys : int or None
        Keys of the new LINEAR or CUBICSLERP sampler.
    fallback : str
        A CUBICSLERP channel's fallback interpolation (LINEAR or CUBICSPLINE).
    fallback_keys : int or None
        Keys of that fallback.
    precision : str
        Of the new values: "SHORT" (normalized 16-bit) or "FLOAT".
    max_error_deg : float or None
        The new keys against the original, in the node's own space, in degrees.
    share : float or None
        The share of the tolerance this channel was fitted at (world space).
    note : str
        Why the channel was left alone ("" when rewritten).
    """

    pointer: str
    node: int
    original_keys: int
    interpolation: str
    form: str = ""
    keys: int | None = None
    fallback: str = ""
    fallback_keys: int | None = None
    precision: str = ""
    max_error_deg: float | None = None
    share: float | None = None
    note: str = ""

    @property
    def converted(self) -> bool:
        """Whether the channel was rewritten."""
        return bool(self.form)

    @property
    def cubicslerp_keys(self) -> int | None:
        """Keys of the new CUBICSLERP sampler; None for other forms."""
        return self.keys if self.form == CUBICSLERP else None


@dataclass
class Conversion:
    """A document converted in memory: what ``convert`` writes.

    Attributes
    ----------
    gltf : dict
        The converted JSON document (any JSON value may be anywhere in it).
    buffers : list of bytes or None
        The bytes of each buffer of ``gltf``; None: no data, as read.
    changed : list of bool
        Per buffer: whether its bytes differ from the source's.
    channels : list of ChannelReport
        One per rotation channel with a node.
    world_max : (float, float)
        The largest world-space error of the extension and of the fallback, in degrees.
    dropped_accessors : int
        Accessors that left the document (compaction).
    """

    gltf: dict[str, Any]
    buffers: list[bytes | None]
    changed: list[bool]
    channels: list[ChannelReport]
    world_max: tuple[float, float]
    dropped_accessors: int = 0


def convert_document(document: Document, tolerance_deg: float, min_ratio: float, fallback_tolerance_deg: float,
                     glb: bool = False, compacting: bool = True,
                     progress: Callable[[float], None] | None = None) -> Conversion:
    """Convert a loaded Document in memory; its JSON and buffers stay untouched.

    Parameters
    ----------
    document : Document
        The source, loaded by core.load.
    tolerance_deg, min_ratio, fallback_tolerance_deg : float
        As ConvertOptions' fields.
    glb : bool
        The output is a GLB: new data goes to its BIN chunk when it has one.
    compacting : bool
        Drop what nothing references any more (core.gltf.compaction); False: only add the new data.
    progress : callable or None
        ``progress(fraction)``, from 0 to 1 as the fit goes (core.conversion.world.hold).

    Returns
    -------
    Conversion
        The converted JSON and buffers and a report per rotation channel.

    Examples
    --------
    >>> from gltf_sqlerp.core.document import load
    >>> conversion = convert_document(load("samples/sqlerp_arm.gltf"), 0.01, 1.0, 0.1)
    >>> [(c.node, c.form, c.note) for c in conversion.channels], conversion.changed  # nothing to do
    ([(1, '', 'has EXT_animation_sqlerp already'), (2, ...), (3, ...)], [False])
    """
    gltf = copy.deepcopy(document.json)
    rows, units = _plan(document)
    worlds = [AnimationWorld(document.scene.parents, document.scene.rest_trs().rotation,
                             document.animations[a], list(by_sampler.values()))
              for a, by_sampler in units.items() if by_sampler]
    world_max = hold(worlds, tolerance_deg, fallback_tolerance_deg, min_ratio, progress)
    chosen = [(a, u) for a, by_sampler in units.items() for u in by_sampler.values() if u.keys is not None]
    target = _target_buffer(document.json, [u for _, u in chosen], glb)
    builder = BufferBuilder(gltf)
    first_view = len(gltf.get("bufferViews", []))
    writer = SamplerWriter(gltf, builder)
    for a, unit in chosen:
        writer.write(gltf["animations"][a], unit, unit.keys)
    buffers: list[bytes | None] = _append(gltf, list(document.file.buffers), builder.blob(), first_view, target)
    origins, dropped = np.arange(len(buffers)), 0
    if compacting:
        compacted, compaction = compact(gltf, buffers)
        buffers = list(compacted)
        origins, dropped = np.flatnonzero(compaction.buffers >= 0), compaction.dropped_accessors
    changed = [_changed(document.file.buffers, int(old), data) for old, data in zip(origins, buffers)]
    channels = [_report(row, units[row[0]].get(row[3])) for row in rows]
    return Conversion(gltf, buffers, changed, channels, world_max, dropped)


def _changed(originals, old, data):
    """Whether ``data`` differs from the source's buffer ``old`` (a new buffer does)."""
    return old >= len(originals) or originals[old] is None or bytes(originals[old]) != bytes(data)


def _plan(document):
    """(rows: (animation, core channel, note, sampler or None) per rotation channel with a node;
    units: {animation: {sampler: Unit}} of the LINEAR samplers to rewrite)."""
    gltf = document.json
    inputs = Counter(int(s["input"]) for a in gltf.get("animations", []) for s in a["samplers"])
    played = {c.pointer: c for animation in document.animations for c in animation.channels}
    rows, units = [], {}
    for a, animation in enumerate(gltf.get("animations", [])):
        units[a] = {}
        found = [(c, channel, played.get(pointer("animations", a, "channels", c)))
                 for c, channel in enumerate(animation["channels"])]
        found = [(c, channel, core) for c, channel, core in found if core is not None and core.path == "rotation"]
        # The draft's required form has no core sampler (-1).
        extended = {int(channel.get("sampler", -1)) for _, channel, core in found
                    if core.fallback is not None or EXTENSION_NAME in channel.get("extensions", {})}
        for c, channel, core in found:
            note, s = _why_not(core, channel, extended), int(channel.get("sampler", -1))
            if not note:
                if s not in units[a]:
                    spec = animation["samplers"][s]
                    shared = inputs[int(spec["input"])] > 1
                    units[a][s] = Unit(s, [], [], core.sampler.times, core.sampler.values,
                                       old_bytes(gltf, spec, shared), output=int(spec["output"]))
                units[a][s].nodes.append(core.node)
                units[a][s].channels.append(c)
            rows.append((a, core, note, None if note else s))
    return rows, units


def _why_not(core, channel, extended):
    """Why a rotation channel is not rewritten ('' when it is a candidate)."""
    source = core.fallback or core.sampler
    if core.fallback is not None or EXTENSION_NAME in channel.get("extensions", {}):
        return f"has {EXTENSION_NAME} already"
    if source.interpolation != "LINEAR":
        return f"{source.interpolation}: only LINEAR is rewritten"
    if int(channel.get("sampler", -1)) in extended:
        return f"its sampler is the fallback of a channel with {EXTENSION_NAME}"
    if len(source.times) < 2:
        return "one key: nothing to reduce"
    return ""


def _report(row, unit):
    """The ChannelReport of one row of _plan, with its unit's outcome."""
    a, core, note, s = row
    source = core.fallback or core.sampler
    report = ChannelReport(core.pointer, core.node, len(source.times), source.interpolation, note=note)
    if unit is None:
        return report
    keys = unit.keys
    if keys is None:
        return ChannelReport(core.pointer, core.node, len(source.times), source.interpolation,
                             share=unit.share, note=unit.note)
    if keys.linear is not None:
        return ChannelReport(core.pointer, core.node, len(source.times), source.interpolation, form="LINEAR",
                             keys=key_count(keys), precision=keys.precision,
                             max_error_deg=float(keys.linear.max_error_deg), share=unit.share)
    interpolation, times, _ = fallback(keys)
    return ChannelReport(
        core.pointer, core.node, len(source.times), source.interpolation, form=CUBICSLERP,
        keys=key_count(keys), fallback=interpolation, fallback_keys=len(times), precision=keys.precision,
        max_error_deg=float(cubicslerp(keys).max_error_deg), share=unit.share)


def _target_buffer(gltf, units, glb):
    """The buffer the new data goes to: a GLB's BIN chunk, else the buffer of the first replaced
    sampler's output (its file is written anew anyway), else buffer 0 (None: a new buffer)."""
    buffers = gltf.get("buffers", [])
    if not buffers:
        return None
    if glb and "uri" not in buffers[0]:
        return 0
    for unit in units:
        view = gltf["accessors"][unit.output].get("bufferView")
        if view is not None:
            return int(gltf["bufferViews"][int(view)]["buffer"])
    return 0


def _append(gltf, buffers, blob, first_view, target):
    """``buffers`` with ``blob`` appended to buffer ``target`` (a new one when None), 4-byte
    aligned; the new views (from ``first_view`` on) moved there."""
    if not blob:
        return buffers
    declared = gltf.setdefault("buffers", [])
    if target is None:
        declared.append({})
        buffers.append(b"")
        target = len(declared) - 1
    data = bytes(buffers[target] or b"")
    offset = len(data) + (-len(data) % 4)
    for view in gltf["bufferViews"][first_view:]:
        view["buffer"] = target
        view["byteOffset"] = int(view.get("byteOffset", 0)) + offset
    buffers[target] = data + b"\0" * (offset - len(data)) + blob
    declared[target]["byteLength"] = len(buffers[target])
    return buffers
