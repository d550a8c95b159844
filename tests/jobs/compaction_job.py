"""Child process of tests/operators/test_export_compaction.py (not a test module itself).

``python compaction_job.py FOLDER``: builds a scene whose location, scale and shape-key value are
keyed on every frame with LINEAR keys (a mesh object with a shape key, and an armature whose two
bones move and scale), records what Blender plays at every frame and half frame (world positions
of the object and of the bones' heads, the object's scale, the shape key's value) and the model's
size measured from its evaluated vertices and bones, exports it with ``export_scene.gltf_sqlerp``
to FOLDER/ours.glb and, with the add-on disabled, with the bundled exporter to FOLDER/bundled.glb,
and prints one JSON line. The process ends with os._exit (child_job.finish): the bpy module of
Blender 4.2 crashes at exit once its glTF exporter has run.

``python compaction_job.py FOLDER 2997 threads|processes``: ``at_2997`` instead.
"""

import faulthandler
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator
from helpers.child_job import finish, tool

FIRST, LAST = 1, 72
CORNERS = np.array([1.0, 20.0, 45.0, 72.0])


def corners(values, frames):
    """A polyline through ``values`` at CORNERS, at ``frames``."""
    return np.interp(frames, CORNERS, values)


def write_linear(curves, data_path, index, frames, values):
    """One F-curve with a LINEAR key on every frame, in bulk."""
    fcurve = curves.new(data_path, index=index)
    points = fcurve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", np.column_stack([frames, values]).astype(np.float32).ravel())
    import bpy
    interpolation = bpy.types.Keyframe.bl_rna.properties["interpolation"]
    assert isinstance(interpolation, bpy.types.EnumProperty)
    linear = interpolation.enum_items["LINEAR"].value
    points.foreach_set("interpolation", np.full(len(frames), linear, dtype=np.int32))
    fcurve.update()


def new_curves(owner, name, id_type):
    """The F-curve collection of a new action assigned to ``owner`` (a slot's on 4.4+)."""
    import bpy
    # Any: layered actions and slots (Blender 4.4+) are newer than the type stubs (Blender 4.2).
    action: Any = bpy.data.actions.new(name)
    owner.animation_data_create().action = action
    if not hasattr(action, "layers"):
        return action.fcurves
    slot = owner.animation_data.action_slot or action.slots.new(id_type=id_type, name=owner.name)
    owner.animation_data.action_slot = slot
    strip = action.layers.new("Layer").strips.new(type='KEYFRAME')
    return strip.channelbag(slot, ensure=True).fcurves


def build():
    """The keyed scene: object "Cube" (shape key "Bulge"), armature "Rig" (bones root, child)."""
    import bpy
    import bmesh
    scene = current_scene()
    scene.frame_start, scene.frame_end = FIRST, LAST
    frames = np.arange(FIRST, LAST + 1, dtype=np.float64)
    ripple = 0.05 * np.sin(frames * 0.3)  # no corner: a smooth part the keys must follow

    mesh = bpy.data.meshes.new("Cube")
    shape = bmesh.new()
    bmesh.ops.create_cube(shape, size=2.0)
    shape.to_mesh(mesh)
    shape.free()
    cube = bpy.data.objects.new("Cube", mesh)
    scene.collection.objects.link(cube)
    cube.shape_key_add(name="Basis")
    bulge = cube.shape_key_add(name="Bulge")
    bulge.data.foreach_set("co", (np.array([v.co for v in mesh.vertices]) * 1.5).ravel())
    curves = new_curves(cube, "CubeAction", 'OBJECT')
    for index, values in enumerate([corners([0.0, 2.0, 2.5, -1.0], frames) + ripple,
                                    corners([0.0, 0.0, 1.0, 1.0], frames),
                                    np.full(len(frames), 0.5)]):
        write_linear(curves, "location", index, frames, values)
    for index, values in enumerate([corners([1.0, 1.5, 0.8, 1.0], frames), np.ones(len(frames)),
                                    1.0 + ripple]):
        write_linear(curves, "scale", index, frames, values)
    key_curves = new_curves(mesh.shape_keys, "BulgeAction", 'KEY')
    write_linear(key_curves, 'key_blocks["Bulge"].value', 0, frames,
                 corners([0.0, 1.0, 0.2, 0.6], frames) + 0.5 * ripple)

    data = bpy.data.armatures.new("Rig")
    rig = bpy.data.objects.new("Rig", data)
    scene.collection.objects.link(rig)
    rig.location = (4.0, 0.0, 0.0)
    assert bpy.context.view_layer is not None
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode='EDIT')
    root = data.edit_bones.new("root")
    root.head, root.tail = (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)
    child = data.edit_bones.new("child")
    child.head, child.tail, child.parent = (0.0, 0.0, 1.0), (0.0, 0.0, 2.0), root
    bpy.ops.object.mode_set(mode='OBJECT')
    curves = new_curves(rig, "RigAction", 'OBJECT')
    for index, values in enumerate([corners([0.0, 0.5, 0.5, 0.0], frames), np.zeros(len(frames)),
                                    corners([0.0, 0.0, 0.3, 0.3], frames) + ripple]):
        write_linear(curves, 'pose.bones["root"].location', index, frames, values)
    for index in range(3):
        write_linear(curves, 'pose.bones["child"].location', index, frames,
                     corners([0.0, 0.2, -0.2, 0.0], frames) * (index + 1))
        write_linear(curves, 'pose.bones["child"].scale', index, frames,
                     1.0 + corners([0.0, 0.5, 0.5, 0.1], frames) * (1.0 if index != 1 else 0.0))
    return cube, rig


