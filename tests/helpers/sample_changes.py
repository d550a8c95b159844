"""One change at a time to the project's sample, checked by Khronos glTF-Validator: shared by the
validation tests (not a test module). A change is a function that edits the sample's JSON dict in
place; ``written_and_validated`` writes every changed document beside the sample's .bin and runs
the validator once on all of them."""

import copy
import json
import shutil
from pathlib import Path

from . import gltf_validator

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "sqlerp_arm.gltf"
BASE = json.loads(SAMPLE.read_text())


def set_at(*path_and_value):
    """A change setting document[path...] = value (the path: keys and indices)."""
    *path, key, value = path_and_value

    def change(document):
        _item(document, path)[key] = value
    return change


def delete_at(*path):
    """A change deleting document[path...]."""
    def change(document):
        del _item(document, path[:-1])[path[-1]]
    return change


def all_of(*changes):
    def change(document):
        for one in changes:
            one(document)
    return change


def _item(document, path):
    for step in path:
        document = document[step]
    return document


def written_and_validated(folder, cases):
    """{name: (path, the validator's report)} for (name, change, ...) cases, each written to
    ``folder`` beside copies of the sample's external buffers."""
    for uri in {b["uri"] for b in BASE["buffers"] if not b["uri"].startswith("data:")}:
        shutil.copy(SAMPLE.parent / uri, folder / uri)
    paths = {}
    for name, change, *_ in cases:
        document = copy.deepcopy(BASE)
        change(document)
        paths[name] = folder / (name.replace(" ", "_") + ".gltf")
        paths[name].write_text(json.dumps(document))
    reports = gltf_validator.validate_all(list(paths.values()))
    return {name: (paths[name], report) for name, report in zip(paths, reports)}
