"""The vocabulary of the JSON-shape tables (validate_shape): Khronos glTF-Validator's getters
(lib/src/utils.dart: getIndex, getUint, getFloat, getFloatList, getIndicesList, getMapList, ...)
as checks of one value, with its codes, pointers and messages.

A table is a ``Kind``: a rule per property name, the required properties and, for what spans
properties (oneOf, dependencies), a check of the whole object. ``check_object`` walks the
properties an object *has* (most optional ones are absent, so this is the cheap direction) and
calls ``rule(report, value, where)`` with the property's JSON pointer. An explicit ``null`` fails
every rule's own type test: a TYPE_MISMATCH, as in the validator.
"""

import math
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Optional

from ..errors import WARNING, pointer
from .json_checks import (
    EXTENSIONS, EXTRAS, Report, as_index, check_extensions, check_extras, show, show_list, type_mismatch,
    undefined
)

# rule(report, value, where): ``value`` is whatever JSON value the property holds.
Rule = Callable[[Report, Any, str], None]
Whole = Callable[[Report, dict[str, Any], str], None]
INF = math.inf


@dataclass(frozen=True)
class Kind:
    """One object of the glTF schema: rules by property name, the required properties, and
    ``whole(report, obj, where)`` for checks across properties."""
    rules: dict[str, Rule]
    required: tuple[str, ...] = ()
    whole: Optional[Whole] = None
    plain: dict[str, type] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # The properties whose rule accepts any value of one JSON type (a string, a boolean, a
        # non-negative integer): check_object settles those without calling the rule.
        object.__setattr__(self, "plain", {name: rule.plain for name, rule in self.rules.items()
                                           if getattr(rule, "plain", None) is not None})


def check_object(report: Report, obj: dict[str, Any], where: str, kind: Kind) -> None:
    """Every property of ``obj`` (a JSON object at ``where``) against ``kind``."""
    rules, plain = kind.rules, kind.plain
    for key, value in obj.items():
        # Most properties of a valid file end here, in one test: validation runs on every load.
        if type(value) is plain.get(key) and (type(value) is not int or value >= 0):
            continue
        rule = rules.get(key)
        if rule is not None:
            rule(report, value, f"{where}/{key}")
        elif key == EXTENSIONS:
            check_extensions(report, value, f"{where}/{EXTENSIONS}")
        elif key == EXTRAS:
            check_extras(report, value, f"{where}/{EXTRAS}")
        else:
            report.add("UNEXPECTED_PROPERTY", where + pointer(key), "Unexpected property.", WARNING)
    for name in kind.required:
        if obj.get(name) is None:  # absent, or null (then already a TYPE_MISMATCH)
            undefined(report, where or "/", name)
    if kind.whole is not None:
        kind.whole(report, obj, where)


def is_number(value: Any) -> bool:
    # bool is an int in Python, never a number in JSON.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def out_of_range(report: Report, value: Any, where: str) -> None:
    report.add("VALUE_NOT_IN_RANGE", where, f"Value {show(value)} is out of range.")


def not_in_list(report: Report, value: Any, values: Collection[Any], where: str, severity: str = WARNING) -> None:
    report.add("VALUE_NOT_IN_LIST", where,
               f"Invalid value {show(value)}. Valid values are {show_list(values)}.", severity)


def empty(report: Report, where: str) -> None:
    report.add("EMPTY_ENTITY", where, "Entity cannot be empty.")


def array_type_mismatch(report: Report, where: str, value: Any, kind: str) -> None:
    report.add("ARRAY_TYPE_MISMATCH", where,
               f"Type mismatch. Array element {show(value)} is not a '{kind}'.")


# ----- scalars ------------------------------------------------------------------------------------

def known(report: Report, value: Any, where: str) -> None:
    """A property checked by another pass (validate_document, validate_structure)."""


def _integer(value):
    """as_index, with the common case (a JSON integer) first: these run for every index and
    enumeration of a file."""
    return value if type(value) is int else as_index(value)


def index(report: Report, value: Any, where: str) -> None:
    number = _integer(value)
    if number is None:
        type_mismatch(report, where, value, "integer")
    elif number < 0:
        report.add("INVALID_INDEX", where, "Index must be a non-negative integer.")


index.plain = int


def uint(low: float = 0, high: float = INF, values: Collection[int] | None = None,
         severity: str = WARNING) -> Rule:
    """An integer in [low, high], or one of ``values`` (the validator's VALUE_NOT_IN_LIST is a
    warning; ``severity`` makes it an error where Blender's importer cannot read the rest)."""
    def rule(report, value, where):
        number = _integer(value)
        if number is None:
            type_mismatch(report, where, value, "integer")
        elif values is not None:
            if number not in values:
                not_in_list(report, value, values, where, severity)
        elif not low <= number <= high:
            out_of_range(report, value, where)
    rule.plain = int if values is None and low <= 0 and high == INF else None
    return rule


def number(low: float = -INF, high: float = INF, above: float = -INF) -> Rule:
    """A finite number in [low, high] and greater than ``above`` (the schema's exclusiveMinimum)."""
    def rule(report, value, where):
        if not is_number(value):
            type_mismatch(report, where, value, "number")
        elif not (math.isfinite(value) and low <= value <= high and value > above):
            out_of_range(report, value, where)
    return rule


def boolean(report: Report, value: Any, where: str) -> None:
    if not isinstance(value, bool):
        type_mismatch(report, where, value, "boolean")


boolean.plain = bool


