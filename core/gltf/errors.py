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
    """One problem found in a file, in glTF-Validator's terms.

    Attributes
    ----------
    code : str
        The validator's issue code, e.g. "ACCESSOR_TOO_LONG", or this project's (SQLERP_*).
    pointer : str
        RFC 6901 JSON pointer to the offending object or property; "" for the whole file.
    message : str
        A readable sentence.
    severity : str
        "error" (the default: a load stops), "warning" (repairable) or "info".

    Examples
    --------
    >>> print(Finding("ACCESSOR_TOO_LONG", "/accessors/2", "accessor needs 40 bytes"))
    error: accessor needs 40 bytes [ACCESSOR_TOO_LONG at /accessors/2]
    """

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

    Attributes
    ----------
    code : str
        The first error's code (see Finding).
    pointer : str
        The first error's JSON pointer; "" for the whole file.
    message : str
        The first error's message.
    findings : list of Finding
        Every error of the pass, the first one included (at least that one).
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
        """Build the error of a pass from its findings: the first error leads, warnings are left out.

        Parameters
        ----------
        findings : iterable of Finding
            The pass's findings, at least one of severity "error".

        Returns
        -------
        GltfError
            ``code``, ``pointer`` and ``message`` of the first error; ``findings``: every error.

        Examples
        --------
        >>> found = [Finding("W", "/a", "odd", "warning"), Finding("B", "", "broken"), Finding("C", "/c", "bad")]
        >>> print(GltfError.from_findings(found))
        broken [B at /] (and 1 more error)
        """
        errors = [f for f in findings if f.severity == ERROR]
        first = errors[0]
        return cls(first.code, first.pointer, first.message, errors)


def pointer(*parts: str | int) -> str:
    """Join path parts into an RFC 6901 JSON pointer.

    Built for every object the validator walks: indices skip the escaping, which only strings need.

    Parameters
    ----------
    *parts : str or int
        Object keys and array indices, from the root down.

    Returns
    -------
    str
        "/part/part/...", with "~" written "~0" and "/" written "~1" inside a key; "" without parts.

    Examples
    --------
    >>> pointer("animations", 0, "samplers")
    '/animations/0/samplers'
    >>> pointer("extras", "a/b~c")  # RFC 6901 section 3: "~" -> "~0", "/" -> "~1"
    '/extras/a~1b~0c'
    """
    return "".join("/" + (str(p) if type(p) is int else str(p).replace("~", "~0").replace("/", "~1"))
                   for p in parts)
