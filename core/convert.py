"""Adding EXT_animation_sqlerp CUBICSLERP samplers to dense LINEAR rotations, without Blender.

``convert(source, destination, tolerance_deg)`` reads a .gltf or .glb and, for every rotation channel
played by a LINEAR sampler that does not carry the extension yet, adds a CUBICSLERP sampler with fewer
keys that follows the LINEAR sampler as the spec plays it (slerp) within the tolerance. The channel's
own sampler stays, untouched, as the fallback (conventions §3, the default form). Nothing else
changes: the JSON is only added to, and the new data goes after every existing byte.

- STEP rotations have no motion between keys to fit, and CUBICSPLINE ones are smooth curves already:
  both are left alone, like channels that carry the extension.
- A dense LINEAR curve has a corner at every key, and a smooth curve follows it within the tolerance
  only where those corners are small against it. A channel that would need as many CUBICSLERP keys
  as it has LINEAR keys (or more than 1 / min_ratio of them) is left alone, and reported so.
"""

import base64
import copy
import json
import os
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote

import numpy as np

from . import quaternions as quat
from .animation import EXTENSION
from .document import load
from .errors import ERROR, GltfError, pointer
from .gltf_file import CHUNK_BIN, CHUNK_JSON, GLB_MAGIC, GltfFile, read_relative_uri
from .interpolation import Evaluator
from .sqlerp_fit import fit_cubicslerp
from .validate import validate
from .writer import BufferBuilder, write_atomic

DEFAULT_TOLERANCE_DEG = 0.01
# Check times per original interval (its start included). The error between a smooth curve and a
# polyline peaks at the corners (the keys) or inside the intervals; on CesiumMan and 24-30 fps
# synthetic motions it exceeded the tolerance between check points by up to 1.7 % with 4 per
# interval and 1.1 % with 8 (measured at 64 per interval), hence 8 and FIT_SHARE.
CHECKS_PER_INTERVAL = 8
# The fit aims at this share of the tolerance: room for the error between check points and for
# float32 rounding (about 1e-5 deg), so the measured error rarely needs a second fit.
FIT_SHARE = 0.98
ROUNDING_RETRIES = 3


@dataclass(frozen=True)
class SamplerFit:
    """A CUBICSLERP sampler as written: float32 key times and interleaved a, v, b rows."""
    times: np.ndarray        # (n,) float32
    rows: np.ndarray         # (3n, 4) float32
    max_error_deg: float     # against the LINEAR curve at the check times, after float32 rounding


@dataclass(frozen=True)
class ChannelReport:
    pointer: str                 # /animations/a/channels/c
    node: int
    original_keys: int
    interpolation: str           # of the channel's own sampler
    cubicslerp_keys: int = None  # None when the channel was left alone
    max_error_deg: float = None
    sampler: int = None          # the new CUBICSLERP sampler's index in the animation
    note: str = ""               # why a channel was left alone

    @property
    def converted(self):
        return self.sampler is not None


@dataclass
class ConvertReport:
    source: Path
    destination: Path
    tolerance_deg: float
    channels: list               # ChannelReport per rotation channel with a node
    source_bytes: int            # the .gltf/.glb and its external buffers (images not counted)
    destination_bytes: int
    files: list = field(default_factory=list)     # every file written, the destination last
    warnings: list = field(default_factory=list)  # the source's repairable problems (core.load)

    @property
    def converted(self):
        return [c for c in self.channels if c.converted]


def convert(source_path, destination_path, tolerance_deg=DEFAULT_TOLERANCE_DEG, min_ratio=1.0):
    """Write ``destination_path`` (.glb for a GLB source, .gltf for a JSON one): the source with a
    CUBICSLERP sampler for every LINEAR rotation channel a smooth curve with fewer keys (at most
    1 / ``min_ratio`` of them) follows within ``tolerance_deg`` degrees. Raises GltfError on an
    invalid source (nothing is written), ValueError on bad arguments, OSError when writing fails
    (files already there stay as they were).
    """
    source, destination = Path(source_path), Path(destination_path)
    check_arguments(tolerance_deg, min_ratio)
    document = load(source)
    glb = _glb_form(source, destination)
    source_bytes = _size_on_disk(source, document.json)
    buffer_index, byte_offset = _placement(document.file, glb)
    gltf, blob, channels = convert_document(document, tolerance_deg, min_ratio, buffer_index,
                                            byte_offset)
    buffers = _final_buffers(document.file, blob, buffer_index)
    _check_output(gltf, buffers)
    files = _write_all(_planned_writes(document, gltf, buffers, destination, glb))
    return ConvertReport(source, destination, tolerance_deg, channels, source_bytes,
                         _size_on_disk(destination, gltf), files, document.warnings)


