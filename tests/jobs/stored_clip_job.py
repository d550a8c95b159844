"""Child process of tests/core/test_clip_record.py (not a test module itself).

A fresh Blender (the bpy module) with the add-on enabled opens a .blend saved by an earlier
version, previews its clip and exports it, as a user who opens an old file does. A fresh process
also keeps the open file's state out of the test session (a session that opened it was seen to
wait forever at exit). Prints one JSON line.
Usage: ``python stored_clip_job.py BLEND SAMPLE OUTPUT``.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator
from helpers.child_job import finish, tool


def main(blend, sample, output):
    fidelity = tool("tools/fidelity.py")
    fidelity.enable_addon()
    import bpy
    from helpers.preview_checks import frame_set, off_spec, records, set_preview

    from gltf_sqlerp import core
    from gltf_sqlerp.operators import action_data
    from gltf_sqlerp.operators.exporting import session as export_session
    bpy.ops.wm.open_mainfile(filepath=blend)
    arm = bpy.data.objects["Arm"]
    assert arm.animation_data is not None and arm.animation_data.action is not None
    clip = action_data.load(arm.animation_data.action)
    assert clip is not None
    scene = current_scene()
    set_preview(scene, True, "EXTENSION")
    frame_set(scene, 30.5)
    previewed = off_spec(arm, records(arm), core.load(sample), 30.5 / 24.0, False)
    set_preview(scene, False)
    result = sorted(operator("export_scene.gltf_sqlerp")(filepath=output))
    outcome = export_session.last_outcome
    assert outcome is not None
    channels = [{"form": c.form, "kept": c.kept} for c in outcome.channels]
    fidelity.disable_addon()
    print(json.dumps({"version": clip.version, "name": clip.name, "channels": len(clip.channels),
                      "slots": sorted({c.slot for c in clip.channels}), "previewed_deg": previewed,
                      "export": result, "exported": channels}))


if __name__ == "__main__":
    finish(lambda: main(*sys.argv[1:4]))
