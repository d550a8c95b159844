"""Child process of tests/operators/test_export_roundtrip.py (not a test module itself).

The bpy module of Blender 4.2 crashes at exit once its bundled glTF exporter has run, so exports
run here and the process ends with os._exit. Usage:
``python export_job.py FOLDER FALLBACK [FORMAT] [FPS] [FPS_BASE]`` (or ``FOLDER REEXPORT``, ``FOLDER FAIL``,
``FOLDER DIALOG``, ``FOLDER DRIFT``: see reexport(), failing(), dialog() and drift()): builds the keyed rig
(tools/keyed_rig.py), records Blender's own world rotations of every bone and empty at every frame
and half frame, exports with ``export_scene.gltf_sqlerp`` (fallback FALLBACK) to FOLDER/rig.FORMAT,
re-imports the file with this add-on and with the bundled importer alone, records the same
rotations, and prints one JSON line: the motions, the export's outcome and the operator's result.
"""

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, TypeVar, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator, settings
from helpers.child_job import ROOT, finish, tool

T = TypeVar("T")


def world_rotations(frames):
    """{name: [(w, x, y, z) per frame]} of every pose bone (armature space composed with the
    object's world matrix) and every other object, evaluated by Blender at each frame."""
    scene = current_scene()
    result = {}
    for frame in frames:
        whole = int(frame // 1)
        scene.frame_set(whole, subframe=frame - whole)
        for obj in scene.objects:
            if obj.type == 'ARMATURE':
                for bone in _pose_bones(obj):
                    q = (obj.matrix_world @ bone.matrix).to_quaternion()
                    result.setdefault(bone.name, []).append([*q])
            elif obj.type == 'EMPTY':
                result.setdefault(obj.name, []).append([*obj.matrix_world.to_quaternion()])
    return result


def exported():
    """The outcome of the last export, which every export of these jobs leaves."""
    from gltf_sqlerp.operators.exporting import session
    outcome = session.last_outcome
    assert outcome is not None
    return outcome


def _pose_bones(armature):
    assert armature.pose is not None  # an armature object always has its pose
    return armature.pose.bones


def slides():
    """{name: frame at glTF time 0} per bone and empty: the bundled exporter slides an action that
    starts at a negative frame to time 0 (its default), and leaves the others at frame / rate."""
    result = {}
    for obj in current_scene().objects:
        action = obj.animation_data.action if obj.animation_data else None
        slide = min(0.0, float(action.frame_range[0])) if action else 0.0
        names = [b.name for b in _pose_bones(obj)] if obj.type == 'ARMATURE' else [obj.name]
        result.update({name: slide for name in names})
    return result


def imported_rotations(frames, slide_of):
    """world_rotations of the imported scene at ``frames`` shifted by each name's slide."""
    result = {}
    for slide in set(slide_of.values()):
        played = world_rotations([f - slide for f in frames])
        result.update({name: value for name, value in played.items() if slide_of.get(name) == slide})
    return result


def play_every_clip():
    """Make every imported object play the clip that animates it (the importer assigns the
    first animation only)."""
    from gltf_sqlerp.operators import clips
    for obj in current_scene().objects:
        found = clips.imported_clips(obj)
        # Any: action slots (Blender 4.4+) are newer than the type stubs (Blender 4.2).
        animation: Any = obj.animation_data
        if found:
            clips.activate(obj, found[0])
        elif animation and animation.nla_tracks:
            # The bundled importer alone: each object's clip waits in its NLA track.
            strip = animation.nla_tracks[0].strips[0]
            animation.action = strip.action
            if hasattr(strip, "action_slot"):
                animation.action_slot = strip.action_slot


def main(folder, fallback, file_format="glb", fps: float = 24, fps_base=1.0):
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


def failing(folder):
    """An export whose fit fails, onto an existing file: prints the operator's outcome, whether
    the file's bytes changed and what the folder holds afterwards."""
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    from gltf_sqlerp.core.fitting import rotation_export
    fidelity.enable_addon()
    fidelity.reset_scene()
    rig.build()
    path = Path(folder) / "existing.glb"
    path.write_bytes(b"the user's file")

    def broken(*args, **kwargs):
        raise ValueError("injected fit failure")
    # fails in a fitting thread, whichever form the channel takes
    rotation_export.fit_cubicslerp = rotation_export.fit_spline_alone = broken
    rotation_export._spline_alone = lambda *args, **kwargs: broken()
    try:
        operator("export_scene.gltf_sqlerp")(filepath=str(path))
        outcome = "FINISHED"
    except RuntimeError as error:  # the operator reported an ERROR
        outcome = str(error)
    fidelity.disable_addon()
    print(json.dumps({"outcome": outcome, "unchanged": path.read_bytes() == b"the user's file",
                      "folder": sorted(p.name for p in Path(folder).iterdir())}))


def dialog(folder):
    """File > Export > glTF 2.0 (the bundled operator) with the dialog's EXT_animation_sqlerp panel
    set to CUBICSPLINE fallback, then switched off: prints the outcome of each."""
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    import bpy
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene()
    rig.build()
    export = settings(current_scene(), "gltf_sqlerp_export")
    export.fallback = 'CUBICSPLINE'
    bpy.ops.export_scene.gltf(filepath=str(Path(folder) / "on.glb"), export_format='GLB')
    on = [vars(c) for c in exported().channels]
    export.enabled = False
    bpy.ops.export_scene.gltf(filepath=str(Path(folder) / "off.glb"), export_format='GLB')
    off = export_session.last_outcome
    fidelity.disable_addon()
    print(json.dumps({"on": on, "off": off}))


def drift(folder):
    """The exporter's internals missing (as after a change in the bundled add-on): our module
    that builds them cannot be imported. Prints what our operator and the bundled one did."""
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    # None: any import of it fails (the import system's rule; typeshed allows modules only).
    cast(dict[str, ModuleType | None], sys.modules)["gltf_sqlerp.bundled_gltf.export_accessors"] = None
    from gltf_sqlerp.operators.exporting import session as export_session
    fidelity.enable_addon()
    fidelity.reset_scene()
    rig.build()
    try:
        operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / "ours.glb"))
        ours = "FINISHED"
    except RuntimeError as error:
        ours = str(error)
    bundled = sorted(operator("export_scene.gltf")(filepath=str(Path(folder) / "bundled.glb"),
                                                   export_format='GLB'))
    outcome = export_session.last_outcome
    fidelity.disable_addon()
    print(json.dumps({"ours": ours, "bundled": bundled, "hook_error": outcome.error if outcome else None,
                      "folder": sorted(p.name for p in Path(folder).iterdir())}))


