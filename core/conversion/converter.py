"""Rewriting a glTF file's dense LINEAR rotations in fewer bytes, without Blender (issue 17).

``convert(source, destination, tolerance_deg)`` reads a .gltf or .glb and rewrites every rotation
channel played by a LINEAR sampler that does not carry EXT_animation_sqlerp yet, as the smallest of
(core.conversion.channels): LINEAR keys alone (fewer keys, or 16-bit values: a core sampler, no
extension), or CUBICSLERP keys in the extension with a reduced fallback (LINEAR, or CUBICSPLINE at
the CUBICSLERP key times). The file plays the original motion within ``tolerance_deg`` in world
space, and what viewers without the extension play (the fallback) within
``fallback_tolerance_deg`` (core.conversion.world). The replaced data leaves the file
(core.gltf.compaction): the output is smaller than the input, or nothing is written and the
report says why (``allow_larger`` writes it anyway).

- STEP rotations have no motion between keys to fit, and CUBICSPLINE ones are smooth curves already:
  both are left alone, like channels that carry the extension. Translation, scale and weights
  channels are left as they are.
- A file using an extension whose references to accessors or buffer views this module cannot
  rewrite is not compacted: nothing is written (``allow_larger``: the old data stays beside the new).
"""

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import numpy as np

from ..gltf import unknown_extensions
from .channels import CHECKS_PER_INTERVAL, check_times
from .files import external_uris, glb_form, planned_size, planned_writes, size_on_disk, source_dir, write_all
from .plan import ChannelReport, Conversion, convert_document
from ..document import load
from ..gltf import ERROR, Finding, GltfError
from ..gltf import GltfFile, parse_json_only
from ..gltf.validation import validate
from ..constants import FALLBACK_TOLERANCE_DEG, ROTATION_TOLERANCE_DEG

def check_arguments(tolerance_deg: float, min_ratio: float,
                    fallback_tolerance_deg: float = FALLBACK_TOLERANCE_DEG,
                    names: tuple[str, str, str] = ("tolerance_deg", "min_ratio", "fallback_tolerance_deg")) -> None:
    """Check that the tolerances and the ratio are in range, naming a bad one as the caller does.

    The fallback's tolerance is at least the extension's: LINEAR keys alone play in both.

    Parameters
    ----------
    tolerance_deg : float
        Degrees in (0, 180).
    min_ratio : float
        A finite number >= 1.
    fallback_tolerance_deg : float
        Degrees in [tolerance_deg, 180).
    names : (str, str, str)
        What the caller calls the three (keywords, command-line options), for the message.

    Raises
    ------
    ValueError
        The first argument out of range (NaN and non-numbers included), by its name.

    Examples
    --------
    >>> check_arguments(0.01, 1.0)  # the defaults: nothing to say
    >>> check_arguments(0.1, 2.0, 0.05)
    Traceback (most recent call last):
    ValueError: fallback_tolerance_deg must be degrees in [tolerance_deg, 180), got 0.05
    >>> check_arguments(0.0, 1.0, names=("--tolerance", "--min-ratio", "--fallback-tolerance"))
    Traceback (most recent call last):
    ValueError: --tolerance must be degrees in (0, 180), got 0.0
    """
    if not 0.0 < _number(tolerance_deg) < 180.0:  # NaN fails every comparison
        raise ValueError(f"{names[0]} must be degrees in (0, 180), got {tolerance_deg!r}")
    if not 1.0 <= _number(min_ratio) < np.inf:
        raise ValueError(f"{names[1]} must be a number >= 1, got {min_ratio!r}")
    if not _number(tolerance_deg) <= _number(fallback_tolerance_deg) < 180.0:
        raise ValueError(f"{names[2]} must be degrees in [{names[0]}, 180), got {fallback_tolerance_deg!r}")


def _number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return np.nan



@dataclass(frozen=True)
class ConvertOptions:
    """The options that decide a conversion's output; ``CONVERT_DEFAULTS`` holds the defaults.

    One options object beside one defaults object, as glTF-Transform's functions take them.
    pipeline.fingerprint records these fields: an output made with other values is redone. The
    values are checked on creation (check_arguments: ValueError).

    Attributes
    ----------
    tolerance_deg : float
        The largest world-space angle between the output's rotations and the source's, in degrees.
    min_ratio : float
        A channel is rewritten only when it needs at most 1 / min_ratio of its keys.
    fallback_tolerance_deg : float
        The same bound for what viewers without the extension play: at least ``tolerance_deg``;
        by default the Blender exporter's, ten times the extension's.
    allow_larger : bool
        Write the output even when it is not smaller than the source.

    Examples
    --------
    >>> CONVERT_DEFAULTS.tolerance_deg, CONVERT_DEFAULTS.fallback_tolerance_deg
    (0.01, 0.1)
    >>> ConvertOptions(min_ratio=0.5)
    Traceback (most recent call last):
    ValueError: min_ratio must be a number >= 1, got 0.5
    """
    tolerance_deg: float = ROTATION_TOLERANCE_DEG
    min_ratio: float = 1.0
    fallback_tolerance_deg: float = FALLBACK_TOLERANCE_DEG
    allow_larger: bool = False

    def __post_init__(self) -> None:
        check_arguments(self.tolerance_deg, self.min_ratio, self.fallback_tolerance_deg)