def string(values: Collection[str] | None = None, pattern: re.Pattern[str] | None = None) -> Rule:
    def rule(report, value, where):
        if not isinstance(value, str):
            type_mismatch(report, where, value, "string")
        elif values is not None and value not in values:
            not_in_list(report, value, values, where)
        elif pattern is not None and not pattern.match(value):
            report.add("PATTERN_MISMATCH", where,
                       f"Value {show(value)} does not match regexp pattern '{pattern.pattern}'.")
    rule.plain = str if values is None and pattern is None else None
    return rule


# ----- arrays -------------------------------------------------------------------------------------

def _array(report, value, where, lengths=None):
    """Whether ``value`` is a non-empty array of one of ``lengths`` (reported when not)."""
    if not isinstance(value, list):
        type_mismatch(report, where, value, "array")
    elif not value:
        empty(report, where)
    elif lengths is not None and len(value) not in lengths:
        report.add("ARRAY_LENGTH_NOT_IN_LIST", where,
                   f"Invalid array length {len(value)}. Valid lengths are: {show_list(lengths)}.")
    else:
        return True
    return False


NUMBER_TYPES = frozenset((int, float))


def all_numbers(value: list[Any], low: float = -INF, high: float = INF) -> bool:
    """Whether every item of a non-empty list is a finite number in [low, high], tested in C
    (accessor bounds, node transforms): the common case, before any per-item Python. A finite sum
    means finite items; False (also for a sum that overflows) only sends the caller to its
    item-by-item check."""
    return (NUMBER_TYPES.issuperset(map(type, value)) and math.isfinite(sum(value))
            and (low == -INF or min(value) >= low) and (high == INF or max(value) <= high))


def numbers(lengths: Collection[int] | None = None, low: float = -INF, high: float = INF) -> Rule:
    """getFloatList: an array of numbers (short JSON arrays: node transforms, factors, weights)."""
    def rule(report, value, where):
        if type(value) is list and value and (lengths is None or len(value) in lengths) \
                and all_numbers(value, low, high):
            return
        if not _array(report, value, where, lengths):
            return
        for i, item in enumerate(value):
            if not is_number(item):
                array_type_mismatch(report, where, item, "number")
            elif not (math.isfinite(item) and low <= item <= high):
                out_of_range(report, item, f"{where}/{i}")
    return rule


def indices(report: Report, value: Any, where: str) -> None:
    """getIndicesList: a non-empty array of unique indices."""
    if not _array(report, value, where):
        return
    seen = set()
    for i, item in enumerate(value):
        number = as_index(item)
        if number is None or number < 0:
            report.add("INVALID_INDEX", f"{where}/{i}", "Index must be a non-negative integer.")
        elif number in seen:
            report.add("DUPLICATE_ELEMENTS", f"{where}/{i}", "Duplicate element.")
        else:
            seen.add(number)


def strings(report: Report, value: Any, where: str) -> None:
    """getStringList (extensionsUsed, extensionsRequired): a non-empty array of unique strings."""
    if not _array(report, value, where):
        return
    seen = set()
    for i, item in enumerate(value):
        if not isinstance(item, str):
            array_type_mismatch(report, f"{where}/{i}", item, "string")
        elif item in seen:
            report.add("DUPLICATE_ELEMENTS", f"{where}/{i}", "Duplicate element.")
        else:
            seen.add(item)


# ----- objects ------------------------------------------------------------------------------------

def child(kind: Kind) -> Rule:
    """getObjectFromInnerMap: an object checked against ``kind``."""
    def rule(report, value, where):
        if isinstance(value, dict):
            check_object(report, value, where, kind)
        else:
            type_mismatch(report, where, value, "object")
    return rule


def objects(kind: Kind) -> Rule:
    """getMapList (a mesh's primitives): a non-empty array of objects; one element that is not an
    object stops the check of every element."""
    def rule(report, value, where):
        if not _array(report, value, where):
            return
        wrong = [item for item in value if not isinstance(item, dict)]
        for item in wrong:
            array_type_mismatch(report, where, item, "object")
        for i, item in enumerate(() if wrong else value):
            check_object(report, item, f"{where}/{i}", kind)
    return rule


def root_array(kind: Kind) -> Rule:
    """A top-level array (the validator's toSafeList): each element that is an object is checked,
    each one that is not is a TYPE_MISMATCH of its own."""
    def rule(report, value, where):
        if not _array(report, value, where):
            return
        for i, item in enumerate(value):
            if isinstance(item, dict):
                check_object(report, item, f"{where}/{i}", kind)
            else:
                type_mismatch(report, f"{where}/{i}", item, "object")
    return rule


def _index_values(report, mapping, where):
    for key, value in mapping.items():
        number = as_index(value)
        if number is None or number < 0:
            report.add("INVALID_INDEX", where + pointer(key), "Index must be a non-negative integer.")


def index_map(report: Report, value: Any, where: str) -> None:
    """getIndicesMap (a primitive's attributes): a non-empty object of indices."""
    if not isinstance(value, dict):
        type_mismatch(report, where, value, "object")
    elif not value:
        empty(report, where)
    else:
        _index_values(report, value, where)


def index_maps(report: Report, value: Any, where: str) -> None:
    """getIndicesMapsList (morph targets): a non-empty array of non-empty objects of indices."""
    if not _array(report, value, where):
        return
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            array_type_mismatch(report, where, item, "object")
        elif not item:
            empty(report, f"{where}/{i}")
        else:
            _index_values(report, item, f"{where}/{i}")

