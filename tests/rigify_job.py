"""Child process of tests/test_export_rigify.py (not a test module itself): a Rigify human generated
from Blender's bundled metarig and animated through its controls.

``python rigify_job.py FOLDER`` enables Blender's bundled Rigify add-on, adds the human metarig,
generates the rig (706 bones, 160 deforming on Blender 4.2 to 5.x), keys IK and FK controls
(a hand and a foot IK target moving, the torso, chest and head turning, an FK forearm) over
frames 1 to 30 at 24 fps, records Blender's world rotation (3 x 3) of every bone at 8 samples
per frame, then exports the whole rig (FOLDER/whole.glb) and its deforming bones only
(FOLDER/deform.glb) twice each: with this add-on's export on (File > Export > glTF 2.0 with the
EXT_animation_sqlerp panel enabled, default settings) and off (FOLDER/whole-bundled.glb,
FOLDER/deform-bundled.glb). Prints one JSON line: per file its outcome, summary, bytes and time,
and the frames and world rotations.
"""

import json
import math
import sys
import time
import traceback
from pathlib import Path
from typing import cast

import numpy as np

from bpy_access import current_scene, operator, settings
from child_job import finish, tool

FRAMES = (1, 30)
CONTROLS = ("hand_ik.L", "foot_ik.R", "torso", "chest", "head", "forearm_fk.R")


def build():
    import addon_utils
    import bpy
    addon_utils.enable("rigify", default_set=True, handle_error=lambda error: traceback.print_exc())
    operator("object.armature_human_metarig_add")()  # Rigify's operators: unknown to the stubs
    metarig = bpy.context.object
    assert metarig is not None
    operator("pose.rigify_generate")()
    rig = bpy.context.object
    assert rig is not None and rig is not metarig and rig.pose is not None
    bpy.data.objects.remove(metarig)  # its bones' names are the rig's controls': one armature in the file
    scene = current_scene()
    scene.frame_start, scene.frame_end = FRAMES
    bones = rig.pose.bones
    for frame, s in ((1, 0.0), (12, 1.0), (22, -0.6), (30, 0.3)):
        for name in CONTROLS:
            bone = bones[name]
            if name.endswith("_ik.L") or name.endswith("_ik.R"):
                bone.location = (0.05 * s, 0.04 * s, 0.06 * s)
                bone.keyframe_insert("location", frame=frame)
            if bone.rotation_mode == 'QUATERNION':
                bone.rotation_quaternion = (math.cos(0.25 * s), math.sin(0.25 * s), 0.1 * s, 0.0)
                bone.keyframe_insert("rotation_quaternion", frame=frame)
            else:
                bone.rotation_euler = (0.3 * s, 0.1 * s, 0.2 * s)
                bone.keyframe_insert("rotation_euler", frame=frame)
    return rig


def world_rotations(rig, frames):
    """{bone: [3 x 3 rows per frame]}: Blender's world matrix of every pose bone, its 3 x 3 part
    (scale and shear in it: the test takes its nearest rotation)."""
    scene = current_scene()
    result = {bone.name: [] for bone in rig.pose.bones}
    for frame in frames:
        scene.frame_set(int(frame // 1), subframe=frame % 1.0)
        world = rig.matrix_world
        for bone in rig.pose.bones:
            rows = (world @ bone.matrix).to_3x3()
            result[bone.name].append([[rows[i][j] for j in range(3)] for i in range(3)])
    return result


def main(folder):
    import bpy
    fidelity = tool("tools/fidelity.py")
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    rig = build()
    frames = [FRAMES[0] + i / 8.0 for i in range(8 * (FRAMES[1] - FRAMES[0]) + 1)]
    worlds = world_rotations(rig, frames)
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
    after = world_rotations(rig, frames)
    unchanged = max(float(np.abs(np.subtract(after[n], worlds[n])).max()) for n in worlds)
    fidelity.disable_addon()
    deforming = sorted(b.name for b in cast(bpy.types.Armature, rig.data).bones if b.use_deform)
    print(json.dumps({"exports": exports, "frames": frames, "worlds": worlds, "changed_by": unchanged,
                      "deforming": deforming}))


if __name__ == "__main__":
    finish(lambda: main(sys.argv[1]))
