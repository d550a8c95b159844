"""Every relative link in the README, the changelog, the contributing guide and docs/ leads somewhere.

A link ``[text](target)`` whose target is not a web address must name a file or folder of the
repository (relative to the page), and its ``#anchor``, if any, a heading of that Markdown page as
GitHub renders it (lower case, punctuation dropped, spaces as hyphens, ``-1``, ``-2`` ... after
repeats) or an ``<a id="...">`` / ``<a name="...">`` there. A page that moves, or a heading that is
reworded, breaks the links to it: this test names each.
"""

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md",
                *(ROOT / "docs").rglob("*.md")])
# [text](target "title"): the target up to a space or the closing parenthesis.
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\((?P<target><[^>]+>|[^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"!\[[^\]]*\]\((?P<target>[^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"(?P<name>[^\"]+)\"")
FENCE = re.compile(r"^\s*```")


def prose(text: str) -> str:
    """``text`` with its fenced code blocks and inline code blanked (links there are code, not
    links), line for line."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            kept.append("")
            continue
        kept.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)


def slug(title: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"<[^>]+>", "", title)             # inline HTML
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)             # punctuation, backticks, emphasis marks
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor a link may name on ``page``."""
    text = page.read_text(encoding="utf-8")
    found, seen = set(), Counter()
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            base = slug(match["title"])
            found.add(base if not seen[base] else f"{base}-{seen[base]}")
            seen[base] += 1
    return found | set(HTML_ANCHOR.findall(text))


def links(page: Path) -> list[tuple[int, str]]:
    """(line, target) of every link and image on ``page`` that is not a web address."""
    result = []
    for number, line in enumerate(prose(page.read_text(encoding="utf-8")).splitlines(), 1):
        for match in [*LINK.finditer(line), *IMAGE.finditer(line)]:
            target = match["target"].strip("<>")
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                result.append((number, target))
    return result


CASES = [(page, number, target) for page in PAGES for number, target in links(page)]


def test_the_pages_have_links_to_check():
    """The README links its manual pages and the spec page (so the pattern finds links)."""
    from_readme = {target for page, _, target in CASES if page.name == "README.md"}
    assert {"docs/manual/blender.md", "docs/manual/benchmarks.md"} <= from_readme


@pytest.mark.parametrize("page, line, target", CASES,
                         ids=[f"{p.relative_to(ROOT).as_posix()}:{n}:{t}" for p, n, t in CASES])
def test_every_relative_link_resolves(page, line, target):
    path, _, anchor = target.partition("#")
    destination = (page.parent / path).resolve() if path else page
    assert destination.exists(), f"{page.relative_to(ROOT)}: {target} names no file"
    if anchor:
        assert destination.suffix == ".md", f"{page.relative_to(ROOT)}: {target}: an anchor in a non-Markdown file"
        assert anchor in anchors(destination), (f"{page.relative_to(ROOT)}: no heading #{anchor} in "
                                                f"{destination.relative_to(ROOT)}")


def test_the_slugs_are_githubs():
    """Headings worked by hand as GitHub renders them."""
    assert slug("Export with `CUBICSLERP` rotations (AUTO)") == "export-with-cubicslerp-rotations-auto"
    assert slug("What it is") == "what-it-is"
    assert slug("Security, robustness and known limits") == "security-robustness-and-known-limits"


def test_the_front_page_and_each_manual_page_stay_short():
    """A README a newcomer reads in ten minutes (at most 250 lines) and manual pages of about 400
    lines at most, one per audience (issue 37)."""
    lengths = {page.relative_to(ROOT).as_posix(): len(page.read_text(encoding="utf-8").splitlines())
               for page in [ROOT / "README.md", *(ROOT / "docs" / "manual").glob("*.md")]}
    assert lengths["README.md"] <= 250, lengths
    assert {page: n for page, n in lengths.items() if n > 400} == {}, lengths


SPEC = ROOT / "docs" / "EXT_animation_sqlerp" / "README.md"
# spec "<a heading>", on one line (a citation broken across lines is reported as one).
CITATION = re.compile(r'spec "(?P<title>[A-Z][^"\n]*)(?P<end>"|$)', re.MULTILINE)
OUTSIDE = {".git", "node_modules", "example_out", "dist", "build", "fuzz_escapes"}


def _code_files():
    return [path for path in ROOT.rglob("*") if path.suffix in (".py", ".js", ".mjs")
            and not any(part in OUTSIDE or part.startswith((".venv", ".node")) for part in path.parts)]


def test_every_spec_citation_in_the_code_names_a_section_of_the_spec():
    """Comments cite the extension's settled text as ``spec "<heading>"``: a heading of
    docs/EXT_animation_sqlerp/README.md, which a clone has (not a file outside the repository)."""
    titles = {match["title"] + '"' for line in SPEC.read_text(encoding="utf-8").splitlines()
              if (match := HEADING.match(line))}
    cited = [(path.relative_to(ROOT).as_posix(), match["title"] + match["end"]) for path in _code_files()
             for match in CITATION.finditer(path.read_text(encoding="utf-8"))]
    assert len(cited) >= 40  # the pattern finds them
    assert [(path, title) for path, title in cited if title not in titles] == []  # unclosed ones too
    assert [p.relative_to(ROOT).as_posix() for p in _code_files()
            if "sqlerp-" + "conventions" in p.read_text(encoding="utf-8")] == []  # the project's own file
