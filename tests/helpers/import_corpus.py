"""Every valid file we have, for the tests that import each with both importers (not a test module;
issue 33): tests/operators/test_import_corpus.py (ours imports what the bundled importer imports) and
tests/operators/test_import_inventory.py (and builds the same scene).

The corpus: every .gltf and .glb of ../shared/assets/khronos, the Khronos glTF-Validator's own
animation cases whose expected report has no error, the project's samples (``FIXED``), and the
generated files (``GENERATED``, written by ``write_generated``): the files of tools/pointer_files.py
(KHR_animation_pointer on every kind of target, with inputs, outputs and samplers shared between
pointer and plain channels), the hostile corpus's valid base files, and tests/helpers/scaled_rig.py's
character (an armature scaled by 100 with meshes parented to its joints: the one file where our
import places objects differently, on purpose).
"""

import json
from pathlib import Path

from . import scaled_rig
from .child_job import ASSETS, ROOT, tool

pointer_files = tool("tools/pointer_files.py")
hostile = tool("tools/hostile_corpus.py")


def validator_valid() -> list[Path]:
    """The validator's own cases whose expected report counts no error."""
    found = []
    for report in sorted((ASSETS / "validator").glob("*/*.report.json")):
        if json.loads(report.read_text())["issues"]["numErrors"] == 0:
            found.append(report.with_name(report.name.removesuffix(".report.json")))
    return found


SHARED = sorted(p for p in (ASSETS / "khronos").rglob("*") if p.suffix in (".gltf", ".glb"))
FIXED = SHARED + validator_valid() + sorted((ROOT / "samples").glob("*.gl*"))
GENERATED = ([f"pointer/{name}" for name in pointer_files.FILES] + ["hostile/gltf", "hostile/glb"]
             + ["scaled_rig"])

# Files the bundled importer refuses in Blender versions first to last (None: open), whether ours
# imports them all the same, and why: a change in either shows in tests/operators/test_import_corpus.py.
BUNDLED_REFUSES = {
    "sqlerp_arm_required.gltf": (None, None, True, "the draft's required form (a channel without a "
                                                   "core sampler) fails its parser; ours reads it"),
    "alpha_cutoff.gltf": ((5, 3), None, False, "animation_pointer.py reads socket_infos[...]['AlphaCutoff'], "
                                               "which 5.3 does not fill: KeyError; ours, built on it, fails alike"),
    "coat_and_sheen.gltf": (None, (5, 0), False, "animation_pointer.py calls path_from_id on a NodeSocket "
                                                 "wrapper of its own (fixed in 5.2); ours, built on it, fails alike"),
}


def bundled_refuses(name: str) -> bool:
    """Whether this Blender's bundled importer refuses the file named ``name``."""
    import bpy
    if name not in BUNDLED_REFUSES:
        return False
    first, last, _, _ = BUNDLED_REFUSES[name]
    version = tuple(bpy.app.version[:2])
    return (first is None or version >= first) and (last is None or version <= last)


def write_generated(folder: Path) -> dict[str, Path]:
    """name -> path of every generated file of the corpus, written into ``folder``."""
    paths = {f"pointer/{name}": pointer_files.write(name, folder) for name in pointer_files.FILES}
    for kind in ("gltf", "glb"):
        paths[f"hostile/{kind}"] = hostile.write_base(folder / f"hostile_{kind}", kind)
    paths["scaled_rig"] = scaled_rig.write(folder)
    return paths


def label(path: Path) -> str:
    """A file's test id: its path under the assets or the repository."""
    return str(path.relative_to(ASSETS if path.is_relative_to(ASSETS) else ROOT))
