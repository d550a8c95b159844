"""The sample arm played in a web page: viewers/three/example.html in headless Chromium.

The page loads samples/sqlerp_arm.glb with three.js' GLTFLoader and our plugin; TestThreePage runs
every example page's tests (web_player_checks.PageTests: every node's quaternion the core's within
1e-6, the draft's required form too, the arm drawn and moving). The manual (docs/manual/web.md)
shows the page's screenshot (docs/three_arm.png, written by tools/three_page.py).
"""

import struct

from helpers.child_job import ROOT

from helpers import web_player_checks as checks

SCREENSHOT = ROOT / "docs" / "three_arm.png"


class TestThreePage(checks.PageTests):
    PAGE = checks.three_page.PAGE

    def test_the_page_runs_the_pinned_three(self, reports):
        revision = checks.web_player.pinned_three().split(".")[1]
        assert [report["sqlerp"]["revision"] for report in reports.values()] == [revision] * len(reports)


def _png_size(path):
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", header[16:24])


def test_the_manual_shows_the_pages_screenshot():
    page = (ROOT / "docs" / "manual" / "web.md").read_text(encoding="utf-8")
    assert "](../three_arm.png)" in page
    assert _png_size(SCREENSHOT) == (960, 540)
