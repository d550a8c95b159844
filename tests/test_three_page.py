"""The sample arm played in a web page: viewers/three/example.html in headless Chromium.

Debian's Chromium (``python dev.py test`` installs it where it can), driven by the pinned
playwright-core, renders the page with WebGL in software (SwiftShader). The page loads
samples/sqlerp_arm.glb with three.js' GLTFLoader and our plugin, poses the clip at a given time
and reports every node's quaternion, which must be the core's within 1e-6, and where its mesh is on
the canvas, which must move between two times. The manual (docs/manual/web.md) shows the page's screenshot
(docs/three_arm.png, written by tools/three_page.py).
"""

import struct

import numpy as np
import pytest
from child_job import ROOT, tool

from gltf_sqlerp import core

three_page = tool("tools/three_page.py")
three_player = tool("tools/three_player.py")
SCREENSHOT = ROOT / "docs" / "three_arm.png"
TIMES = (three_page.README_TIME, 1.4)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("page")
    return {time: three_page.capture(time, folder / f"arm_{time}.png") for time in TIMES}


def _png_size(path):
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", header[16:24])


@pytest.mark.parametrize("time", TIMES)
def test_the_page_plays_the_sample_as_the_core(reports, time):
    report = reports[time]
    assert report["errors"] == [] and report["sqlerp"] is not None, report["errors"]
    document = core.load(str(ROOT / "samples" / "sqlerp_arm.glb"))
    wanted, known = three_player.expected(document, 0, np.array([time]))
    played = np.array(report["sqlerp"]["quaternions"], dtype=np.float64)[None]
    assert known.all() and played.shape == wanted.shape
    assert three_player.deviation(played, wanted).max() <= 1e-6
    assert report["sqlerp"]["revision"] == three_player.pinned_three().split(".")[1]


def test_the_arm_is_drawn_and_moves(reports):
    # Software WebGL drew the mesh: thousands of its pixels, in cells that differ between the times.
    first, second = (reports[time]["sqlerp"] for time in TIMES)
    assert first["armPixels"] > 2000 and second["armPixels"] > 2000
    assert sum(a != b for a, b in zip(first["armCells"], second["armCells"])) >= 3


def test_the_manual_shows_the_pages_screenshot():
    page = (ROOT / "docs" / "manual" / "web.md").read_text(encoding="utf-8")
    assert "](../three_arm.png)" in page
    assert _png_size(SCREENSHOT) == (960, 540)
