"""The sample arm played in a web page: viewers/babylon/example.html in headless Chromium.

The page loads samples/sqlerp_arm.glb with Babylon.js' glTF loader and our loader extension (Babylon's
ES modules resolved through the page's import map from the pinned .node/node_modules), poses the
animation group with goToFrame and renders it; TestBabylonPage runs every example page's tests
(web_player_checks.PageTests: every node's quaternion the core's within 1e-6, the draft's required
form too, the arm drawn and moving).
"""

from helpers import web_player_checks as checks


class TestBabylonPage(checks.PageTests):
    PAGE = checks.three_page.BABYLON_PAGE

    def test_the_page_runs_the_pinned_babylon(self, reports):
        version = checks.web_player.pinned("@babylonjs/core")
        assert [report["sqlerp"]["version"] for report in reports.values()] == [version] * len(reports)
