"""Second pass of the validator: references between animation objects, accessors and nodes.

Mirrors ``Animation.link`` of glTF-Validator (lib/src/base/animation.dart): unresolved references,
accessor formats and counts, byteStride, input bounds, node matrix/skin/morph targets, duplicate
targets. Data checks are not run here; they are queued on a ``Plan`` for accessors whose structure
passed, so that data is only read when it can be decoded meaningfully.
"""

from dataclasses import dataclass, field
from typing import Any

from ..accessors import TYPE_SIZES
from ..errors import INFO, WARNING, pointer
from .json_checks import Report, as_index, show_list
from .structure import CUBICSLERP, PATHS, Animation

COMPONENT_NAMES = {5120: "BYTE", 5121: "UNSIGNED_BYTE", 5122: "SHORT", 5123: "UNSIGNED_SHORT",
                   5125: "UNSIGNED_INT", 5126: "FLOAT"}
FLOAT = 5126


@dataclass(frozen=True)
class Format:
    type: str | None  # None when the accessor's type is not a string
    component_type: int  # -1 when not a glTF component type
    normalized: bool = False

    def __str__(self) -> str:
        name = COMPONENT_NAMES.get(self.component_type, "null")
        return f"{{{self.type or 'null'}, {name}{' normalized' if self.normalized else ''}}}"


def _normalized_formats(kind):
    return [Format(kind, FLOAT)] + [Format(kind, c, True) for c in (5121, 5120, 5123, 5122)]


INPUT_FORMAT = Format("SCALAR", FLOAT)
ROTATION_FORMATS = _normalized_formats("VEC4")
OUTPUT_FORMATS = {"translation": [Format("VEC3", FLOAT)], "rotation": ROTATION_FORMATS,
                  "scale": [Format("VEC3", FLOAT)], "weights": _normalized_formats("SCALAR")}


@dataclass
class AccessorFacts:
    index: int
    format: Format
    count: int
    has_data: bool
    strided: bool
    min: list[float] | None  # None unless a list of numbers, one per component
    max: list[float] | None

    @property
    def where(self) -> str:
        return pointer("accessors", self.index)


@dataclass
class Plan:
    """Data checks queued by the link passes (see validate_data and validate_sqlerp)."""
    reads: dict[int, AccessorFacts] = field(default_factory=dict)  # accessor index -> facts: read once
    inputs: list[tuple[AccessorFacts, str]] = field(default_factory=list)  # (facts, pointer) key-time checks
    # (facts, cubic, pointer) core rotations
    quaternions: list[tuple[AccessorFacts, bool, str]] = field(default_factory=list)
    sqlerp_outputs: list[tuple[AccessorFacts, str]] = field(default_factory=list)  # (facts, pointer) CUBICSLERP
    float_checks: set[int] = field(default_factory=set)  # accessor indices: NaN / infinity
    bounds: set[int] = field(default_factory=set)        # input accessor indices: min / max


def _item(document, name, index):
    items = document.get(name)
    if index < 0 or not isinstance(items, list) or index >= len(items):
        return None
    return items[index] if isinstance(items[index], dict) else None


def accessor_facts(document: dict[str, Any], index: int) -> AccessorFacts | None:
    """What the link checks need to know about accessor ``index``, or None when unresolved."""
    accessor = _item(document, "accessors", index)
    if accessor is None:
        return None
    kind = accessor.get("type") if isinstance(accessor.get("type"), str) else None
    component = as_index(accessor.get("componentType"))
    count = as_index(accessor.get("count"))
    view_index = as_index(accessor.get("bufferView"))
    view = _item(document, "bufferViews", view_index) if view_index is not None else None
    size = TYPE_SIZES.get(kind) if kind is not None else None
    return AccessorFacts(
        index=index,
        format=Format(kind, component if component in COMPONENT_NAMES else -1,
                      accessor.get("normalized") is True),
        count=count if count is not None and count >= 1 else -1,
        has_data="bufferView" in accessor or "sparse" in accessor,
        strided=view is not None and view.get("byteStride") is not None,
        min=_bounds(accessor.get("min"), size),
        max=_bounds(accessor.get("max"), size))


