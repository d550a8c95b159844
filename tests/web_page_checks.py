"""What every web player's example page must do in headless Chromium (not a test module): PageTests,
which tests/test_three_page.py and tests/test_babylon_page.py subclass with their page.

Debian's Chromium (``python dev.py test`` installs it where it can), driven by the pinned
playwright-core, renders the page with WebGL in software (SwiftShader); tools/three_page.py serves the
repository and the pinned npm packages. The page loads samples/sqlerp_arm.glb with its engine and our
player, poses the clip at a given time and reports every node's quaternion, which must be the core's
within 1e-6, and where its mesh is on the canvas, which must move between two times.
"""

import numpy as np
import pytest
from child_job import ROOT, tool

from gltf_sqlerp import core

three_page = tool("tools/three_page.py")
web_player = tool("tools/three_player.py")
TIMES = (three_page.README_TIME, 1.4)


class PageTests:
    """Every example page's tests: a test module subclasses this with PAGE, the page's path."""
    PAGE = ""

    @pytest.fixture(scope="class")
    @classmethod
    def reports(cls, tmp_path_factory):
        folder = tmp_path_factory.mktemp("page")
        return {time: three_page.capture(time, folder / f"arm_{time}.png", page=cls.PAGE) for time in TIMES}

    @pytest.mark.parametrize("time", TIMES)
    def test_the_page_plays_the_sample_as_the_core(self, reports, time):
        report = reports[time]
        assert report["errors"] == [] and report["sqlerp"] is not None, report["errors"]
        document = core.load(str(ROOT / "samples" / "sqlerp_arm.glb"))
        wanted, known = web_player.expected(document, 0, np.array([time]))
        played = np.array(report["sqlerp"]["quaternions"], dtype=np.float64)[None]
        assert known.all() and played.shape == wanted.shape
        assert web_player.deviation(played, wanted).max() <= 1e-6

    def test_the_arm_is_drawn_and_moves(self, reports):
        # Software WebGL drew the mesh: thousands of its pixels, in cells that differ between the times.
        first, second = (reports[time]["sqlerp"] for time in TIMES)
        assert first["armPixels"] > 2000 and second["armPixels"] > 2000
        assert sum(a != b for a, b in zip(first["armCells"], second["armCells"])) >= 3
