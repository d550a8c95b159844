"""The README's figures that take seconds to measure: printed here, and checked against README.md
and the manual it links to (docs/manual/*.md).

    python dev.py run tools/readme_figures.py           # measure, print, say where the README differs
    python dev.py run tools/readme_figures.py --write   # measure and put the figures into README.md

In README.md and the manual each such figure sits between ``<!-- figure NAME -->`` and ``<!-- /figure -->``
(invisible when rendered). The figures, and what measures them:

- ``converter``: the converter's table of every animated Khronos model in ../shared/assets at the
  defaults (core.conversion.converter, 0.01°, fallback 0.1°), one row per file.
- ``corpus``: how many hostile files tools/hostile_corpus.py writes.
- ``curves_fallback``, ``curves_import``, ``curves_bundled``: the largest world-space distance
  of the sample elbow's fallback, of this add-on's import and of the bundled importer's from the
  extension (tools/plot_curves.py, which also draws docs/curves.svg; needs the bpy module).

The other figures come from the benchmark scripts that each table names (``bench/*.py``), which take
minutes and print their tables whole. tests/repository/test_readme_figures.py runs ``check`` in the test
command: the README and these measurements must agree.
"""

import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import devpath

ROOT = devpath.ROOT
README = ROOT / "README.md"
# The README and its manual: where the figures are, one text for the checks.
DOCUMENTS = [README, *sorted((ROOT / "docs" / "manual").glob("*.md"))]
SHARED = Path(os.environ.get("GLTF_SQLERP_SHARED", ROOT.parent / "shared"))
KHRONOS = SHARED / "assets" / "khronos"
MARKED = re.compile(r"<!-- figure (?P<name>[\w.]+) -->(?P<text>.*?)<!-- /figure -->", re.DOTALL)
VARIANTS = (("glTF-Binary", ".glb"), ("glTF", ".gltf"), ("glTF-Embedded", ".gltf"))


def _files(model):
    """The model's .glb and its .gltf with external files (else its embedded .gltf)."""
    found = [path for folder, suffix in VARIANTS
             for path in sorted((KHRONOS / model / folder).glob(f"*{suffix}"))]
    gltf = [p for p in found if p.suffix == ".gltf"]
    return [p for p in found if p.suffix == ".glb"] + gltf[:1]


def _rotations(report):
    cubic = [c for c in report.converted if c.form == "CUBICSLERP"]
    linear = [c for c in report.converted if c.form != "CUBICSLERP"]
    left = [c for c in report.channels if not c.converted]
    cubic_text = (f"{len(cubic)} ({sum(c.original_keys for c in cubic)} → {sum(c.keys for c in cubic)} keys)"
                  if cubic else "0")
    kinds = sorted({c.interpolation for c in left})
    left_text = f"{len(left)} ({', '.join(kinds)})" if left and kinds != ["LINEAR"] else str(len(left))
    return f"{cubic_text} / {len(linear)} / {left_text}", bool(cubic)


def converter_rows():
    """One table row per animated Khronos file, converted at the defaults into a temporary folder."""
    devpath.import_package()
    from gltf_sqlerp.core.conversion.converter import convert
    rows = ["| file | input B | output B | rotations: CUBICSLERP / LINEAR alone / left | "
            "world max°: extension / fallback |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as folder:
        for model in sorted(p.name for p in KHRONOS.iterdir() if p.is_dir()):
            for path in _files(model):
                report = convert(path, Path(folder) / model / path.name)
                name = f"{model} {path.suffix}"
                if not report.written:
                    reason = report.reason.removeprefix("nothing written: ")
                    reason = ("no rotation channel" if "no rotation channel" in reason else
                              f"{report.destination_bytes:,} would not be smaller" if "not smaller" in reason
                              else reason)
                    rows.append(f"| {name} | {report.source_bytes:,} | not written: {reason} | | |")
                    continue
                rotations, cubic = _rotations(report)
                world = (f"{report.world_max_deg:.4f} / {report.world_max_fallback_deg:.4f}" if cubic
                         else f"{report.world_max_deg:.4f}")
                rows.append(f"| {name} | {report.source_bytes:,} | {report.destination_bytes:,} | "
                            f"{rotations} | {world} |")
    return "\n".join(rows)


def corpus_size():
    corpus = devpath.load_module("hostile_corpus", ROOT / "tools" / "hostile_corpus.py")
    return str(len(corpus.CASES) + len(corpus.IMPORTER_CASES))


def curve_maxima():
    plot = devpath.load_module("plot_curves", ROOT / "tools" / "plot_curves.py")
    _, _, errors = plot.measure()
    largest = {label: float(max(values)) for label, values in errors.items()}
    return {"curves_fallback": f"{largest['fallback (spec)']:.4f}°",
            "curves_import": f"{largest['this add-on in Blender']:.4f}°",
            "curves_bundled": f"{largest['bundled importer in Blender']:.4f}°"}


def measure(names=None):
    """{figure name: text}; ``names`` limits it (the curves need bpy, the rest numpy only)."""
    wanted = set(names) if names else None
    figures = {}
    if wanted is None or "converter" in wanted:
        figures["converter"] = "\n" + converter_rows() + "\n"
    if wanted is None or "corpus" in wanted:
        figures["corpus"] = corpus_size()
    if wanted is None or wanted & {"curves_fallback", "curves_import", "curves_bundled"}:
        figures.update(curve_maxima())
    return figures


def documents_text() -> str:
    """README.md and every manual page, one after the other."""
    return "\n".join(path.read_text(encoding="utf-8") for path in DOCUMENTS)


def in_readme(text):
    """{figure name: [texts]} of every marked figure of the README (a name may repeat)."""
    found = {}
    for match in MARKED.finditer(text):
        found.setdefault(match["name"], []).append(match["text"])
    return found


def check(figures, text):
    """[(name, README's text, measured)] where they differ, and names the README lacks."""
    marked = in_readme(text)
    return ([(name, shown, figures[name]) for name, texts in marked.items() if name in figures
             for shown in texts if shown != figures[name]],
            sorted(set(figures) - set(marked)))


def write(figures, text):
    return MARKED.sub(lambda m: (f"<!-- figure {m['name']} -->{figures.get(m['name'], m['text'])}"
                                 "<!-- /figure -->"), text)


def main(argv):
    figures = measure()
    for name, value in figures.items():
        print(f"--- {name}:{value if value.startswith(chr(10)) else ' ' + value}")
    if "--write" in argv:
        for path in DOCUMENTS:
            path.write_text(write(figures, path.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {', '.join(str(p.relative_to(ROOT)) for p in DOCUMENTS)}")
        return 0
    differ, missing = check(figures, documents_text())
    for name, shown, measured in differ:
        print(f"README differs for {name}: {shown.strip()!r} (measured {measured.strip()!r})")
    for name in missing:
        print(f"README has no figure {name}")
    print("README agrees" if not differ and not missing else "README disagrees (--write updates it)")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    devpath.ensure_bpy(__file__)
    sys.exit(main(sys.argv[1:]))