def _bounds(value, size):
    if (not isinstance(value, list) or len(value) != size
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        return None
    return value


def _node_facts(document, index):
    """(has matrix, has skin, morph target count or None) of node ``index``, or None."""
    node = _item(document, "nodes", index)
    if node is None:
        return None
    matrix = isinstance(node.get("matrix"), list) and len(node["matrix"]) == 16
    skin = as_index(node.get("skin"))
    has_skin = skin is not None and _item(document, "skins", skin) is not None
    return matrix, has_skin, _morph_target_count(document, node)


def _morph_target_count(document, node):
    # The validator reads node.mesh.primitives.first.targets; the spec makes all primitives agree.
    mesh_index = as_index(node.get("mesh"))
    mesh = _item(document, "meshes", mesh_index) if mesh_index is not None else None
    primitives = mesh.get("primitives") if mesh is not None else None
    if not isinstance(primitives, list) or not primitives or not isinstance(primitives[0], dict):
        return None
    targets = primitives[0].get("targets")
    return len(targets) if isinstance(targets, list) and targets else None


def link_samplers(report: Report, document: dict[str, Any], animation: Animation) -> None:
    for sampler in animation.linked()[1]:
        _link_input(report, document, sampler)
        _link_output(report, document, sampler)


def _resolve(report, document, index, where):
    if index == -1:
        return None
    if index not in report.accessor_facts:
        report.accessor_facts[index] = accessor_facts(document, index)
    facts = report.accessor_facts[index]
    if facts is None:
        report.add("UNRESOLVED_REFERENCE", where, f"Unresolved reference: {index}.")
    return facts


def _link_input(report, document, sampler):
    where = f"{sampler.where}/input"
    facts = _resolve(report, document, sampler.input, where)
    if facts is None:
        return
    sampler.input_accessor, sampler.input_ok = facts, not facts.strided
    if facts.strided:
        _strided(report, where)
    if facts.format != INPUT_FORMAT:
        sampler.input_ok = False
        report.add("ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT", where,
                   f"Invalid Animation sampler input accessor format '{facts.format}'. "
                   f"Must be one of {show_list([str(INPUT_FORMAT)])}.")
    if facts.min is None or facts.max is None:
        report.add("ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS", where,
                   "accessor.min and accessor.max must be defined for animation input accessor.")
    if sampler.interpolation == "CUBICSPLINE" and 0 < facts.count < 2:
        report.add("ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS", where,
                   "Animation sampler input accessor with 'CUBICSPLINE' interpolation must have "
                   f"at least 2 elements. Got {facts.count}.")


def _link_output(report, document, sampler):
    where = f"{sampler.where}/output"
    facts = _resolve(report, document, sampler.output, where)
    if facts is None:
        return
    sampler.output_accessor, sampler.output_ok = facts, not facts.strided
    if facts.strided:
        _strided(report, where)


def _strided(report, where):
    report.add("ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE", where,
               "bufferView.byteStride must not be defined for buffer views used by animation "
               "sampler accessors.")


def link_channels(report: Report, document: dict[str, Any], animation: Animation, plan: Plan) -> None:
    channels, samplers = animation.linked()
    for channel in channels:
        node = _link_target(report, document, channel.target)
        if channel.sampler == -1:
            continue
        sampler = samplers[channel.sampler] if channel.sampler < len(samplers) else None
        if sampler is None:
            report.add("UNRESOLVED_REFERENCE", f"{channel.where}/sampler",
                       f"Unresolved reference: {channel.sampler}.")
        else:
            sampler.used = True
            if channel.target is not None and sampler.output_accessor is not None:
                _link_output_use(report, channel, sampler, node, plan)
    # The validator compares targets only for channels that name a core sampler.
    _duplicates(report, channels, lambda channel: channel.sampler != -1,
                "ANIMATION_DUPLICATE_TARGETS")


def _link_target(report, document, target):
    if target is None or target.node == -1:
        return None
    node = _node_facts(document, target.node)
    if node is None:
        report.add("UNRESOLVED_REFERENCE", target.node_where,
                   f"Unresolved reference: {target.node}.")
        return None
    matrix, skinned, morph_targets = node
    if target.path in ("translation", "rotation", "scale"):
        if matrix:
            report.add("ANIMATION_CHANNEL_TARGET_NODE_MATRIX", target.where,
                       "Animation channel cannot target TRS properties of a node with defined "
                       "matrix.")
        if skinned:
            report.add("ANIMATION_CHANNEL_TARGET_NODE_SKIN", f"{target.where}/path",
                       "Animated TRS properties will not affect a skinned mesh.", WARNING)
    elif target.path == "weights" and morph_targets is None:
        report.add("ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS", target.where,
                   "Animation channel cannot target WEIGHTS when mesh does not have morph targets.")
    return node


def _link_output_use(report, channel, sampler, node, plan):
    """Checks of a sampler's output as used by a channel's core ``sampler``."""
    where, path, output = f"{channel.where}/sampler", channel.target.path, sampler.output_accessor
    if sampler.interpolation == CUBICSLERP:
        report.add("SQLERP_CORE_SAMPLER", where,
                   "A CUBICSLERP sampler cannot be a channel's core 'sampler': viewers without "
                   "EXT_animation_sqlerp would misread it. Reference it from "
                   "extensions.EXT_animation_sqlerp.sampler and give the channel a fallback.")
    formats = OUTPUT_FORMATS.get(path)
    format_ok = formats is None or output.format in formats
    if formats is not None and not format_ok:
        report.add("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT", where,
                   f"Invalid animation sampler output accessor format '{output.format}' for path "
                   f"'{path}'. Must be one of {show_list([str(f) for f in formats])}.")
    _check_count(report, where, sampler, path, node)
    if (formats is None or not format_ok or not sampler.output_ok
            or sampler.interpolation == CUBICSLERP):
        return
    plan.reads[output.index] = output
    if not output.has_data:
        if path == "rotation":
            _without_data(report, f"{sampler.where}/output", output, "zero quaternions")
        return
    if output.format.component_type == FLOAT:
        plan.float_checks.add(output.index)
    if path == "rotation":
        plan.quaternions.append((output, sampler.interpolation == "CUBICSPLINE", where))


def _check_count(report, where, sampler, path, node):
    inp, out = sampler.input_accessor, sampler.output_accessor
    if inp is None or inp.count == -1 or out.count == -1 or sampler.interpolation is None:
        return
    expected = inp.count * (3 if sampler.interpolation == "CUBICSPLINE" else 1)
    if path == "weights":
        expected *= (node[2] if node is not None else None) or 0
    elif path not in PATHS:
        expected = 0  # an unknown path is ignored, as in the validator's reports
    if expected and expected != out.count:
        report.add("ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT", where,
                   f"Animation sampler output accessor of count {expected} expected. "
                   f"Found {out.count}.")


def _without_data(report, where, facts, consequence):
    report.add("ANIMATION_SAMPLER_ACCESSOR_WITHOUT_DATA", where,
               f"Accessor {facts.index} has neither bufferView nor sparse, so its {facts.count} "
               f"elements are all zero: {consequence}. glTF-Validator does not check such data.",
               WARNING)


# Findings per channel for later channels with its target. The validator reports every pair, but
# n copies of one channel would then make n²/2 findings: the fuzzer's 2,500 duplicated channels (a
# 200 kB file) took 3 million findings, over 10 s and hundreds of MB. Past the cap one finding
# counts the rest, so time and memory stay linear.
MAX_DUPLICATE_PAIRS = 16


def _duplicates(report, channels, counted, code):
    """One finding per pair (i < j) of channels with the same node and path, on channel i when
    ``counted(channel i)``, up to MAX_DUPLICATE_PAIRS per channel i. Grouped by target."""
    groups = {}
    for channel in channels:
        target = channel.target
        if target is not None and target.node != -1:
            groups.setdefault((target.node, target.path), []).append(channel)
    for group in groups.values():
        for k, channel in enumerate(group):
            if counted(channel):
                for other in group[k + 1:k + 1 + MAX_DUPLICATE_PAIRS]:
                    report.add(code, channel.target.where,
                               f"Animation channel has the same target as channel {other.index}.")
                rest = len(group) - k - 1 - MAX_DUPLICATE_PAIRS
                if rest > 0:
                    report.add(code, channel.target.where,
                               f"Animation channel has the same target as {rest} more channels "
                               f"after channel {group[k + MAX_DUPLICATE_PAIRS].index}.")


def finish_animation(report: Report, animation: Animation, plan: Plan) -> None:
    """Unused samplers and the key-time data checks of every sampler."""
    for sampler in animation.linked()[1]:
        if not sampler.used:
            report.add("UNUSED_OBJECT", sampler.where, "This object may be unused.", INFO)
        facts = sampler.input_accessor
        if facts is None or not sampler.input_ok:
            continue
        plan.reads[facts.index] = facts
        if facts.has_data:
            plan.float_checks.add(facts.index)
            if facts.min is not None and facts.max is not None:
                plan.bounds.add(facts.index)
        # The validator skips accessors without data; inside CUBICSLERP samplers we look anyway.
        if facts.has_data or sampler.sqlerp:
            plan.inputs.append((facts, f"{sampler.where}/input"))
        elif facts.count >= 2:
            _without_data(report, f"{sampler.where}/input", facts,
                          "the key times are not strictly increasing")


def duplicates_for_draft_channels(report: Report, animation: Animation) -> None:
    """Duplicate targets the validator cannot see: draft-form channels have no core sampler."""
    _duplicates(report, animation.linked()[0], lambda channel: channel.draft_form,
                "SQLERP_DUPLICATE_TARGET")
