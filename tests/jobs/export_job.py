"""Child process of the export tests in the real Blender (tests/operators/test_export_roundtrip.py,
test_export_world.py, test_pointer_export.py; not a test module itself).

The bpy module of Blender 4.2 crashes at exit once its bundled glTF exporter has run, so exports
run here and the process ends with os._exit. Usage:
``python export_job.py FOLDER FALLBACK [FORMAT] [FPS] [FPS_BASE]``: builds the keyed rig
(tools/keyed_rig.py), records Blender's own world rotations of every bone and empty at every frame
and half frame, exports with ``export_scene.gltf_sqlerp`` (fallback FALLBACK) to FOLDER/rig.FORMAT,
re-imports the file with this add-on and with the bundled importer alone, records the same
rotations, and prints one JSON line: the motions, the export's outcome and the operator's result.
``python export_job.py FOLDER MODE`` runs another export instead: DENSE and DEEP (dense() and
deep() here), REEXPORT, FAIL, DIALOG, DRIFT, PROCESSES and CONSTRAINED (export_operator_jobs.py
beside this script), POINTER and LOOKS (export_pointer_jobs.py). What they record in Blender is
tests/helpers/export_recording.py's.
"""

import json
import sys
from pathlib import Path
from typing import Literal

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator
from helpers.child_job import finish, tool
from helpers.export_recording import exported, imported_rotations, play_every_clip, slides, world_rotations
# The other modes, beside this script (its folder is the first on sys.path).
from export_operator_jobs import constrained, dialog, drift, failing, processes, reexport
from export_pointer_jobs import looks, pointer


def main(folder, fallback, file_format="glb", fps: float = 24, fps_base=1.0):
    """The keyed rig's round trip (the module's first usage)."""
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene(fps, fps_base)
    rig.build()
    rig.add_fractional_empty()
    scene = current_scene()
    start, end = scene.frame_start, scene.frame_end
    frames = [start + 0.5 * i for i in range(int(2 * (end - start)) + 1)]
    original, slide_of = world_rotations(frames), slides()
    path = Path(folder) / f"rig.{file_format}"
    result = operator("export_scene.gltf_sqlerp")(filepath=str(path), fallback=fallback)
    outcome = export_session.last_outcome
    channels = [vars(c) for c in outcome.channels] if outcome else []
    played = {}
    # A file whose extension is required is refused by importers without it (the bundled one).
    for exact in (True, False) if fallback != "NONE" else (True,):
        fidelity.import_gltf(str(path), exact=exact, fps=fps, fps_base=fps_base)
        play_every_clip()
        played["ours" if exact else "bundled"] = imported_rotations(frames, slide_of)
    fidelity.disable_addon()
    print(json.dumps({"result": sorted(result), "channels": channels, "slides": slide_of,
                      "frames": frames, "original": original, **played}))


