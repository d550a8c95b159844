"""First pass of the validator: the JSON shape of ``animations`` (glTF-Validator's ``fromMap``).

Turns each animation into small records holding sanitized indices (-1 when absent or invalid) and
reports schema problems. Nothing here follows a reference; that is the link pass's job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..animation_pointer import node_target
from ..errors import WARNING, pointer
from .json_checks import Report, check_common, get_index, get_object, get_object_list, get_string, object_list, show
from ...constants import CUBICSLERP, EXTENSION_NAME

if TYPE_CHECKING:  # links imports this module
    from .links import AccessorFacts

ANIMATION_POINTER = "KHR_animation_pointer"
PATHS = ("translation", "rotation", "scale", "weights")
INTERPOLATIONS = ("LINEAR", "STEP", "CUBICSPLINE")


@dataclass
class Target:
    node: int  # -1 when absent or invalid
    path: str | None  # None when absent or not a string
    where: str
    node_where: str = ""  # where the node is named: "<where>/node", or a KHR_animation_pointer's pointer

    def __post_init__(self) -> None:
        self.node_where = self.node_where or f"{self.where}/node"


@dataclass
class SqlerpLink:
    """``channel.extensions.EXT_animation_sqlerp``: the CUBICSLERP sampler a channel plays."""
    sampler: int
    where: str


@dataclass
class Channel:
    index: int
    sampler: int
    target: Target | None  # None when absent or not an object
    extension: SqlerpLink | None  # None without EXT_animation_sqlerp
    where: str

    @property
    def draft_form(self) -> bool:
        """The draft's channel without a core sampler (spec "Channel forms", import only)."""
        return self.sampler == -1 and self.extension is not None


@dataclass
class Sampler:
    index: int
    input: int
    output: int
    interpolation: str | None  # None when not a string
    where: str
    # Filled by the link pass: accessor facts, whether data may be read, how the sampler is used.
    input_accessor: AccessorFacts | None = None
    output_accessor: AccessorFacts | None = None
    input_ok: bool = False
    output_ok: bool = False
    used: bool = False
    sqlerp: bool = False


@dataclass
class Animation:
    index: int
    channels: list[Channel] | None  # None when not a non-empty array of objects
    samplers: list[Sampler] | None  # likewise
    where: str

    def linked(self) -> tuple[list[Channel], list[Sampler]]:
        """(channels, samplers) of an animation that has both, as every one the link passes get."""
        if self.channels is None or self.samplers is None:
            raise ValueError(f"animation {self.index} lacks channels or samplers: it is not linked")
        return self.channels, self.samplers


def parse_animations(report: Report, document: dict[str, Any]) -> list[Animation]:
    """Records of every animation that is a JSON object; schema findings go to ``report``."""
    if "animations" not in document:
        return []
    value = document["animations"]
    if not isinstance(value, list) or not value:
        object_list(report, value, "/animations")
        return []
    result = []
    for a, item in enumerate(value):
        # Unlike inner arrays, a root array with a non-object element keeps its other elements.
        if isinstance(item, dict):
            result.append(_animation(report, a, item))
        else:
            report.add("TYPE_MISMATCH", pointer("animations", a),
                       f"Type mismatch. Property value {show(item)} is not a 'object'.")
    return result


def _animation(report, a, item):
    where = pointer("animations", a)
    check_common(report, item, where, ("channels", "samplers", "name"))
    channel_items = get_object_list(report, item, "channels", where)
    channels = None if channel_items is None else [
        _channel(report, where, c, channel) for c, channel in enumerate(channel_items)]
    # Samplers a channel plays through the extension may say "CUBICSLERP" without a warning.
    via_extension = {ch.extension.sampler for ch in channels or () if ch.extension is not None}
    sampler_items = get_object_list(report, item, "samplers", where)
    samplers = None if sampler_items is None else [
        _sampler(report, where, s, sampler, s in via_extension)
        for s, sampler in enumerate(sampler_items)]
    get_string(report, item, "name", where)
    return Animation(a, channels, samplers, where)


def _channel(report, animation_where, c, item):
    where = f"{animation_where}/channels/{c}"
    extensions = check_common(report, item, where, ("target", "sampler"))
    extension = _sqlerp_link(report, extensions.get(EXTENSION_NAME), where)
    # The draft form omits the core sampler; accepted only when the extension is declared.
    draft = extension is not None and EXTENSION_NAME in report.extensions_used and "sampler" not in item
    sampler = get_index(report, item, "sampler", where, required=not draft)
    if draft and EXTENSION_NAME not in report.extensions_required:
        report.add("SQLERP_NOT_REQUIRED", where,
                   f"Channel has no core 'sampler' (the {EXTENSION_NAME} draft form) but {EXTENSION_NAME} is "
                   "not in extensionsRequired: viewers without the extension cannot play it.",
                   WARNING)
    target_item = get_object(report, item, "target", where, required=True)
    target = None if target_item is None else _target(report, target_item, f"{where}/target")
    return Channel(c, sampler, target, extension, where)


def _sqlerp_link(report, item, channel_where):
    if item is None:
        return None
    where = f"{channel_where}/extensions/{EXTENSION_NAME}"
    check_common(report, item, where, ("sampler",))
    return SqlerpLink(get_index(report, item, "sampler", where, required=True), where)


def _target(report, item, where):
    check_common(report, item, where, ("node", "path"))
    paths = PATHS + (("pointer",) if ANIMATION_POINTER in report.extensions_used else ())
    node = get_index(report, item, "node", where, required=False)
    path = get_string(report, item, "path", where, required=True, allowed=paths)
    pointed = node_target(item) if path == "pointer" else None
    if pointed is not None:  # a node's TRS or weights through a pointer: checked as a node channel
        node, path = pointed
        return Target(node, path, where, f"{where}/extensions/{ANIMATION_POINTER}/pointer")
    return Target(node, path, where)


def _sampler(report, animation_where, s, item, via_extension):
    where = f"{animation_where}/samplers/{s}"
    check_common(report, item, where, ("input", "interpolation", "output"))
    return Sampler(
        index=s,
        input=get_index(report, item, "input", where),
        interpolation=get_string(report, item, "interpolation", where, allowed=INTERPOLATIONS,
                                 default="LINEAR", quiet=(CUBICSLERP,) if via_extension else ()),
        output=get_index(report, item, "output", where),
        where=where)
