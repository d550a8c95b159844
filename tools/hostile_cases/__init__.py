"""The cases of tools/hostile_corpus.py, a package by what they break.

``asset`` builds the valid base asset every case starts from and ``registry`` declares a case;
the case modules register theirs when imported, in the order of ``MODULES``, which is the order of
``CASES`` and of the corpus's expected.json: ``container`` (the .glb and the JSON text),
``schema`` (JSON types, indices, sizes, sparse accessors), ``animation`` (key times, output counts,
CUBICSLERP samplers, extensions), ``references`` (the node hierarchy, buffer URIs) and
``outside`` (meshes, materials, scenes and the importer cases).
"""

# Not sorted: each module registers its cases as it is imported, and this is their order.
from . import container, schema, animation, references, outside
from .asset import BIN_NAME, EXTENSION, GIB_COUNT, base_arrays, base_document, base_glb, dump_json, glb_bytes
from .registry import CASES, IMPORTER_CASES, Case, Symlink, case, gltf, importer_case, raw

MODULES = (container, schema, animation, references, outside)

__all__ = ["BIN_NAME", "CASES", "EXTENSION", "GIB_COUNT", "IMPORTER_CASES", "MODULES", "Case", "Symlink",
           "base_arrays", "base_document", "base_glb", "case", "dump_json", "glb_bytes", "gltf",
           "importer_case", "raw"]
