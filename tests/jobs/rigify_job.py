"""Child process of tests/operators/test_export_rigify.py (not a test module itself): a Rigify human generated
from Blender's bundled metarig and animated through its controls (tools/driven_rigs.py).

``python rigify_job.py FOLDER`` builds build_rigify()'s rig (706 bones, 160 deforming on Blender
4.5) at 24 fps, records Blender's world matrix (3 x 3) of every bone at 8 samples per frame, then
exports the whole rig (FOLDER/whole.glb) and its deforming bones only
(FOLDER/deform.glb) twice each: with this add-on's export on (File > Export > glTF 2.0 with the
EXT_animation_sqlerp panel enabled, default settings) and off (FOLDER/whole-bundled.glb,
FOLDER/deform-bundled.glb). Prints one JSON line: per file its outcome, summary, bytes and time,
and the frames and world rotations.
"""

import json
import sys
import time
from pathlib import Path
from typing import cast

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator, settings
from helpers.child_job import finish, tool


def main(folder):
    import bpy
    fidelity = tool("tools/fidelity.py")
    rigs = tool("tools/driven_rigs.py")
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    rig = rigs.build_rigify()
    frames = rigs.check_frames(rigs.RIGIFY_FRAMES)
    worlds = rigs.world_matrices(frames)
    scene = current_scene()
    exports = {}
    for name, deform in (("whole", False), ("deform", True)):
        for ours in (True, False):
            settings(scene, "gltf_sqlerp_export").enabled = ours
            path = Path(folder) / f"{name}{'' if ours else '-bundled'}.glb"
            start = time.perf_counter()
            result = operator("export_scene.gltf")(filepath=str(path), export_def_bones=deform)
            seconds = time.perf_counter() - start
            outcome = export_session.last_outcome if ours else None
            exports[path.name] = {
                "result": sorted(result), "bytes": path.stat().st_size, "seconds": seconds,
                "summary": export_session.summary(outcome) if ours else "",
                "world_error_deg": outcome.world_error_deg if outcome else None,
                "channels": [vars(c) for c in outcome.channels] if outcome else []}
    after = rigs.world_matrices(frames)
    unchanged = max(float(np.abs(np.subtract(after[n], worlds[n])).max()) for n in worlds)
    fidelity.disable_addon()
    bones = cast(bpy.types.Armature, rig.data).bones
    deforming = sorted(b.name for b in bones if b.use_deform)
    print(json.dumps({"exports": exports, "frames": frames, "worlds": worlds, "changed_by": unchanged,
                      "deforming": deforming, "bones": [b.name for b in bones]}))


if __name__ == "__main__":
    finish(lambda: main(sys.argv[1]))