def convert_document(document, tolerance_deg=DEFAULT_TOLERANCE_DEG, min_ratio=1.0, buffer_index=None,
                     byte_offset=0):
    """Convert a loaded Document (core.load) in memory: (gltf JSON, blob, channel reports).

    The JSON is a converted deep copy; its new buffer views lie in buffer ``buffer_index`` from
    ``byte_offset`` (a multiple of 4) on, and that buffer's byteLength covers them. With
    ``buffer_index`` None a buffer without ``uri`` is appended: the caller says where it lives.
    ``blob`` holds the new views' bytes; it is empty, and the JSON unchanged, when nothing converts.
    """
    check_arguments(tolerance_deg, min_ratio)
    assert byte_offset % 4 == 0, "views of float data start at multiples of 4"
    gltf = copy.deepcopy(document.json)
    played = {c.pointer: c for animation in document.animations for c in animation.channels}
    builder = BufferBuilder(gltf)
    first_view = len(gltf.get("bufferViews", []))
    reports = []
    for a, animation in enumerate(gltf.get("animations", [])):
        reports += _convert_animation(builder, a, animation, played, (tolerance_deg, min_ratio))
    blob = builder.blob()
    if blob:
        _place_views(gltf, first_view, buffer_index, byte_offset, len(blob))
        used = gltf.setdefault("extensionsUsed", [])
        if EXTENSION not in used:
            used.append(EXTENSION)
    return gltf, blob, reports


def _convert_animation(builder, a, animation, played, limits):
    """Reports for the rotation channels of one animation; adds its CUBICSLERP samplers."""
    samplers, reports = animation["samplers"], []
    made, inputs = {}, {}  # per original sampler (channels may share one); per key-time bytes
    for c, channel in enumerate(animation["channels"]):
        core_channel = played.get(pointer("animations", a, "channels", c))
        if core_channel is None or core_channel.path != "rotation":
            continue  # no node, or another path: not ours to convert
        source = core_channel.fallback or core_channel.sampler
        row = ChannelReport(core_channel.pointer, core_channel.node, len(source.times),
                            source.interpolation)
        if core_channel.fallback is not None or EXTENSION in channel.get("extensions", {}):
            note = f"has {EXTENSION} already"
        elif source.interpolation != "LINEAR":
            note = f"{source.interpolation}: only LINEAR is converted"
        else:
            s = int(channel["sampler"])
            if s not in made:
                made[s] = _add_sampler(builder, samplers, source, inputs, limits)
            index, fit, note = made[s]
            if fit is not None:
                channel.setdefault("extensions", {})[EXTENSION] = {"sampler": index}
                row = replace(row, cubicslerp_keys=len(fit.times), max_error_deg=fit.max_error_deg,
                              sampler=index)
        reports.append(replace(row, note=note))
    return reports


def _add_sampler(builder, samplers, source, inputs, limits):
    """(new sampler index, SamplerFit, "") or (None, None, why not) for one LINEAR sampler."""
    try:
        fit = fit_linear_rotation(source.times, source.values, *limits)
    except ValueError as reason:
        return None, None, str(reason)
    key = fit.times.tobytes()
    if key not in inputs:  # channels of one animation often share their key times
        inputs[key] = builder.add_accessor(fit.times, bounds=True)
    samplers.append({"input": inputs[key], "interpolation": "CUBICSLERP",
                     "output": builder.add_accessor(fit.rows)})
    return len(samplers) - 1, fit, ""


def fit_linear_rotation(times, values, tolerance_deg=DEFAULT_TOLERANCE_DEG, min_ratio=1.0):
    """A SamplerFit following the LINEAR rotation keys (times, values) within ``tolerance_deg`` at
    check_times(times), measured on the float32 rows with the spec's evaluators. Raises ValueError
    (saying why) when no CUBICSLERP sampler with fewer keys than the original, and at most
    1 / ``min_ratio`` of them, does.

    Key choice (measured on CesiumMan, a bundled-exporter rig at 24 fps and a 30 fps synthetic rig,
    0.01 to 0.1 deg): fit_cubicslerp starts from the end keys and adds one at the worst check time
    of every segment that misses (from every 4th, 8th or 16th key, or where the corners peak, it
    ended with as many keys or up to 25 % more); one refit from every other key of the result
    saves 3 to 9 % of them for 30 % more time (further rounds saved under 1.5 %).
    """
    times = np.asarray(times, dtype=np.float64)
    if len(times) < 3:
        raise ValueError(f"{len(times)} keys: a CUBICSLERP sampler cannot have fewer")
    target = Evaluator("LINEAR", times, values, rotation=True)
    check = check_times(times)
    expected = target(check)
    aim = FIT_SHARE * tolerance_deg
    for _ in range(ROUNDING_RETRIES):
        fit = _fewest_keys(target, times, check, aim)
        if fit is None:
            raise ValueError(f"needs {len(times)} keys or more within {tolerance_deg:g} deg: the "
                             "LINEAR curve's corners are too large for the tolerance")
        if len(fit.times) * min_ratio > len(times):
            raise ValueError(f"needs {len(fit.times)} of its {len(times)} keys within "
                             f"{tolerance_deg:g} deg, more than 1/{min_ratio:g} of them")
        key_times, rows = fit.times.astype(np.float32), fit.interleaved().astype(np.float32)
        played = Evaluator("CUBICSLERP", key_times, quat.normalize(rows.astype(np.float64)))(check)
        error = float(quat.angle_between(played, expected).max())
        if error <= tolerance_deg:
            return SamplerFit(key_times, rows, error)
        aim *= FIT_SHARE * tolerance_deg / error  # float32 rounding took the rest: aim lower
    raise ValueError(f"float32 rounding keeps the error at {error:.4g} deg, over {tolerance_deg:g}")