def dense(folder):
    """Empties keyed on every frame, as capture, baked and imported clips are: "Rough" turns by
    0.5 to 3 degrees a frame about random axes with LINEAR interpolation (corners no smooth curve
    follows within 0.01 degrees), "Baked" has the same keys with Bezier interpolation (a smooth
    curve through them), "Smooth" swings slowly with LINEAR interpolation (0.035 degrees of
    corner a frame). Exported with the default settings to FOLDER/dense.glb; prints the
    outcome's channels and Blender's world rotations at 8 samples per frame."""
    import bpy
    import numpy as np
    fidelity = tool("tools/fidelity.py")
    from gltf_sqlerp.operators.exporting.motion import action_curves
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    scene = current_scene()
    scene.frame_start, scene.frame_end = 0, 48
    rng = np.random.default_rng(5)
    rough = np.cumsum(np.radians(rng.uniform(0.5, 3.0, (49, 3))) * rng.choice([-1, 1], (49, 3)), axis=0)
    smooth = np.radians(np.stack([10.0 * np.sin(0.3 * np.arange(49) / 24.0), np.zeros(49),
                                  80.0 * np.sin(0.5 * np.arange(49) / 24.0)], axis=1))
    keyed: list[tuple[str, np.ndarray, Literal['LINEAR', 'BEZIER']]] = [
        ("Rough", rough, 'LINEAR'), ("Baked", rough, 'BEZIER'), ("Smooth", smooth, 'LINEAR')]
    for name, eulers, interpolation in keyed:
        obj = bpy.data.objects.new(name, None)
        scene.collection.objects.link(obj)
        for frame, euler in enumerate(eulers):
            obj.rotation_euler = euler
            obj.keyframe_insert("rotation_euler", frame=frame)
        assert obj.animation_data is not None and obj.animation_data.action is not None
        curves = action_curves(obj.animation_data.action, obj)
        assert curves is not None
        for curve in curves:
            for key in curve.keyframe_points:
                key.interpolation = interpolation
    frames = [f / 8.0 for f in range(48 * 8 + 1)]
    original = world_rotations(frames)
    path = Path(folder) / "dense.glb"
    result = operator("export_scene.gltf_sqlerp")(filepath=str(path))
    outcome = exported()
    fidelity.disable_addon()
    print(json.dumps({"result": sorted(result), "channels": [vars(c) for c in outcome.channels],
                      "frames": frames, "original": original}))


def deep(folder):
    """A chain of DEEP_BONES bones keyed by an animator (tools/keyed_rig.py: every 4 to 12 frames,
    turns up to 40 degrees), where the errors of every channel add up at the leaf: exported with
    the default settings to FOLDER/deep.glb, with a CUBICSPLINE fallback (the extension on every
    channel) to FOLDER/deep-ext.glb, per channel (world_space off) to FOLDER/flat.glb and
    with the bundled exporter alone to FOLDER/bundled.glb; prints the outcomes and Blender's world
    rotation matrices of every bone at 8 samples per frame."""
    import bpy
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    armature, _ = rig.build(bones=DEEP_BONES, objects=0, keys=8, max_turn_deg=40.0, first_frame=0)
    scene = current_scene()
    frames = [scene.frame_start + i / 8.0 for i in range(8 * (scene.frame_end - scene.frame_start) + 1)]
    worlds = {bone.name: [] for bone in armature.pose.bones}
    for frame in frames:
        scene.frame_set(int(frame // 1), subframe=frame % 1.0)
        for bone in armature.pose.bones:
            worlds[bone.name].append([list(row) for row in (armature.matrix_world @ bone.matrix).to_3x3()])
    result = operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / "deep.glb"))
    outcome = exported()
    # The extension on every channel (a CUBICSPLINE fallback: AUTO may write samplers alone).
    operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / "deep-ext.glb"), fallback='CUBICSPLINE')
    extension = exported()
    operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / "flat.glb"), world_space=False)
    flat = export_session.summary(export_session.last_outcome)
    fidelity.disable_addon()
    bpy.ops.export_scene.gltf(filepath=str(Path(folder) / "bundled.glb"))
    print(json.dumps({"result": sorted(result), "channels": [vars(c) for c in outcome.channels],
                      "world_error_deg": outcome.world_error_deg,
                      "fallback_world_error_deg": outcome.fallback_world_error_deg,
                      "summary": export_session.summary(outcome), "flat_summary": flat,
                      "extension_world_error_deg": extension.world_error_deg,
                      "frames": frames, "worlds": worlds}))


DEEP_BONES = 24


def _run(args):
    jobs = {"REEXPORT": reexport, "FAIL": failing, "DIALOG": dialog, "DRIFT": drift, "POINTER": pointer,
            "PROCESSES": processes, "CONSTRAINED": constrained, "DENSE": dense, "LOOKS": looks,
            "DEEP": deep}
    if args[1] in jobs:
        jobs[args[1]](args[0])
    else:
        main(args[0], args[1], args[2] if len(args) > 2 else "glb", *[float(a) for a in args[3:5]])


if __name__ == "__main__":
    finish(lambda: _run(sys.argv[1:]))
