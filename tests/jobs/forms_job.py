"""Child process of tests/operators/test_export_forms.py (not a test module itself): rigs where the
extension does not pay off, exported by the bundled exporter and by ours with default settings.

``python forms_job.py FOLDER``: for each seed of SEEDS, an arm of 4 bones keyed by an animator
with turns of up to 100 degrees between keys, starting at frame -6 (tools/keyed_rig.py build),
written to FOLDER/bundled-SEED.glb and FOLDER/ours-SEED.glb; prints one JSON line: per seed, the
frames sampled (8 per frame), Blender's world rotation matrices of every bone there, and the
export's outcome. Ends with os._exit (child_job.finish: 4.2 crashes at exit after an export).
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator, settings
from helpers.child_job import finish, tool

SEEDS = (7, 3, 5)


def main(folder):
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    runs = {}
    for seed in SEEDS:
        fidelity.reset_scene(24, 1.0)
        armature, _ = rig.build(bones=4, objects=0, seed=seed)
        scene = current_scene()
        # The action's range: the scene's cannot start before frame 0 (its start is clamped).
        start, end = (int(f) for f in armature.animation_data.action.frame_range)
        frames = [start + i / 8.0 for i in range(8 * (end - start) + 1)]
        worlds = {bone.name: [] for bone in armature.pose.bones}
        for frame in frames:
            scene.frame_set(int(frame // 1), subframe=frame % 1.0)
            for bone in armature.pose.bones:
                worlds[bone.name].append([list(row) for row in (armature.matrix_world @ bone.matrix).to_3x3()])
        settings(scene, "gltf_sqlerp_export").enabled = False
        operator("export_scene.gltf")(filepath=str(Path(folder) / f"bundled-{seed}.glb"))
        settings(scene, "gltf_sqlerp_export").enabled = True
        result = operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / f"ours-{seed}.glb"))
        outcome = export_session.last_outcome
        assert outcome is not None
        runs[seed] = {"result": sorted(result), "frames": frames, "worlds": worlds,
                      "forms": [c.form for c in outcome.channels],
                      "world_error_deg": outcome.world_error_deg, "summary": export_session.summary(outcome)}
    fidelity.disable_addon()
    print(json.dumps(runs))


if __name__ == "__main__":
    finish(lambda: main(sys.argv[1]))
