"""Benchmark figures live on the benchmark pages, not in the code (issue 39): a docstring or comment
that justifies a choice by a measurement keeps its reason and points at the page that holds the
figures, as ``(measured: docs/manual/benchmarks.md, "Kernel choices")``. Each such pointer names a
page of the repository and a bold paragraph title on it (``**Kernel choices**``; or a title's part
before its colon: "Export of Blender-keyed rigs" for ``**Export of Blender-keyed rigs: size, world
error and time**``), so that renaming the paragraph or moving the page breaks this test, not the
reader's search.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = ("core", "operators", "ui", "bundled_gltf", "pipeline", "fit_workers", "tools", "bench")
# The pointer, once a comment's or docstring's line breaks (and a comment's "#") are spaces.
POINTER = re.compile(r'\(measured: (?P<page>[\w./-]+\.md), "(?P<paragraph>[^"]+)"\)')


def pointers(source: str) -> list[tuple[str, str]]:
    """(page, paragraph) of every pointer in the Python ``source``, across line breaks."""
    flat = re.sub(r"\s*\n\s*(?:#\s*)?", " ", source)
    return [(match["page"], match["paragraph"]) for match in POINTER.finditer(flat)]


def paragraphs(page: Path) -> set[str]:
    """The bold titles that open a paragraph of ``page`` (``**Title**`` at the start of a line), and
    of those with a colon, the part before it."""
    titles = set(re.findall(r"^\*\*([^*]+)\*\*", page.read_text(encoding="utf-8"), re.MULTILINE))
    return titles | {title.split(":")[0] for title in titles if ":" in title}


def test_every_pointer_names_a_paragraph_of_a_page():
    found = {(path.relative_to(ROOT).as_posix(), page, paragraph)
             for top in CODE for path in sorted((ROOT / top).rglob("*.py"))
             for page, paragraph in pointers(path.read_text(encoding="utf-8"))}
    assert any(paragraph == "Kernel choices" for _, _, paragraph in found)
    broken = sorted((where, page, paragraph) for where, page, paragraph in found
                    if not (ROOT / page).is_file() or paragraph not in paragraphs(ROOT / page))
    assert broken == []


def test_a_pointer_is_found_across_lines_and_comments():
    """The control: a pointer broken over two comment lines or docstring lines is one pointer."""
    comment = '# the reason (measured:\n#   docs/manual/benchmarks.md, "Kernel\n# choices").\nX = 1\n'
    docstring = '    """Why (measured:\n    docs/manual/benchmarks.md, "Kernel choices")."""\n'
    assert pointers(comment) == pointers(docstring) == [("docs/manual/benchmarks.md", "Kernel choices")]
    found = paragraphs(ROOT / "docs" / "manual" / "benchmarks.md")
    assert {"Kernel choices", "Export of Blender-keyed rigs"} <= found
    # a whole title or its part before a colon, never any other beginning of one
    assert "Export of" not in found and "Kernel" not in found
