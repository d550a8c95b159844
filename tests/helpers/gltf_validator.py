"""The Khronos glTF-Validator, run from the tests: ``validate(path)`` returns its report.

``python dev.py test`` installs the pinned npm package ``gltf-validator`` (tests/validator/package.json
and package-lock.json) into ``.node/`` and sets GLTF_SQLERP_VALIDATOR to its node_modules folder;
without the variable that folder is used too, so pytest run by hand works after one ``dev.py test``.
tests/validator/validate.cjs calls the package's ``validateBytes`` in Node.js, with every issue
reported and external buffers and images read from the file's folder.

A missing Node.js or package raises ValidatorUnavailable, which fails the test: no test is skipped
for want of the validator.

The report is the validator's own object: ``report["issues"]["numErrors"]``,
``report["issues"]["messages"]``: dicts with ``code``, ``severity`` (ERROR, WARNING, INFO, HINT),
``pointer`` (a JSON pointer into the file), ``message``.

glTF-Validator does not know EXT_animation_sqlerp, so it never looks inside a channel's extension
object. ``validate_all`` (and ``validate``) add that check: every
``channels[c].extensions.EXT_animation_sqlerp`` object of each file is checked against the
extension's JSON schema (docs/EXT_animation_sqlerp/schema, through tests/helpers/sqlerp_schema.py), and each
schema error joins the report as an ERROR message with code EXT_ANIMATION_SQLERP_SCHEMA, its JSON
pointer and jsonschema's message, counted in ``numErrors``. So every ``errors(report) == []`` of the
suite also holds each file to the schema. A file whose JSON cannot be read adds nothing here: the
validator reports that itself. ``schema=False`` asks for the validator alone (the demo does, in
Blender's process: see add_schema_errors).
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # tests/helpers
TESTS = HERE.parent


def _sibling(name):
    """helpers.<name> (tests/helpers/<name>.py), also when this module is loaded by path from
    outside the tests (the demo), where it is no package's module."""
    if __package__:
        return importlib.import_module(f"{__package__}.{name}")
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]

SCRIPT = TESTS / "validator" / "validate.cjs"
PACKAGE_JSON = TESTS / "validator" / "package.json"
VARIABLE = "GLTF_SQLERP_VALIDATOR"
DEFAULT_MODULES = TESTS.parent / ".node" / "node_modules"
TIMEOUT = 300  # seconds for one run of node, however many files

ERROR, WARNING, INFO, HINT = 0, 1, 2, 3
SCHEMA_CODE = "EXT_ANIMATION_SQLERP_SCHEMA"  # our check, added to the validator's reports

_SET_UP = "`python dev.py test` installs it (Node.js 18+ and npm needed; see docs/manual/development.md)"


class ValidatorUnavailable(RuntimeError):
    """Node.js or the pinned gltf-validator package is missing, or the validator could not run."""


def pinned_version():
    """The gltf-validator version tests/validator/package.json pins."""
    return json.loads(PACKAGE_JSON.read_text())["dependencies"]["gltf-validator"]


def modules_folder():
    """The node_modules folder that holds gltf-validator."""
    return Path(os.environ.get(VARIABLE) or DEFAULT_MODULES)


def _node():
    node = shutil.which("node")
    if node is None:
        raise ValidatorUnavailable(f"Node.js (`node`) is not on PATH, so glTF-Validator cannot run; {_SET_UP}")
    modules, pinned = modules_folder(), pinned_version()
    manifest = modules / "gltf-validator" / "package.json"
    if not manifest.exists():
        raise ValidatorUnavailable(f"glTF-Validator {pinned} is not installed in {modules}; {_SET_UP}")
    installed = json.loads(manifest.read_text()).get("version")
    if installed != pinned:
        raise ValidatorUnavailable(f"{modules} holds glTF-Validator {installed}, the tests pin {pinned}; {_SET_UP}")
    return node, modules


def validate_all(paths, schema=True):
    """The validator's reports (dicts) for .gltf/.glb files, in order, from one run of Node.js."""
    paths = [Path(path) for path in paths]
    if not paths:
        return []
    node, modules = _node()
    command = [node, str(SCRIPT), *(str(path) for path in paths)]
    try:
        result = subprocess.run(command, env={**os.environ, VARIABLE: str(modules)}, capture_output=True,
                                text=True, encoding="utf-8", timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ValidatorUnavailable(f"glTF-Validator did not finish within {TIMEOUT} s on {paths}") from None
    if result.returncode != 0:
        raise ValidatorUnavailable(f"glTF-Validator failed (exit code {result.returncode}) on {paths}:\n"
                                   f"{result.stderr.strip()}")
    reports = json.loads(result.stdout)
    assert len(reports) == len(paths), "validate.cjs returned one report per file"
    for path, report in zip(paths if schema else [], reports):
        add_schema_errors(report, path)
    return reports


def add_schema_errors(report: dict, path: Path) -> None:
    """Append the EXT_animation_sqlerp schema errors of the file at ``path`` to its validator
    report, as ERROR messages (module docstring)."""
    # Loaded here, not at import: the demo (tools/demo_export.py) loads this module into Blender's
    # process and asks for the validator alone (schema=False); with jsonschema's modules loaded
    # there, bpy 4.5 was seen to hang at exit (its audio device's delayed-close thread).
    sqlerp_schema = _sibling("sqlerp_schema")
    try:
        found = sqlerp_schema.findings(sqlerp_schema.read_json(path))
    except (OSError, sqlerp_schema.Unreadable):
        return  # the validator's own report has the I/O, container or JSON error
    issues = report["issues"]
    for pointer, message in found:
        issues["messages"].append({"code": SCHEMA_CODE, "severity": ERROR, "pointer": pointer,
                                   "message": message})
        issues["numErrors"] += 1


def validate(path):
    """The validator's report (a dict) for one .gltf or .glb file."""
    return validate_all([path])[0]


def issues(report, severity):
    """(code, pointer) of the report's messages of one severity, in the validator's order."""
    return [(m["code"], m["pointer"]) for m in report["issues"]["messages"] if m["severity"] == severity]


def errors(report):
    """(code, pointer) of every error in the report; [] for a valid file."""
    return issues(report, ERROR)
