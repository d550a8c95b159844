"""Child process of tests/operators/test_export_robot_like.py (not a test module itself): the bpy module of
Blender 4.2 crashes at exit once its glTF exporter has run, so the export runs here and the
process ends with os._exit (tests/child_job.finish).

Usage: ``python robot_like_job.py FOLDER``. Writes the robot-like rig (tests/helpers/robot_like.py) to
FOLDER, imports it with Blender's bundled importer alone (bench/real_clips.import_clip, which
checks that our import hook did not run), exports it with the bundled exporter (the calibration's
reference) and with ``export_scene.gltf_sqlerp`` at its default settings, then measures the
world rotation error of every bone and object of the exported file against Blender's own
evaluation (frame_set at 8 samples per frame) with the benchmark's machinery
(bench/real_clips.py, as bench/bench_real_export.py does). Prints one JSON line.
"""

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers import robot_like
from helpers.child_job import finish, tool


def measure(rc: ModuleType, played: Any, motions: list, calibration: Any, rate: float) -> dict[str, float]:
    """{node name: largest angle in degrees} of file ``played`` against Blender, every sample."""
    index, worst = rc.file_index(played), {}
    for motion in motions:
        times = (motion.frames - motion.slide) / rate
        world = rc.file_world(played, rc.animation_index(played, motion.animation), times)
        angles, names = rc.motion_errors(motion, calibration, world, index)
        for k, name in enumerate(names):
            worst[name] = max(worst.get(name, 0.0), float(angles[:, k].max(initial=0.0)))
    return worst


def main(name: str) -> None:
    rc = tool("bench/real_clips.py")
    from gltf_sqlerp.operators.exporting import session
    folder = Path(name)
    rc.fidelity.enable_addon()
    path = robot_like.write(folder)
    rc.import_clip(rc.ClipSource("robot_like", path, "gltf"))
    bpy = rc.bpy
    scene = bpy.context.scene
    paths = {"bundled": folder / "bundled.glb", "ours": folder / "ours.glb"}
    scene.gltf_sqlerp_export.enabled = False
    rc.devpath.quiet(lambda: bpy.ops.export_scene.gltf(filepath=str(paths["bundled"]), export_format='GLB'))
    scene.gltf_sqlerp_export.enabled = True
    result = rc.devpath.quiet(lambda: bpy.ops.export_scene.gltf_sqlerp(filepath=str(paths["ours"])))
    outcome = session.last_outcome
    assert outcome is not None, "the export hook ran"
    bundled = rc.core.load(str(paths["bundled"]))
    targets, missing = rc.map_targets(bundled)
    motions, calibration, index = [], rc.Calibration(), rc.file_index(bundled)
    keyed_rate = scene.render.fps * scene.render.fps_base  # how the bundled exporter times its keys
    for animation in range(len(bundled.json["animations"])):
        motion = rc.measure_motion(bundled, targets, animation)
        times = (motion.frames - motion.slide) / keyed_rate
        calibration.add(motion, rc.file_world(bundled, animation, times), index)
        motions.append(motion)
    rate = scene.render.fps / scene.render.fps_base
    whole = rc.world_error(bundled, motions, calibration, keyed_rate, whole_frames=True)
    ours = rc.core.load(str(paths["ours"]))
    played = rc.world_error(ours, motions, calibration, rate)
    rc.fidelity.disable_addon()
    print(json.dumps({
        "result": sorted(result), "missing": missing, "problems": played.problems,
        "per_frame": [m.per_frame for m in motions], "frames": [float(motions[0].frames[-1])],
        "compared": sorted(t.name for m in motions for t in m.targets if t.name in calibration.constants),
        "sanity_deg": whole.max_deg, "max_deg": played.max_deg, "worst": played.worst,
        "per_node": measure(rc, ours, motions, calibration, rate),
        "world_error_deg": outcome.world_error_deg, "fallback_world_error_deg": outcome.fallback_world_error_deg,
        "channels": [{"target": c.target, "form": c.form, "keys": c.keys, "refitted": c.refitted}
                     for c in outcome.channels],
        "armature": [list(o.rotation_quaternion if o.rotation_mode == 'QUATERNION' else o.matrix_world.to_quaternion())
                     + list(o.scale) for o in scene.objects if o.type == 'ARMATURE'],
        "rigid": sorted(o.name for o in scene.objects if o.type == 'MESH' and o.parent_type == 'BONE'),
    }))


if __name__ == "__main__":
    finish(lambda: main(*sys.argv[1:]))