def check_times(times):
    """Every key time and CHECKS_PER_INTERVAL - 1 evenly spaced times inside each interval,
    rounded to float32: fit_cubicslerp inserts keys at check times, and float32-exact key times
    play in the written file exactly as fitted."""
    steps = np.arange(CHECKS_PER_INTERVAL) / CHECKS_PER_INTERVAL
    inside = times[:-1, None] + np.diff(times)[:, None] * steps
    check = np.append(inside.reshape(-1), times[-1]).astype(np.float32).astype(np.float64)
    return np.unique(check)  # rounding may merge the check times of a very short interval


def _fewest_keys(target, times, check, aim):
    """The CubicSlerpFit with the fewest keys found (see fit_linear_rotation), or None when even
    the first fit needs as many as the original (it stops early then)."""
    try:
        best = fit_cubicslerp(target, times[[0, -1]], check, aim, max_keys=len(times) - 1,
                              split_at="worst")  # a polyline: its error sits at its corners
    except ValueError:
        return None
    if len(best.times) > 3:
        start = np.append(best.times[:-1:2], best.times[-1])
        try:
            best = fit_cubicslerp(target, start, check, aim, max_keys=len(best.times) - 1,
                                  split_at="worst")
        except ValueError:  # not fewer keys this way
            pass
    return best


def check_arguments(tolerance_deg, min_ratio, names=("tolerance_deg", "min_ratio")):
    """ValueError naming the argument (as ``names`` call them) when the tolerance or the ratio is
    out of range."""
    if not 0.0 < _number(tolerance_deg) < 180.0:  # NaN fails every comparison
        raise ValueError(f"{names[0]} must be degrees in (0, 180), got {tolerance_deg!r}")
    if not 1.0 <= _number(min_ratio) < np.inf:
        raise ValueError(f"{names[1]} must be a number >= 1, got {min_ratio!r}")


def _number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return np.nan


def _place_views(gltf, first_view, buffer_index, byte_offset, length):
    buffers = gltf.setdefault("buffers", [])
    if buffer_index is None:
        buffer_index = len(buffers)
        buffers.append({})
    for view in gltf["bufferViews"][first_view:]:
        view["buffer"] = buffer_index
        view["byteOffset"] += byte_offset
    buffers[buffer_index]["byteLength"] = byte_offset + length


def _glb_form(source, destination):
    """Whether the source is a GLB (by its first bytes, as read_file does); the destination's
    name must say the same form."""
    with open(source, "rb") as stream:
        glb = stream.read(4) == GLB_MAGIC
    expected = ".glb" if glb else ".gltf"
    if destination.suffix.lower() != expected:
        raise ValueError(f"{destination.name}: a {'GLB' if glb else '.gltf'} source is written as "
                         f"{expected}; the destination must end in {expected}")
    return glb


def _placement(gltf_file, glb):
    """(buffer index, byte offset) of the new data: the end of a GLB's BIN chunk (buffer 0),
    else a new buffer (None)."""
    buffers = gltf_file.json.get("buffers", [])
    if glb and buffers and "uri" not in buffers[0] and gltf_file.buffers[0] is not None:
        return 0, len(gltf_file.buffers[0]) + (-len(gltf_file.buffers[0]) % 4)
    return None, 0


def _final_buffers(gltf_file, blob, buffer_index):
    """The source's buffer bytes with the new data appended to ``buffer_index`` or a new buffer."""
    buffers = list(gltf_file.buffers)
    if blob and buffer_index is None:
        buffers.append(blob)
    elif blob:
        buffers[buffer_index] += b"\0" * (-len(buffers[buffer_index]) % 4) + blob
    return buffers