def model_size(cube, rig):
    """Diagonal of the world box of the cube's evaluated vertices (shape key applied) and the
    bones' heads and tails: measured here, apart from the add-on's own measure."""
    import bpy
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = cube.evaluated_get(depsgraph)
    points = [np.array([evaluated.matrix_world @ v.co for v in evaluated.to_mesh().vertices])]
    evaluated.to_mesh_clear()
    for bone in rig.data.bones:
        points.append(np.array([rig.matrix_world @ bone.head_local, rig.matrix_world @ bone.tail_local]))
    points = np.concatenate(points)
    return float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))


def played(cube, rig, frames):
    """What Blender plays at ``frames``: world positions (Blender axes) of the cube and the bones'
    heads, the cube's scale, the shape key's value."""
    scene = current_scene()
    result = {"Cube": [], "root": [], "child": [], "Cube scale": [], "Bulge": []}
    for frame in frames:
        whole = int(frame // 1)
        scene.frame_set(whole, subframe=frame - whole)
        result["Cube"].append(list(cube.matrix_world.translation))
        result["Cube scale"].append(list(cube.scale))
        for name in ("root", "child"):
            result[name].append(list(rig.matrix_world @ rig.pose.bones[name].head))
        result["Bulge"].append(cube.data.shape_keys.key_blocks["Bulge"].value)
    return result


def main(folder):
    fidelity = tool("tools/fidelity.py")
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    cube, rig = build()
    frames = [FIRST + 0.5 * i for i in range(2 * (LAST - FIRST) + 1)]
    blender = played(cube, rig, frames)
    current_scene().frame_set(0)  # the bundled exporter writes the scene at frame 0
    size = model_size(cube, rig)
    ours = Path(folder) / "ours.glb"
    result = operator("export_scene.gltf_sqlerp")(filepath=str(ours))
    outcome = export_session.last_outcome
    assert outcome is not None
    summary = export_session.summary(outcome)
    fidelity.disable_addon()
    current_scene().frame_set(FIRST)
    bundled = Path(folder) / "bundled.glb"
    bundled_result = operator("export_scene.gltf")(filepath=str(bundled), export_format='GLB')
    print(json.dumps({"result": sorted(result), "bundled_result": sorted(bundled_result),
                      "frames": frames, "blender": blender, "size": size, "summary": summary,
                      "outcome_size": outcome.model_size, "error": outcome.error,
                      "properties": [vars(p) for p in outcome.properties]}))


def at_2997(folder, fitting_in):
    """At the 29.97 preset (fps 30, base 1.001): an empty moving (location and rotation keyed
    every 6 frames, LINEAR: a polyline the reduction keeps the corners of) with a turning child,
    exported with ``export_scene.gltf_sqlerp`` to FOLDER/moving.gltf, its channels fitted in
    ``fitting_in`` "threads" or worker "processes" (there the child is fitted on the way down
    the tree, and the translation keys are reduced while the pass waits). Prints the operator's
    result, the export's summary and its PropertyOutcomes."""
    # A second or two on any machine: should it ever stall, every thread's stack goes to stderr
    # (the test prints it) and the job ends, rather than the test waiting for its timeout.
    faulthandler.dump_traceback_later(90.0, exit=True)
    fidelity = tool("tools/fidelity.py")
    from gltf_sqlerp.operators.exporting import fitting, session as export_session
    import bpy
    fitting.PROCESS_MIN_CHECKS = 0 if fitting_in == "processes" else float("inf")
    fidelity.enable_addon()
    scene = fidelity.reset_scene(30, 1.001)
    scene.frame_start, scene.frame_end = 1, 90
    parent, child = bpy.data.objects.new("Parent", None), bpy.data.objects.new("Child", None)
    for obj in (parent, child):
        scene.collection.objects.link(obj)
    child.parent = parent
    frames = np.arange(1.0, 91.0, 6.0)
    parent_curves, child_curves = new_curves(parent, "Moving", 'OBJECT'), new_curves(child, "Turning", 'OBJECT')
    for index, values in enumerate((np.sin(frames / 9.0), 0.02 * frames, np.cos(frames / 13.0))):
        write_linear(parent_curves, "location", index, frames, values)
    write_linear(parent_curves, "rotation_euler", 2, frames, frames / 20.0)
    write_linear(child_curves, "rotation_euler", 0, frames, frames / 15.0)
    result = operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / "moving.gltf"))
    outcome = export_session.last_outcome
    print(json.dumps({"result": sorted(result), "summary": export_session.summary(outcome),
                      "properties": [vars(p) for p in outcome.properties] if outcome else []}))


if __name__ == "__main__":
    if sys.argv[2:3] == ["2997"]:
        finish(lambda: at_2997(sys.argv[1], sys.argv[3]))
    else:
        finish(lambda: main(*sys.argv[1:]))