def reexport(folder):
    """Import samples/sqlerp_arm.gltf with the add-on, export it unchanged to FOLDER/again.gltf."""
    fidelity = tool("tools/fidelity.py")
    fidelity.enable_addon()
    fidelity.import_gltf(str(ROOT / "samples" / "sqlerp_arm.gltf"))
    result = operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / "again.gltf"))
    channels = [vars(c) for c in exported().channels]
    fidelity.disable_addon()
    print(json.dumps({"result": sorted(result), "channels": channels}))


def processes(folder):
    """The keyed rig, with one more empty parented to a bone (a map the head start does not
    predict), exported three times: fitted in this process's threads (threads.glb), in worker
    processes (processes.glb), and with workers that cannot start (fallback.glb: the interpreter
    path is missing). Prints how many worker pools started in each export, how many channels its
    head start predicted at its start, how many channels took the head start's keys, how many
    head starts were left at its end, and whether it ended FINISHED."""
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    from gltf_sqlerp.operators.exporting import fitting as export_fitting
    fidelity.enable_addon()
    fidelity.reset_scene()
    armature, empties = rig.build()
    child = empties[0].copy()  # shares Empty0's action: the same motion under another parent
    current_scene().collection.objects.link(child)
    child.parent, child.parent_type, child.parent_bone = armature, 'BONE', "bone1"
    started = []
    pools = export_fitting.FitProcesses

    def counted(*args, **kwargs):
        pool = pools(*args, **kwargs)
        started.append(pool)
        return pool
    export_fitting.FitProcesses = counted
    predicted, prepare = [], export_fitting.prepare

    def head_start(options):  # at the export's start: how many channels it began to fit
        prepare(options)
        predicted.append(sum(len(head.tasks) for head in export_fitting._head))
    export_fitting.prepare = head_start
    runs, python = {}, sys.executable
    for name, least, executable in (("threads", float("inf"), python), ("processes", 0, python),
                                    ("fallback", 0, str(Path(folder) / "no-python"))):
        # Two workers whatever this machine has (one CPU would never start a pool).
        export_fitting.WORKERS = 2
        export_fitting.PROCESS_MIN_CHECKS, sys.executable, before = least, executable, len(started)
        try:
            result = operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / f"{name}.glb"))
        finally:
            sys.executable = python
        channels = exported().channels
        runs[name] = {"result": sorted(result), "pools": len(started) - before, "predicted": predicted[-1],
                      "head_start": sorted(c.target for c in channels if c.head_start),
                      "refitted": sorted(c.target for c in channels if c.refitted),
                      "fitted": sorted(c.target for c in channels if not c.skipped),
                      "left": len(export_fitting._head)}
    fidelity.disable_addon()
    print(json.dumps(runs))