def _check_output(gltf, buffers):
    """Validate the converted file in memory before anything is written: an error here is this
    module's fault, never the source's (which passed core.load)."""
    errors = [f for f in validate(GltfFile(json=gltf, buffers=buffers)) if f.severity == ERROR]
    if errors:
        raise RuntimeError(f"the converted file would not load ({GltfError.from_findings(errors)}); "
                           "nothing was written")


def _planned_writes(document, gltf, buffers, destination, glb):
    """[(path, bytes)], the destination last: the source's external files when the destination is
    in another folder (so that their relative URIs stay valid), a new buffer (an external .bin
    when the source keeps its buffers in files, else a data: URI), then the .gltf or .glb."""
    writes = _copied_resources(document, destination)
    declared = gltf.get("buffers", [])
    added = len(declared) > len(document.json.get("buffers", []))
    # Only buffer 0 can live in a GLB's BIN chunk; a .gltf with only data: URIs stays embedded.
    if added and len(declared) > 1 and (glb or not _external_uris(document.json, ("buffers",))):
        declared[-1]["uri"] = "data:application/octet-stream;base64," + \
            base64.b64encode(buffers[-1]).decode("ascii")
    elif added and not glb:
        declared[-1]["uri"] = _new_bin_name(destination, gltf, buffers[-1])
        writes.append((destination.parent / declared[-1]["uri"], buffers[-1]))
    if glb:
        chunk = buffers[0] if declared and "uri" not in declared[0] else None
        return writes + [(destination, _glb_bytes(gltf, chunk))]
    return writes + [(destination, (json.dumps(gltf, indent=1) + "\n").encode("utf-8"))]


def _external_uris(gltf, kinds=("buffers", "images")):
    """(JSON pointer, URI) of every URI of those kinds that names a file (not data:)."""
    return [(pointer(kind, i, "uri"), item["uri"]) for kind in kinds
            for i, item in enumerate(gltf.get(kind, []))
            if isinstance(item, dict) and isinstance(item.get("uri"), str)
            and not item["uri"].startswith("data:")]


def _new_bin_name(destination, gltf, data):
    """<stem>_sqlerp.bin, numbered when the file uses that URI or another file of that name
    exists (unless it holds the same bytes): never overwrite what an older file may reference."""
    used = {unquote(uri) for _, uri in _external_uris(gltf)}
    for number in range(1, 10000):
        name = f"{destination.stem}_sqlerp{'' if number == 1 else f'_{number}'}.bin"
        path = destination.parent / name
        if name not in used and (not path.exists() or path.read_bytes() == data):
            return name
    raise FileExistsError(f"no free name for the new buffer beside {destination}")


def _copied_resources(document, destination):
    """[(path, bytes)] of the source's external buffers and images, at the same relative paths
    beside the destination, when it is in another folder. A different file already there is an
    error (FileExistsError): it may belong to another asset."""
    source_dir = document.file.base_dir
    if source_dir.resolve() == destination.parent.resolve():
        return []
    writes = []
    for where, uri in _external_uris(document.json):
        data = read_relative_uri(uri, source_dir, where)
        target = destination.parent / unquote(uri)
        if not target.exists():
            writes.append((target, data))
        elif target.read_bytes() != data:
            raise FileExistsError(f"{target} exists with other content than the source's "
                                  f"{uri!r}; convert into another folder or beside the source")
    return writes


def _write_all(writes):
    """Write every (path, bytes) atomically, in order; if one fails, remove the files this call
    created (files it replaced keep their new content, or their old one where it failed)."""
    created = []
    try:
        for path, data in writes:
            if not path.exists():
                created.append(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data)
    except BaseException:
        for path in created:
            if path.exists():
                path.unlink()
        raise
    return [path for path, _ in writes]


def _glb_bytes(gltf, chunk):
    """A binary glTF: 12-byte header, JSON chunk (space padded), BIN chunk (zero padded) if any.
    Other chunks of the source (unknown types, which loaders ignore) are not kept."""
    json_bytes = json.dumps(gltf, separators=(",", ":")).encode("utf-8")
    json_bytes += b" " * (-len(json_bytes) % 4)
    body = struct.pack("<II", len(json_bytes), CHUNK_JSON) + json_bytes
    if chunk is not None:
        chunk += b"\0" * (-len(chunk) % 4)
        body += struct.pack("<II", len(chunk), CHUNK_BIN) + chunk
    return struct.pack("<4sII", GLB_MAGIC, 2, 12 + len(body)) + body


def _size_on_disk(path, gltf):
    """Bytes of the file and of the external buffers it references (missing ones count 0)."""
    files = [Path(path).parent / unquote(uri) for _, uri in _external_uris(gltf, ("buffers",))]
    return os.path.getsize(path) + sum(f.stat().st_size for f in files if f.is_file())
