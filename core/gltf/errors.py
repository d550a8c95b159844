"""Errors and findings of the format layer.

Every problem found in a file is a ``Finding``: a glTF-Validator style ``code``, a JSON ``pointer``
to the offending object (RFC 6901, e.g. ``/animations/0/samplers/2/output``) and a readable message.
Findings of severity "error" stop a load with ``GltfError``; repairable ones ("warning") are kept on
the document so that a caller can show them.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Self

ERROR = "error"
WARNING = "warning"
INFO = "info"


@dataclass(frozen=True)
class Finding:
    code: str
    pointer: str
    message: str
    severity: str = ERROR

    def __str__(self) -> str:
        return f"{self.severity}: {self.text()}"

    def text(self) -> str:
        """The message with its code and where: "message [CODE at /pointer]"."""
        return f"{self.message} [{self.code} at {self.pointer or '/'}]"


class GltfError(Exception):
    """A file that cannot be used as it is.

    ``code``, ``pointer`` and ``message`` describe the first error; ``findings`` holds every error
    found in the same pass, so a user can fix a file in one go.
    """

    def __init__(self, code: str, pointer: str, message: str, findings: Iterable[Finding] = ()) -> None:
        self.code = code
        self.pointer = pointer
        self.message = message
        self.findings = list(findings) or [Finding(code, pointer, message)]
        super().__init__(str(self))

    def __str__(self) -> str:
        more = len(self.findings) - 1
        tail = f" (and {more} more error{'s' if more > 1 else ''})" if more > 0 else ""
        return f"{self.message} [{self.code} at {self.pointer or '/'}]{tail}"

    @classmethod
    def from_findings(cls, findings: Iterable[Finding]) -> Self:
        errors = [f for f in findings if f.severity == ERROR]
        first = errors[0]
        return cls(first.code, first.pointer, first.message, errors)


def pointer(*parts: str | int) -> str:
    """JSON pointer from path parts: pointer('animations', 0, 'samplers') -> '/animations/0/samplers'.
    (Built for every object the validator walks: indices skip the escaping, which only strings need.)"""
    return "".join("/" + (str(p) if type(p) is int else str(p).replace("~", "~0").replace("/", "~1"))
                   for p in parts)
