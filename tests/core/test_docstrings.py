"""The public core documents itself in one style (numpydoc's sections, docs/manual/scripting.md).

Public means what a core package's ``__init__`` lists in ``__all__``, and the methods of the
scripting API's classes (Document, Animation, Channel, Sampler). A public function's docstring:

- opens with a one-line summary that starts with a verb in the imperative ("Evaluate ...",
  "Read ...", never "The ..." or "(N, 4) ...") and ends with a full stop;
- has a ``Parameters`` section naming every parameter, a ``Returns`` section unless it returns
  None, both with array shapes where they take or give arrays;
- has an ``Examples`` section whose ``>>>`` lines test_doctests.py runs.

A public class has a docstring of its own (not the signature a dataclass makes up) whose summary
is one line ending with a full stop.
"""

import importlib
import inspect
import pkgutil
import re
import typing

import pytest

import gltf_sqlerp.core

PACKAGES = ["gltf_sqlerp.core", *(info.name for info in pkgutil.walk_packages(gltf_sqlerp.core.__path__,
                                                                              "gltf_sqlerp.core.") if info.ispkg)]
SCRIPTING_CLASSES = {"Document", "Animation", "Channel", "Sampler"}
# Words a summary opens with that are not verbs in the imperative; a verb in the third person
# ("Returns", "Reads") is caught by its final "s", except for verbs whose stem ends in one.
NOT_VERBS = {"the", "a", "an", "one", "per", "what", "which", "why", "how", "each", "every", "all",
             "rows", "keys", "bytes", "sorted", "list", "new", "index", "arc", "segment", "json"}
STEMS_ENDING_IN_S = {"process", "pass", "access", "address", "compress", "miss", "bless", "cross", "toss"}
SECTION = "{}\n" + "-" * 3


def _public():
    """(qualified name, object, kind) of every public function, method and class of the core."""
    found = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = (obj, "class")
                if name in SCRIPTING_CLASSES:
                    found.update(_methods(obj))
            elif inspect.isfunction(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = (obj, "function")
    return found


def _methods(cls):
    return {f"{cls.__module__}.{cls.__qualname__}.{name}": (member, "function")
            for name, member in vars(cls).items()
            if not name.startswith("_") and inspect.isfunction(member)}


PUBLIC = _public()


def _parameters(function):
    return [name for name, p in inspect.signature(function).parameters.items()
            if name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _returns_none(function):
    hints = typing.get_type_hints(function)
    return "return" in hints and hints["return"] is type(None)


def _section(doc, title):
    """The text of the numpydoc section ``title`` (up to the next section), or None."""
    match = re.search(rf"^{title}\n-{{{len(title)}}}\n(.*?)(?=^\w[\w ]*\n-{{3,}}\n|\Z)", doc, re.S | re.M)
    return match.group(1) if match else None


def _summary_problem(doc):
    summary = doc.split("\n\n")[0]
    if "\n" in summary or not summary.endswith("."):
        return f"the summary is not one line ending with a full stop: {summary[:80]!r}"
    first = summary.split()[0].lower().strip("`")
    if not first.isalpha() or first in NOT_VERBS or (first.endswith("s") and first not in STEMS_ENDING_IN_S):
        return f"the summary does not start with a verb in the imperative: {summary[:80]!r}"
    return None


def _function_problems(function):
    doc = inspect.getdoc(function) or ""
    problems: list[str | None] = [_summary_problem(doc)] if doc else ["no docstring"]
    parameters = _section(doc, "Parameters")
    names = _parameters(function)
    if names and parameters is None:
        problems.append("no Parameters section")
    elif parameters is not None:
        problems += [f"Parameters does not name {name!r}" for name in names
                     if not re.search(rf"^{name}\b", parameters, re.M)]
    if not _returns_none(function) and _section(doc, "Returns") is None:
        problems.append("no Returns section")
    examples = _section(doc, "Examples")
    if examples is None or ">>>" not in examples:
        problems.append("no Examples section with a >>> line")
    return [p for p in problems if p]


def _class_problems(cls):
    doc = cls.__doc__ or ""
    if not doc or doc.startswith(f"{cls.__name__}("):  # a dataclass's made-up signature
        return ["no docstring of its own"]
    problem = _summary_problem(inspect.cleandoc(doc))
    # A class's summary names what it is (a noun), so only its form is checked.
    return [problem] if problem and "imperative" not in problem else []


def test_the_public_core_is_found():
    kinds = [kind for _, kind in PUBLIC.values()]
    assert kinds.count("function") >= 60 and kinds.count("class") >= 25
    assert "gltf_sqlerp.core.document.Document.node_matrices" in PUBLIC


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_a_public_name_is_documented_in_the_house_style(name):
    obj, kind = PUBLIC[name]
    problems = _function_problems(obj) if kind == "function" else _class_problems(obj)
    assert problems == [], f"{name}: " + "; ".join(problems)


@pytest.mark.parametrize("doc, problem", [
    ("The keys.\n\nExamples\n--------\n>>> 1\n1", "imperative"),
    ("Returns the keys.", "imperative"),
    ("Read the keys\nfrom a file.", "one line"),
    ("(N, 4) rotations.", "imperative"),
])
def test_the_summary_check_catches(doc, problem):
    assert problem in (_summary_problem(doc) or "")


def test_the_section_checks_catch_a_missing_parameter():
    def keys(times, values):
        """Read the keys.

        Parameters
        ----------
        times : (n,) float array
            Key times.

        Returns
        -------
        (n, 4) array
        """
    assert _function_problems(keys) == ["Parameters does not name 'values'", "no Examples section with a >>> line"]
