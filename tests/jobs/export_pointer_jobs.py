"""Modes of tests/jobs/export_job.py that export KHR_animation_pointer channels (imported by it, not
run by itself): a material's colour, a light's energy and a camera's lens at 29.97 fps (POINTER),
and keyed materials, lights and cameras with holds and constant keys (LOOKS)."""

import json
from pathlib import Path
from typing import TypeVar

from helpers.bpy_access import current_scene, operator, settings
from helpers.child_job import tool
from helpers.export_recording import exported

T = TypeVar("T")


def pointer(folder):
    """File > Export > glTF 2.0 at 29.97 fps (fps 30, base 1.001) with KHR_animation_pointer
    channels (a material's colour, a light's energy, a camera's lens, keyed on whole frames beside
    an object's rotation), in the two animation modes that write them: FOLDER/SCENE.gltf and
    FOLDER/NLA_TRACKS.gltf. Prints the outcome of each."""
    fidelity = tool("tools/fidelity.py")
    import bpy
    fidelity.enable_addon()
    fidelity.reset_scene(30, 1.001)
    cube, _, tree = _painted_cube(bpy)
    colour = tree.nodes["Principled BSDF"].inputs["Base Color"]
    assert isinstance(colour, bpy.types.NodeSocketColor)
    bpy.ops.object.light_add(type='POINT')
    light = _added_data(bpy.types.PointLight)
    bpy.ops.object.camera_add()
    camera = _added_data(bpy.types.Camera)
    for frame, turn in ((1, 0.0), (9, 0.7), (20, 0.2)):
        cube.rotation_euler = (0.0, 0.0, turn)
        cube.keyframe_insert("rotation_euler", frame=frame)
        colour.default_value = (turn, 1.0 - turn, 0.5, 1.0)
        colour.keyframe_insert("default_value", frame=frame)
        light.energy = 100.0 + 500.0 * turn
        light.keyframe_insert("energy", frame=frame)
    for frame, lens in ((1, 30.0), (12, 80.0)):
        camera.lens = lens
        camera.keyframe_insert("lens", frame=frame)
    scene = current_scene()
    scene.frame_start, scene.frame_end = 1, 20
    outcomes = {}
    for mode in ("SCENE", "NLA_TRACKS"):
        if mode == "NLA_TRACKS":  # every action on a track of its own
            for owner in (cube, tree, light, camera):
                _push_down(owner.animation_data)
        bpy.ops.export_scene.gltf(filepath=str(Path(folder) / f"{mode}.gltf"), export_format='GLTF_SEPARATE',
                                  export_animation_mode=mode, export_pointer_animation=True,
                                  export_lights=True, export_cameras=True)
        outcomes[mode] = [vars(c) for c in exported().channels]
    fidelity.disable_addon()
    print(json.dumps(outcomes))


def _painted_cube(bpy):
    """A cube with a node material "Paint" of its own: (object, material, its node tree)."""
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.object
    assert cube is not None and isinstance(cube.data, bpy.types.Mesh)
    material = bpy.data.materials.new("Paint")
    material.use_nodes = True
    cube.data.materials.append(material)
    assert material.node_tree is not None
    return cube, material, material.node_tree


