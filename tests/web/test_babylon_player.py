"""Babylon.js plays EXT_animation_sqlerp files through viewers/babylon/EXT_animation_sqlerp.js as the core does.

Babylon.js is the pinned npm packages @babylonjs/core and @babylonjs/loaders
(tests/validator/package.json), run under Node.js with its NullEngine by tests/babylon/play.mjs: the
glTF loader with our loader extension registered, each animation group sent to every key time, every
key interval's middle and 240 times a second, every node's quaternion read back
(tools/three_player.py, player "babylon"). TestBabylon runs every web player's tests
(web_player_checks.PlayerTests), the same as three.js': the core's curve within 1e-6 on the sample in
every form, hand-worked values, the hostile corpus, node channels through KHR_animation_pointer and
the export benchmark's files. Babylon alone is checked too, so that each comparison can fail.
"""

import numpy as np
import pytest

from helpers import web_player_checks as checks

PLAYER = "babylon"
REFUSED = "Required extension EXT_animation_sqlerp is not available"


class TestBabylon(checks.PlayerTests):
    PLAYER = PLAYER


@pytest.mark.parametrize("form", ["draft", "placeholder", "pointer"])
def test_babylon_alone_refuses_the_required_forms(tmp_path, form):
    # Babylon's loader refuses a file whose extensionsRequired it does not know, so neither the
    # draft's form (no core sampler), our export's (a one-key STEP placeholder) nor the extension on a
    # KHR_animation_pointer channel plays without ours. (Babylon alone does play the pointer files of
    # TestBabylon, which need no extension of ours, with its own KHR_animation_pointer: within 3e-8.)
    path = checks.SAMPLES / "sqlerp_arm_required.gltf" if form == "draft" else checks.hand_worked_file(tmp_path, form)
    with pytest.raises(AssertionError, match=REFUSED):
        checks.web_player.play([path], [{0: np.zeros(1)}], plugin=False, player=PLAYER)
