"""The cheap figures of the README and its manual (docs/manual) agree with what the tools measure
today (tools/readme_figures.py:
the converter's table of every animated Khronos model, the hostile corpus's size, the maxima of
the curves picture). Its check runs as a developer runs it, in a child process; the figures that
take minutes come from the benchmark scripts each table names."""

import importlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "readme_figures.py"
sys.path.insert(0, str(ROOT / "tools"))
# tools/readme_figures.py, imported by name: tools/ is on the path at run time only (the line above).
readme_figures = importlib.import_module("readme_figures")


def test_the_readme_agrees_with_the_figures_measured_now():
    done = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert done.stdout.strip().endswith("README agrees")


def test_the_check_sees_a_figure_that_differs():
    """The comparison itself: a README whose corpus count is off by one, and one without the
    converter's table, are both reported (the control for the test above)."""
    text = readme_figures.documents_text()
    figures = {"corpus": "182", "converter": "\n| a table |\n"}
    wrong = text.replace("<!-- figure corpus -->182<!-- /figure -->",
                         "<!-- figure corpus -->181<!-- /figure -->")
    differ, _ = readme_figures.check(figures, wrong)
    assert ("corpus", "181", "182") in differ
    _, missing = readme_figures.check(figures, readme_figures.MARKED.sub("", text))
    assert missing == ["converter", "corpus"]


def test_every_marked_figure_is_one_the_tool_measures():
    marked = readme_figures.in_readme(readme_figures.documents_text())
    assert set(marked) == {"converter", "corpus", "curves_fallback", "curves_import", "curves_bundled"}
    assert len(marked["corpus"]) == 2  # both places that give the corpus's size