def looks(folder):
    """A material whose Base Color, Emission Color and Roughness are keyed, a spot light whose
    colour, power and cone are keyed, and a camera whose lens and clip distances are keyed (Bezier,
    with holds; the far clip CONSTANT), 72 frames at 24 fps.
    Exported with KHR_animation_pointer on (SCENE mode) by the bundled exporter alone
    (FOLDER/bundled.glb) and with the add-on (FOLDER/ours.glb; FOLDER/ours_loose.glb with the
    property tolerance 1e-3; FOLDER/bundled_separate.gltf and FOLDER/ours_separate.gltf with
    their .bin files), and where the exporter can sample STEP (4.4 and later) so again
    (FOLDER/bundled_step.glb, FOLDER/ours_step.glb); prints the add-on's outcomes (their pointer
    channels and summaries, by run; ours's on top) and whether the STEP files were written."""
    fidelity = tool("tools/fidelity.py")
    import bpy
    from gltf_sqlerp.operators.exporting import session as export_session
    from gltf_sqlerp.operators.fcurves import curves_of
    fidelity.enable_addon()
    fidelity.reset_scene(24, 1.0)
    scene = current_scene()
    scene.frame_start, scene.frame_end = 1, 72
    _, _, tree = _painted_cube(bpy)
    shader = tree.nodes["Principled BSDF"].inputs
    base, emission, roughness = shader["Base Color"], shader["Emission Color"], shader["Roughness"]
    strength = shader["Emission Strength"]
    assert isinstance(strength, bpy.types.NodeSocketFloat)
    strength.default_value = 1.0  # 0 by default from 4.0: no emission written
    assert isinstance(base, bpy.types.NodeSocketColor) and isinstance(emission, bpy.types.NodeSocketColor)
    assert isinstance(roughness, bpy.types.NodeSocketFloatFactor)
    for frame, colour in ((1, (0.8, 0.1, 0.1)), (16, (0.1, 0.2, 0.9)), (40, (0.1, 0.2, 0.9)),
                          (56, (0.2, 0.8, 0.2)), (72, (0.2, 0.8, 0.2))):
        base.default_value = (*colour, 1.0)
        base.keyframe_insert("default_value", frame=frame)
    for frame, glow in ((1, 0.0), (24, 0.9), (48, 0.9), (60, 0.0)):
        emission.default_value = (glow, 0.5 * glow, 0.1 * glow, 1.0)
        emission.keyframe_insert("default_value", frame=frame)
    for frame, value in ((1, 0.2), (30, 0.9), (72, 0.9)):
        roughness.default_value = value
        roughness.keyframe_insert("default_value", frame=frame)
    bpy.ops.object.light_add(type='SPOT')
    light = _added_data(bpy.types.SpotLight)
    for frame, colour, energy, size in ((1, (1.0, 0.9, 0.8), 100.0, 0.8), (12, (1.0, 0.9, 0.8), 1000.0, 0.8),
                                        (20, (0.6, 0.7, 1.0), 1000.0, 0.8), (40, (0.6, 0.7, 1.0), 1000.0, 1.4),
                                        (50, (0.6, 0.7, 1.0), 200.0, 1.4), (72, (1.0, 0.9, 0.8), 200.0, 1.4)):
        light.color, light.energy, light.spot_size = colour, energy, size
        for path in ("color", "energy", "spot_size"):
            light.keyframe_insert(path, frame=frame)
    bpy.ops.object.camera_add()
    camera = _added_data(bpy.types.Camera)
    for frame, lens, near, far in ((1, 35.0, 0.1, 100.0), (36, 85.0, 0.5, 100.0), (48, 85.0, 0.5, 300.0),
                                   (72, 85.0, 0.5, 300.0)):
        camera.lens, camera.clip_start, camera.clip_end = lens, near, far
        for path in ("lens", "clip_start", "clip_end"):
            camera.keyframe_insert(path, frame=frame)
    data = camera.animation_data
    assert data is not None and data.action is not None
    for curve in curves_of(data.action, getattr(data, "action_slot", None)):
        if curve.data_path == "clip_end":
            for key in curve.keyframe_points:
                key.interpolation = 'CONSTANT'
    export = settings(scene, "gltf_sqlerp_export")
    # STEP samples: Blender 4.4 and later ask export_sampling_interpolation_fallback (4.2: LINEAR only).
    gltf_export = operator("export_scene.gltf")
    step = "export_sampling_interpolation_fallback" in gltf_export.get_rna_type().properties
    runs = [("bundled", False, "LINEAR", 1e-4), ("ours", True, "LINEAR", 1e-4), ("ours_loose", True, "LINEAR", 1e-3),
            ("bundled_separate", False, "LINEAR", 1e-4), ("ours_separate", True, "LINEAR", 1e-4)]
    runs += [("bundled_step", False, "STEP", 1e-4), ("ours_step", True, "STEP", 1e-4)] if step else []
    outcomes = {}
    for name, enabled, interpolation, fraction in runs:
        export.enabled, export.property_tolerance = enabled, fraction
        options = {"export_sampling_interpolation_fallback": interpolation} if step else {}
        separate = name.endswith("_separate")
        gltf_export(filepath=str(Path(folder) / f"{name}.{'gltf' if separate else 'glb'}"),
                    export_format='GLTF_SEPARATE' if separate else 'GLB',
                    export_animation_mode='SCENE', export_pointer_animation=True,
                    export_lights=True, export_cameras=True, **options)
        if enabled:
            outcome = exported()
            outcomes[name] = {"properties": [vars(p) for p in outcome.properties], "error": outcome.error,
                              "summary": export_session.summary(outcome)}
    fidelity.disable_addon()
    print(json.dumps({**outcomes["ours"], "runs": outcomes, "step": step}))


def _added_data(kind: type[T]) -> T:
    """The data of the object an add operator just made active, a ``kind``."""
    import bpy
    obj = bpy.context.object
    assert obj is not None and isinstance(obj.data, kind)
    return obj.data


def _push_down(animation_data):
    action = animation_data.action
    strip = animation_data.nla_tracks.new().strips.new(action.name, 1, action)
    if hasattr(strip, "action_slot"):  # Blender 4.4+: the slot the ID played
        strip.action_slot = animation_data.action_slot
    animation_data.action = None
