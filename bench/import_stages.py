"""Where the exact import's time goes beyond the bundled importer's: the bound behind the import
benchmark's misses (docs/manual/benchmarks.md).
Figures of docs/manual/benchmarks.md: the table "Where the rest goes" (Benchmarks).

    python bench/import_stages.py                 # RiggedFigure, AnimatedTriangle, a static triangle
    python bench/import_stages.py FILE ...        # any .gltf/.glb

Per file: the bundled importer alone and ``import_scene.gltf_sqlerp``, best of N each (the
operator call alone, into an empty scene, after warm-ups), and for our import the shortest time of
each of its stages over the N runs, measured inside the real import (caches as an import leaves
them, not warmed in a loop): reading the file, validating the whole document (every object,
accessor and buffer view: issue 18's "whole file validated"), building the document's animations
and scene graph, planning the keys, and in Blender the channel maps, writing the F-curves and
storing the samplers on the actions (what the preview and the export read). "inside": our time
minus those stages, the bundled importer's share of our import (it builds the whole scene, with
one placeholder key per F-curve). The "static" file is AnimatedTriangle without its animation:
what an import costs when there is nothing to animate.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import devpath

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GLTF_SQLERP_SHARED", ROOT.parent / "shared"))
KHRONOS = SHARED / "assets" / "khronos"
STAGES = [  # (label, module under gltf_sqlerp, function)
    ("read", "core.document", "read_file"), ("validate", "core.document", "validate"),
    ("document", "core.document", "Document"), ("plan", "operators.importing.operator", "plan_document"),
    ("snapshot", "operators.transaction", "snapshot"),
    ("rewrite", "operators.importing.session", "rewrite_animation"),  # the next four and the rest
    ("channel maps", "operators.importing.session", "_channel_targets"),
    ("F-curves", "operators.fcurves", "write_keyframes"),
    ("records", "operators.action_data", "channel_record"), ("store", "operators.action_data", "store"),
]


def static_triangle(folder):
    """AnimatedTriangle without its animation, beside copies of its buffers (in a temp folder)."""
    source = KHRONOS / "AnimatedTriangle" / "glTF"
    document = json.loads((source / "AnimatedTriangle.gltf").read_text())
    document.pop("animations")
    for buffer in document["buffers"]:
        shutil.copy(source / buffer["uri"], folder / buffer["uri"])
    path = folder / "StaticTriangle.gltf"
    path.write_text(json.dumps(document))
    return path


def instrument(package):
    """Wrap each stage's function to add its time to ``spent`` (module attributes are replaced, so
    the callers' module-level names must be looked up at call time: they are, for these)."""
    import importlib
    spent: defaultdict[str, float] = defaultdict(float)  # seconds per stage
    for label, module_name, name in STAGES:
        module = importlib.import_module(f"{package.__name__}.{module_name}")
        original = getattr(module, name)

        def timed(*args, _original=original, _label=label, **kwargs):
            started = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_label] += time.perf_counter() - started
        setattr(module, name, timed)
    return spent


def measure(fidelity, spent, path, repeats):
    best = {False: float("inf"), True: float("inf")}
    stages = {}
    for round_ in range(repeats + 2):
        for exact in (False, True):
            fidelity.reset_scene()
            spent.clear()
            started = time.perf_counter()
            devpath.quiet(lambda exact=exact: fidelity.run_import(path, exact=exact))
            elapsed = time.perf_counter() - started
            if round_ < 2:
                continue  # warm-ups
            best[exact] = min(best[exact], elapsed)
            if exact:
                for label, seconds in spent.items():
                    stages[label] = min(stages.get(label, float("inf")), seconds)
    return best[False], best[True], stages


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    devpath.ensure_bpy(__file__)
    fidelity = devpath.load_module("gltf_sqlerp_fidelity", ROOT / "tools" / "fidelity.py")
    folder = Path(tempfile.mkdtemp(prefix="gltf_sqlerp_stages_"))
    files = args.files or [KHRONOS / "RiggedFigure/glTF-Binary/RiggedFigure.glb",
                           KHRONOS / "AnimatedTriangle/glTF/AnimatedTriangle.gltf", static_triangle(folder)]
    fidelity.enable_addon()
    spent = instrument(fidelity.package)  # after enabling: the stages of the modules Blender runs
    print(f"Blender {fidelity.bpy.app.version_string}; ms, best of {args.repeats}; stages: the "
          "shortest of each over the runs, inside the import\n")
    labels = [label for label, _, _ in STAGES]
    print(f"{'file':<24}{'bundled':>8}{'ours':>8}{'ratio':>7}{'inside':>8}  "
          + "".join(f"{label:>13}" for label in labels))
    try:
        for path in files:
            bundled, ours, stages = measure(fidelity, spent, path, args.repeats)
            # The bundled importer's share of our import: what the stages around and before it
            # (reading, validating, planning, the rollback snapshot) and our hook leave.
            ours_only = sum(stages.get(k, 0.0) for k in ("read", "validate", "document", "plan",
                                                          "snapshot", "rewrite"))
            print(f"{path.name[:23]:<24}{bundled * 1e3:>8.2f}{ours * 1e3:>8.2f}{ours / bundled:>6.2f}x"
                  f"{(ours - ours_only) * 1e3:>8.2f}  "
                  + "".join(f"{stages.get(label, 0.0) * 1e3:>13.2f}" for label in labels), flush=True)
    finally:
        fidelity.disable_addon()
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
