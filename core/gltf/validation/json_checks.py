"""JSON-shape checks of the validator, worded like Khronos glTF-Validator (lib/src/utils.dart).

Each getter reads one property, reports what the validator reports for it (UNDEFINED_PROPERTY on the
owning object, TYPE_MISMATCH / INVALID_INDEX / VALUE_NOT_IN_LIST on the property itself) and returns
a sanitized value: an index or -1, a string or None, a list of objects or None.
"""

import json
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, SupportsFloat

from ..errors import ERROR, INFO, WARNING, Finding, pointer

if TYPE_CHECKING:  # links imports this module
    from .links import AccessorFacts

EXTENSIONS = "extensions"
EXTRAS = "extras"


# Findings kept per run: MAX_FINDINGS errors and as many warnings and infos; the rest are
# dropped. The fuzzer found 2.7 MB of empty channel objects making 515,000
# findings (200 MB, 9 s); a file with that many problems is not fixed one finding at a time.
MAX_FINDINGS = 10_000


class Report:
    """Findings of one validation run plus the document-wide facts the checks need."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.findings: list[Finding] = []
        self._kept = {True: 0, False: 0}  # by "is an error": a full report still holds an error
        self.extensions_used = _string_set(document.get("extensionsUsed"))
        self.extensions_required = _string_set(document.get("extensionsRequired"))
        # accessor index -> facts (None: unresolved), shared by every sampler using it
        self.accessor_facts: "dict[int, AccessorFacts | None]" = {}

    def add(self, code: str, where: str, message: str, severity: str = ERROR) -> None:
        error = severity == ERROR
        if self._kept[error] >= MAX_FINDINGS:
            return
        self._kept[error] += 1
        self.findings.append(Finding(code, where, message, severity))


def _string_set(value):
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def show_number(value: SupportsFloat) -> str:
    """A number as Dart prints it (NaN, Infinity, 1.0), so messages read like the validator's."""
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def show(value: Any, limit: int = 80) -> str:
    """A JSON value in a message: strings quoted, the rest as JSON (the validator's _mbq),
    shortened so that a huge misplaced array does not flood the message."""
    if isinstance(value, str):
        text = f"'{value}'"
    elif isinstance(value, float):
        text = show_number(value)
    else:
        text = json.dumps(value, separators=(", ", ": "))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def show_list(values: Iterable[Any]) -> str:
    return "(" + ", ".join(show(v) for v in values) + ")"


def as_index(value: Any) -> int | None:
    """The validator's integer reading: ints and integral floats (1.0), never bools; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def type_mismatch(report: Report, where: str, value: Any, kind: str) -> None:
    report.add("TYPE_MISMATCH", where,
               f"Type mismatch. Property value {show(value)} is not a '{kind}'.")


def undefined(report: Report, where: str, name: str) -> None:
    report.add("UNDEFINED_PROPERTY", where, f"Property '{name}' must be defined.")


def _present(report, obj, name, where, kind, required=False):
    """The value of obj[name] or None; an explicit null is a TYPE_MISMATCH, then reads as absent,
    and an absent ``required`` property is UNDEFINED_PROPERTY."""
    value = obj.get(name)
    if value is None and name in obj:
        type_mismatch(report, f"{where}/{name}", None, kind)
    if value is None and required:
        undefined(report, where, name)
    return value


def get_index(report: Report, obj: dict[str, Any], name: str, where: str, required: bool = True) -> int:
    value = _present(report, obj, name, where, "integer", required)
    if value is None:
        return -1
    index = as_index(value)
    if index is None:
        type_mismatch(report, f"{where}/{name}", value, "integer")
        return -1
    if index < 0:
        report.add("INVALID_INDEX", f"{where}/{name}", "Index must be a non-negative integer.")
        return -1
    return index


def get_string(report: Report, obj: dict[str, Any], name: str, where: str, required: bool = False,
               allowed: Sequence[str] | None = None, default: str | None = None,
               quiet: Sequence[str] = ()) -> str | None:
    """A string property; a value outside ``allowed`` is a warning (and still returned), unless
    it is one of ``quiet`` (values this project defines, e.g. "CUBICSLERP")."""
    value = _present(report, obj, name, where, "string", required)
    if value is None:
        return default
    if not isinstance(value, str):
        type_mismatch(report, f"{where}/{name}", value, "string")
        return None
    if allowed is not None and value not in allowed and value not in quiet:
        report.add("VALUE_NOT_IN_LIST", f"{where}/{name}",
                   f"Invalid value {show(value)}. Valid values are {show_list(allowed)}.", WARNING)
    return value


def get_object(report: Report, obj: dict[str, Any], name: str, where: str,
               required: bool = False) -> dict[str, Any] | None:
    value = _present(report, obj, name, where, "object", required)
    if value is None:
        return None
    if not isinstance(value, dict):
        type_mismatch(report, f"{where}/{name}", value, "object")
        return None
    return value


def get_object_list(report: Report, obj: dict[str, Any], name: str, where: str) -> list[dict[str, Any]] | None:
    """A required, non-empty array of objects (the validator's getMapList), or None."""
    value = _present(report, obj, name, where, "array", required=True)
    if value is None:
        return None
    return object_list(report, value, f"{where}/{name}")


def object_list(report: Report, value: Any, where: str) -> list[dict[str, Any]] | None:
    if not isinstance(value, list):
        type_mismatch(report, where, value, "array")
        return None
    if not value:
        report.add("EMPTY_ENTITY", where, "Entity cannot be empty.")
        return None
    wrong = [item for item in value if not isinstance(item, dict)]
    for item in wrong:
        report.add("ARRAY_TYPE_MISMATCH", where,
                   f"Type mismatch. Array element {show(item)} is not a 'object'.")
    return None if wrong else value


def check_common(report: Report, obj: dict[str, Any], where: str,
                 members: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Unknown members, ``extensions`` and ``extras`` of any glTF property; returns the
    extension objects keyed by name (only those that are JSON objects)."""
    for key in obj:
        if key not in members and key not in (EXTENSIONS, EXTRAS):
            report.add("UNEXPECTED_PROPERTY", where + pointer(key), "Unexpected property.", WARNING)
    check_extras(report, obj.get(EXTRAS), f"{where}/{EXTRAS}")
    if EXTENSIONS not in obj:
        return {}
    return check_extensions(report, obj[EXTENSIONS], f"{where}/{EXTENSIONS}")


def check_extras(report: Report, value: Any, where: str) -> None:
    if value is not None and not isinstance(value, dict):
        report.add("NON_OBJECT_EXTRAS", where, "Prefer JSON Objects for extras.", INFO)


def check_extensions(report: Report, value: Any, where: str) -> dict[str, dict[str, Any]]:
    """The ``extensions`` object of any glTF property, ``value`` found at ``where``: its extension
    objects keyed by name (only those that are JSON objects)."""
    if not isinstance(value, dict):
        type_mismatch(report, where, value, "object")
        return {}
    result = {}
    for name, extension in value.items():
        ext_where = where + pointer(name)
        if name not in report.extensions_used:
            report.add("UNDECLARED_EXTENSION", ext_where,
                       "Extension is not declared in extensionsUsed.")
        if isinstance(extension, dict):
            result[name] = extension
        else:
            type_mismatch(report, ext_where, extension, "object")
    return result
