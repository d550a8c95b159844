"""The cheap figures of the README and its manual (docs/manual) agree with what the tools measure
today (tools/readme_figures.py:
the converter's table of every animated Khronos model, the hostile corpus's size, the maxima of
the curves picture). Its check runs as a developer runs it, in a child process; the figures that
take minutes come from the benchmark scripts each table names."""

import importlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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


def _python_of(blender: str) -> Path:
    """The interpreter of the pinned Blender ``blender`` (dev.py's key): the venv running this test
    where that is its Blender, else the other venv dev.py made for it."""
    import bpy
    if bpy.app.version_string.startswith(blender + "."):
        return Path(sys.executable)
    sys.path.insert(0, str(ROOT))
    dev = importlib.import_module("dev")
    python = next(env for env in dev.ENVS if env.key == blender).python()
    assert python.exists(), f"{python} is missing: `python dev.py test` makes it"
    return python


def test_the_readmes_bytes_error_picture_is_measured_now(tmp_path):
    """docs/bytes_error.svg: the capture clip exported by the bundled exporter, the peers and ours,
    measured now (tools/plot_bytes_error.py, with the Blender the picture names) and drawn again:
    the same bytes. A changed export, peer or measurement changes the picture."""
    plot = importlib.import_module("plot_bytes_error")
    out = tmp_path / "bytes_error.svg"
    done = subprocess.run([str(_python_of(plot.FIGURE_BLENDER)), str(ROOT / "tools" / "plot_bytes_error.py"), str(out)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    drawn = out.read_text(encoding="utf-8")
    assert f"Exported from Blender {plot.FIGURE_BLENDER}." in drawn
    assert drawn == (ROOT / "docs" / "bytes_error.svg").read_text(encoding="utf-8"), done.stdout


def test_every_marked_figure_is_one_the_tool_measures():
    marked = readme_figures.in_readme(readme_figures.documents_text())
    assert set(marked) == {"converter", "corpus", "curves_fallback", "curves_import", "curves_bundled"}
    assert len(marked["corpus"]) == 2  # both places that give the corpus's size
