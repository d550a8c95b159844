"""three.js plays EXT_animation_sqlerp files through viewers/three/EXT_animation_sqlerp.js as the core does.

three.js is the pinned npm package (tests/validator/package.json), run under Node.js by
tests/three/play.mjs: GLTFLoader with our plugin registered, an AnimationMixer stepped to every key
time, every key interval's middle and 240 times a second, every node's quaternion read back
(tools/three_player.py). TestThree runs every web player's tests (web_player_checks.PlayerTests): the
core's curve within 1e-6 on the sample in every form, hand-worked values, the hostile corpus, node
channels through KHR_animation_pointer and the export benchmark's files.
"""

import pytest

import web_player_checks as checks

PLAYER = "three"


class TestThree(checks.PlayerTests):
    PLAYER = PLAYER


def test_three_alone_fails_on_the_drafts_required_form():
    # The README's claim, and why the export never writes that form: three.js alone reads
    # channel.sampler, which the draft's form leaves out.
    with pytest.raises(AssertionError, match="could not load"):
        checks.play_like_the_core([checks.SAMPLES / "sqlerp_arm_required.gltf"], PLAYER, plugin=False)


def test_three_alone_ignores_pointer_channels(tmp_path):
    # three.js has no KHR_animation_pointer: without the plugin the node channels through pointers do
    # not play, so the comparison of TestThree's pointer test can fail.
    paths = [checks.pointer_files.write(name, tmp_path) for name in ("reported", "node_trs_pointers", "shared_sampler")]
    for (worst, _), path in zip(checks.play_like_the_core(paths, PLAYER, plugin=False), paths):
        assert worst > 0.1, path.name
