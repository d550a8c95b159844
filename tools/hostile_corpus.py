"""A corpus of hostile glTF files: one broken file per case, each with the error code and JSON
pointer that ``core.load`` must report for it.

Every case starts from one small valid asset (``base_document``, tools/hostile_cases/asset.py):
two nodes (node 0 with a one-triangle mesh and node 1 as its child), one animation with a LINEAR
rotation channel that plays a CUBICSLERP sampler through EXT_animation_sqlerp, a LINEAR
translation, a STEP scale and a CUBICSPLINE translation; one buffer, one buffer view per accessor.
A case mutates the key data, the JSON, the container (.glb) or the files beside it. The cases are
in tools/hostile_cases/, one module per kind of defect; this script writes them.

    python tools/hostile_corpus.py OUTDIR      # writes OUTDIR/<case>/<file> (+ side files), and
                                               # OUTDIR/expected.json (case -> code, pointer, file)

From Python: ``CASES`` (list of ``Case``), ``IMPORTER_CASES`` (files the core accepts and Blender's
bundled importer fails on half-way, from extension objects the core does not check: they test the
import operator's rollback and its one-line report), ``write_case(case,
folder)`` (returns the path of the file to load) and ``write_base(folder, kind)`` (the valid file
the cases are made from).

Expectations: ``code`` and ``pointer`` must be one of the errors in ``GltfError.findings`` (a file
often has knock-on errors too, e.g. a NaN key time also breaks min/max; the order of findings
follows the validator's passes and is not part of the contract).
"""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/: the cases' package beside this script
from hostile_cases import (BIN_NAME, CASES, EXTENSION, IMPORTER_CASES, Case, Symlink,
                           base_arrays, base_document, base_glb, dump_json, glb_bytes)

__all__ = ["BIN_NAME", "CASES", "EXTENSION", "IMPORTER_CASES", "Case", "Symlink", "base_arrays",
           "base_document", "glb_bytes", "has_symlink", "main", "write_base", "write_case", "write_corpus",
           "write_files"]


def write_files(files, folder):
    """Write {relative path: bytes | Symlink} under ``folder`` ('../x' paths land beside it)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Symlink):
            if path.is_symlink() or path.exists():
                path.unlink()
            os.symlink(content.target, path)
        else:
            path.write_bytes(content)
    return folder / next(iter(files))


def write_case(case_, folder):
    """Write one case into ``folder`` (its own folder: side files may sit beside it, in the
    parent); return the path of the file to load."""
    return write_files(case_.build(), folder)


def has_symlink(case_):
    """Whether the case needs a symbolic link (which Windows lets only some users make)."""
    return any(isinstance(content, Symlink) for content in case_.build().values())


def write_base(folder, kind="gltf"):
    """The valid base asset as ``base.gltf`` + ``base.bin`` or ``base.glb``; returns its path."""
    if kind == "glb":
        return write_files({"base.glb": glb_bytes(*base_glb())}, folder)
    document, blob = base_document()
    return write_files({"base.gltf": dump_json(document), BIN_NAME: blob}, folder)


def write_corpus(outdir):
    outdir = Path(outdir)
    expected = {}
    for case_ in CASES:
        main = write_case(case_, outdir / case_.name)
        expected[case_.name] = {"file": str(main.relative_to(outdir)), "code": case_.code,
                                "pointer": case_.pointer, "description": case_.description}
    for case_ in IMPORTER_CASES:
        main = write_case(case_, outdir / case_.name)
        expected[case_.name] = {"file": str(main.relative_to(outdir)), "code": None,
                                "pointer": None, "description": case_.description,
                                "note": "the core accepts it; Blender's bundled importer fails"}
    write_base(outdir / "_valid_base")
    write_base(outdir / "_valid_base", "glb")
    (outdir / "expected.json").write_text(json.dumps(expected, indent=1), encoding="utf-8")
    return expected


def _check_names():
    names = [c.name for c in CASES + IMPORTER_CASES]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise AssertionError(f"duplicate case names: {sorted(duplicates)}")


_check_names()


def main(argv):
    if len(argv) != 1:
        print("usage: python tools/hostile_corpus.py OUTDIR", file=sys.stderr)
        return 2
    write_corpus(argv[0])
    print(f"{len(CASES)} hostile cases and {len(IMPORTER_CASES)} for the importer written to "
          f"{argv[0]} (expected codes in expected.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
