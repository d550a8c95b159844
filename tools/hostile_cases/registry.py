"""How a hostile case is declared: ``Case``, its registers (``CASES`` for files the core must
refuse, ``IMPORTER_CASES`` for files it accepts), the builders of its files (``gltf``, ``raw``),
the mutations of the base JSON they apply and the JSON pointers the cases expect."""

from dataclasses import dataclass, field
from typing import Callable, Mapping

from .asset import BIN_NAME, base_arrays, base_document, dump_json

Mutation = Callable[[dict], None]  # changes a glTF JSON document in place


@dataclass(frozen=True)
class Symlink:
    """A side file that is a symbolic link to ``target`` (relative to the link's folder)."""
    target: str


@dataclass
class Case:
    """One hostile file: what ``build`` writes and the error (code, JSON pointer) ``core.load``
    must report among its findings."""
    name: str
    description: str
    code: str | None     # None: an importer case (the core accepts the file)
    pointer: str | None
    build: Callable[[], Mapping[str, bytes | Symlink]]  # {relative path: content}; the first: the file to load
    tags: tuple = field(default=())

    @property
    def main(self) -> str:
        return next(iter(self.build()))


CASES = []


def case(name, code, pointer, description, tags=()):
    """Register the decorated builder as a case of CASES (a file the core must refuse)."""
    def register(build):
        CASES.append(Case(name, description, code, pointer, build, tuple(tags)))
        return build
    return register


def gltf(mutate=None, arrays=None, side=None, uri: str | None = BIN_NAME):
    """Files of a .gltf case: the base JSON changed in place by ``mutate(document, arrays)``
    (arrays already packed: change them through ``arrays``), the .bin beside it."""
    def build():
        data = base_arrays()
        if arrays is not None:
            arrays(data)
        document, blob = base_document(data, uri=uri)
        if mutate is not None:
            mutate(document)
        files = {"case.gltf": dump_json(document)}
        if uri == BIN_NAME:
            files[BIN_NAME] = blob
        files.update(side or {})
        return files
    return build


def raw(name, data_fn, side=None):
    """Files of a case whose main file ``name`` holds the bytes ``data_fn()`` returns."""
    def build():
        return {name: data_fn(), **(side or {})}
    return build


def set_at(path: tuple, value: object) -> Mutation:
    """A mutation that sets document[path...] = value (path: keys and indices)."""
    def mutate(document):
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def delete_at(path: tuple) -> Mutation:
    """A mutation that deletes document[path...]."""
    def mutate(document):
        target = document
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return mutate


def apply_all(*mutations: Mutation) -> Mutation:
    """A mutation that applies ``mutations`` in turn."""
    def mutate(document):
        for m in mutations:
            m(document)
    return mutate


# Paths into the base asset's animation, and the JSON pointers of its samplers and channels.
A = ("animations", 0)
S0, S1 = A + ("samplers", 0), A + ("samplers", 1)
C0 = A + ("channels", 0)
SAMPLER_PTR = "/animations/0/samplers"
CHANNEL_PTR = "/animations/0/channels"

# Files the core accepts and Blender's bundled importer fails on (outside.py says why).
IMPORTER_CASES = []


def importer_case(name, description):
    """Register the decorated builder as a case of IMPORTER_CASES (no error code to expect)."""
    def register(build):
        IMPORTER_CASES.append(Case(name, description, None, None, build, ("importer",)))
        return build
    return register