def constrained(folder):
    """The keyed rig with constraints Blender plays on top of the keys: bone1 limited to a narrow
    turn about X at every frame, bone2 and Empty1 held at their rest for one frame only (a Limit
    Rotation whose influence is 1 at frame 31 and 0 around it, constant). Exports it three times: to
    FOLDER/constrained64.glb as usual, to FOLDER/constrained2.glb with only 2 of Blender's
    samples picked to measure the map (the fit's check of all of them must find the rest), and so
    again to FOLDER/constrainedhead.glb with the head start's worker processes; prints each
    export's result and channels, by run."""
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    from gltf_sqlerp.operators.exporting import fitting as export_fitting, rotations as export_rotations
    from gltf_sqlerp.operators.fcurves import curves_of
    fidelity.enable_addon()
    fidelity.reset_scene()
    armature, empties = rig.build()
    narrow = armature.pose.bones["bone1"].constraints.new('LIMIT_ROTATION')
    narrow.use_limit_x, narrow.min_x, narrow.max_x = True, -0.05, 0.05
    # bone2 under animated bone0 is fitted on the way down the tree; Empty1, a root, at the start.
    for owner in (armature.pose.bones["bone2"], empties[1]):
        held = owner.constraints.new('LIMIT_ROTATION')
        held.use_limit_x = held.use_limit_y = held.use_limit_z = True
        for frame, influence in ((30, 0.0), (31, 1.0), (32, 0.0)):
            held.influence = influence
            held.keyframe_insert("influence", frame=frame)
    for data in (armature.animation_data, empties[1].animation_data):
        for fcurve in curves_of(data.action, getattr(data, "action_slot", None)):
            if fcurve.data_path.endswith("influence"):
                for key in fcurve.keyframe_points:
                    key.interpolation = 'CONSTANT'
    runs = {}
    # 2: the fit's check of every sample decides; "head": in worker processes, which fit at the
    # export's start, before any sample exists (the head start's check of them decides).
    for run, picked in ((64, 64), (2, 2), ("head", 2)):
        export_rotations.PICKED_SAMPLES = picked
        if run == "head":
            export_fitting.WORKERS, export_fitting.PROCESS_MIN_CHECKS = 2, 0
        result = operator("export_scene.gltf_sqlerp")(filepath=str(Path(folder) / f"constrained{run}.glb"))
        runs[run] = {"result": sorted(result),
                     "channels": [vars(c) for c in exported().channels]}
    fidelity.disable_addon()
    print(json.dumps(runs))


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