CONVERT_DEFAULTS = ConvertOptions()


@dataclass
class ConvertReport:
    """What ``convert`` did, or why it wrote nothing.

    Attributes
    ----------
    source, destination : Path
        The paths ``convert`` was given.
    tolerance_deg : float
        The world-space tolerance of the conversion, in degrees.
    channels : list of ChannelReport
        One per rotation channel with a node: its new form and keys, or why it was left alone.
    source_bytes : int
        The .gltf/.glb and its external buffers (images not counted).
    destination_bytes : int
        The same of the output (planned: also when nothing is written).
    written : bool
        False: nothing written, ``reason`` says why.
    reason : str
        "nothing written: ..." when ``written`` is False, else "".
    nothing_to_convert : bool
        No rotation channel could be rewritten (or there is none).
    fallback_tolerance_deg : float
        The tolerance of what viewers without the extension play, in degrees.
    world_max_deg, world_max_fallback_deg : float
        The largest world-space error measured of the extension (or LINEAR keys), and of the
        fallback, in degrees.
    dropped_accessors : int
        Accessors that left the file (the replaced samplers' data).
    files : list of Path
        Every file written, the destination last.
    warnings : list of Finding
        The source's repairable problems (core.load).
    """

    source: Path
    destination: Path
    tolerance_deg: float
    channels: list[ChannelReport]
    source_bytes: int
    destination_bytes: int
    written: bool = True
    reason: str = ""
    nothing_to_convert: bool = False
    fallback_tolerance_deg: float = FALLBACK_TOLERANCE_DEG
    world_max_deg: float = 0.0
    world_max_fallback_deg: float = 0.0
    dropped_accessors: int = 0
    files: list[Path] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)

    @property
    def converted(self) -> list[ChannelReport]:
        """The channels rewritten."""
        return [c for c in self.channels if c.converted]


def convert(source_path: str | os.PathLike[str], destination_path: str | os.PathLike[str],
            options: ConvertOptions = CONVERT_DEFAULTS, *,
            provenance: dict[str, Any] | None = None,  # {"key": str, "value": any JSON value}
            progress: Callable[[float], None] | None = None, **keywords: Any) -> ConvertReport:
    """Rewrite a glTF file's dense LINEAR rotations in fewer bytes, as the module's text says.

    The output is written when it is smaller than the source or ``allow_larger``; else nothing is
    written (the report's ``written`` and ``reason``). Rewritten buffers go to new files beside
    it; the source's external files it still references are copied when it is in another folder.

    Parameters
    ----------
    source_path : str or PathLike
        The .gltf or .glb to convert.
    destination_path : str or PathLike
        The output: .glb for a GLB source, .gltf for a JSON one.
    options : ConvertOptions
        Tolerances, ratio and ``allow_larger``; CONVERT_DEFAULTS by default.
    provenance : dict or None
        {"key": str, "value": any JSON value}, recorded in the output's ``asset.extras`` under its
        key (pipeline.fingerprint: what makes the output up to date); a redo with the same key
        may replace the files an earlier output wrote.
    progress : callable or None
        ``progress(fraction)`` is called as the fit goes, from 0 to 1 (for a progress bar).
    **keywords
        ConvertOptions fields that replace the ones of ``options`` (``tolerance_deg=0.05``).

    Returns
    -------
    ConvertReport
        Each rotation channel's new form, the bytes before and after, the measured world error,
        the files written.

    Raises
    ------
    GltfError
        The source is invalid; nothing is written.
    ValueError
        Bad options, or a destination whose extension does not match the source's form.
    OSError
        Writing failed; files already there stay as they were.

    Examples
    --------
    A node turning 90 degrees about z at one speed, in 31 LINEAR keys: one slerp between its two
    ends plays it all, so two LINEAR keys replace the 31.

    >>> import tempfile
    >>> from gltf_sqlerp.core.gltf import writer
    >>> times = np.linspace(0.0, 1.0, 31); half = np.radians(90.0) * times / 2
    >>> turn = np.stack([0 * half, 0 * half, np.sin(half), np.cos(half)], axis=1)  # (31, 4) x, y, z, w
    >>> animation = {"samplers": [{"input": 0, "output": 1}],  # interpolation: LINEAR by default
    ...              "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}
    >>> document = {"asset": {"version": "2.0"}, "nodes": [{}], "animations": [animation]}
    >>> builder = writer.BufferBuilder(document)
    >>> builder.add_accessor(times, bounds=True), builder.add_accessor(turn)
    (0, 1)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     writer.write_gltf(Path(folder) / "turn.gltf", document, builder.blob())
    ...     report = convert(Path(folder) / "turn.gltf", Path(folder) / "small.gltf")
    >>> report.written, [(c.form, c.keys) for c in report.channels], report.destination_bytes < report.source_bytes
    (True, [('LINEAR', 2)], True)
    """
    options = replace(options, **keywords) if keywords else options
    tolerance_deg, min_ratio = options.tolerance_deg, options.min_ratio
    fallback_tolerance_deg, allow_larger = options.fallback_tolerance_deg, options.allow_larger
    source, destination = Path(source_path), Path(destination_path)
    document = load(source)
    glb = glb_form(source, destination)
    report = ConvertReport(source, destination, tolerance_deg, [], size_on_disk(source, document.json),
                           0, fallback_tolerance_deg=fallback_tolerance_deg, warnings=document.warnings)
    unknown = unknown_extensions(document.json)
    if unknown and not allow_larger:
        return _nothing(report, f"it uses {', '.join(unknown)}, whose references to buffer data this "
                        "converter cannot rewrite, so the replaced data could not leave the file")
    result = convert_document(document, tolerance_deg, min_ratio, fallback_tolerance_deg, glb,
                              compacting=not unknown, progress=progress)
    _fill(report, result)
    report.nothing_to_convert = not any(c.converted for c in result.channels)
    if not result.channels and not allow_larger:
        return _nothing(report, "the file has no rotation channel (translation, scale and weights "
                        "channels are left as they are)")
    if not any(c.converted for c in result.channels) and not allow_larger:
        return _nothing(report, "no rotation channel can be rewritten in fewer bytes within "
                        f"{tolerance_deg:g} deg ({_left_alone(result.channels)})")
    if provenance is not None:
        _record(result.gltf, provenance)
    _check_output(result.gltf, result.buffers)
    writes = planned_writes(document, result.gltf, result.buffers, result.changed, destination, glb,
                            compact_json=not glb and _minified(source),
                            owned=_owned_files(destination, provenance))
    report.destination_bytes = planned_size(writes, result.gltf, source_dir(document))
    if report.destination_bytes >= report.source_bytes and not allow_larger:
        return _nothing(report, f"the output would be {report.destination_bytes:,} bytes, not smaller "
                        f"than the input's {report.source_bytes:,}")
    report.files = write_all(writes)
    return report


