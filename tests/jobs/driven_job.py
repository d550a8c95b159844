"""Child process of tests/operators/test_export_driven.py (not a test module itself): rigs whose bones and
objects Blender moves through constraints, drivers and the NLA, not through their own rotation
keys (tools/driven_rigs.py).

``python driven_job.py FOLDER`` builds build_driven()'s arm (IK, a driven hand) and Child Of prop
at 24 fps, records Blender's own world matrix (3 x 3) of every bone and object at 8 samples per
frame, exports the scene with ``export_scene.gltf_sqlerp`` (defaults) to FOLDER/driven.glb and
with the bundled exporter alone to FOLDER/bundled.glb, and prints one JSON line: the outcome, its
summary, the frames, the world matrices and whether the export left them as they were.
``python driven_job.py FOLDER NLA``: build_nla()'s blended strips, exported in animation mode
Scene to FOLDER/nla.glb and FOLDER/nla-bundled.glb (File > Export > glTF 2.0, the add-on's panel
on and off), and in mode NLA tracks (the ADD track over the REPLACE one: one animation, "Turn") to
FOLDER/tracks.glb and FOLDER/tracks-bundled.glb.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator, settings
from helpers.child_job import finish, tool


def built(builder):
    """(tools/fidelity.py, tools/driven_rigs.py, frames, Blender's world matrices there) once the
    add-on is enabled and ``builder`` (a driven_rigs function's name) has built its rig at 24 fps."""
    fidelity, rigs = tool("tools/fidelity.py"), tool("tools/driven_rigs.py")
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    getattr(rigs, builder)()
    frames = rigs.check_frames(rigs.DRIVEN_FRAMES)
    return fidelity, rigs, frames, rigs.world_matrices(frames)


def main(folder):
    import bpy
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity, rigs, frames, worlds = built("build_driven")
    result = operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / "driven.glb"))
    outcome = export_session.last_outcome
    assert outcome is not None
    after = rigs.world_matrices(frames)  # the export leaves the scene as it found it
    fidelity.disable_addon()
    bpy.ops.export_scene.gltf(filepath=str(Path(folder) / "bundled.glb"))
    print(json.dumps({"result": sorted(result), "channels": [vars(c) for c in outcome.channels],
                      "world_error_deg": outcome.world_error_deg,
                      "fallback_world_error_deg": outcome.fallback_world_error_deg,
                      "summary": export_session.summary(outcome), "frames": frames, "worlds": worlds,
                      "unchanged": after == worlds,
                      "changed": sorted({n for n in worlds if after.get(n) != worlds[n]})}))


def nla(folder):
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity, rigs, frames, worlds = built("build_nla")
    scene = current_scene()
    results, outcome = {}, None
    for ours in (True, False):
        settings(scene, "gltf_sqlerp_export").enabled = ours
        path = Path(folder) / ("nla.glb" if ours else "nla-bundled.glb")
        results[path.name] = sorted(operator("export_scene.gltf")(filepath=str(path), export_animation_mode='SCENE'))
        outcome = export_session.last_outcome if ours else outcome
    assert outcome is not None
    # (the bundled exporter's NLA tracks mode puts matrix_world back through float32: 6e-8 off)
    unchanged = rigs.world_matrices(frames) == worlds
    # Mode NLA tracks: the ADD track "Nod" plays over "Turn" below it, one animation "Turn".
    by_track = None
    for ours in (True, False):
        settings(scene, "gltf_sqlerp_export").enabled = ours
        path = Path(folder) / ("tracks.glb" if ours else "tracks-bundled.glb")
        results[path.name] = sorted(operator("export_scene.gltf")(filepath=str(path),
                                                                 export_animation_mode='NLA_TRACKS'))
        by_track = export_session.last_outcome if ours else by_track
    assert by_track is not None
    fidelity.disable_addon()
    print(json.dumps({"results": results, "channels": [vars(c) for c in outcome.channels],
                      "world_error_deg": outcome.world_error_deg, "summary": export_session.summary(outcome),
                      "frames": frames, "worlds": worlds, "unchanged": unchanged,
                      "track_channels": [vars(c) for c in by_track.channels],
                      "track_world_error_deg": by_track.world_error_deg}))


if __name__ == "__main__":
    finish(lambda: (nla if sys.argv[2:] == ["NLA"] else main)(sys.argv[1]))