def _owned_files(destination, provenance):
    """Resolved paths of the files an earlier output at ``destination`` references, when that
    output carries the same provenance key (this conversion wrote it and them): a redo replaces
    them instead of refusing to."""
    if provenance is None or not destination.is_file():
        return frozenset()
    try:
        earlier = parse_json_only(destination.read_bytes())
        extras = earlier.get("asset", {}).get("extras")
        if not isinstance(extras, dict) or provenance["key"] not in extras:
            return frozenset()
        return frozenset((destination.parent / unquote(uri)).resolve()
                         for _, uri in external_uris(earlier))
    except (OSError, GltfError, TypeError, AttributeError):
        return frozenset()


def _record(gltf, provenance):
    """Put ``provenance["value"]`` in ``asset.extras[provenance["key"]]``; extras that are not an
    object (the spec allows any JSON) are left as they are."""
    asset = gltf.setdefault("asset", {})
    extras = asset.setdefault("extras", {})
    if isinstance(extras, dict):
        extras[provenance["key"]] = provenance["value"]


def _fill(report, result: Conversion):
    report.channels = result.channels
    report.world_max_deg, report.world_max_fallback_deg = result.world_max
    report.dropped_accessors = result.dropped_accessors


def _nothing(report, reason):
    report.written, report.reason = False, f"nothing written: {reason}"
    return report


def _left_alone(channels):
    """The notes of the channels left alone, counted, most frequent first."""
    notes = {}
    for channel in channels:
        notes[channel.note] = notes.get(channel.note, 0) + 1
    return "; ".join(f"{count} x {note}" for note, count in sorted(notes.items(), key=lambda i: -i[1]))


def _minified(source):
    """Whether a .gltf source's JSON is written without line breaks (then so is the output)."""
    return b"\n" not in source.read_bytes().strip()


def _check_output(gltf, buffers):
    """Validate the converted file in memory before anything is written: an error here is this
    package's fault, never the source's (which passed core.load)."""
    errors = [f for f in validate(GltfFile(json=gltf, buffers=buffers)) if f.severity == ERROR]
    if errors:
        raise RuntimeError(f"the converted file would not load ({GltfError.from_findings(errors)}); "
                           "nothing was written")


__all__ = ["convert", "convert_document", "check_arguments", "check_times", "CHECKS_PER_INTERVAL",
           "ConvertOptions", "CONVERT_DEFAULTS", "ConvertReport"]
