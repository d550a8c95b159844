"""Modes of tests/jobs/export_job.py about how the export operator runs rather than what it writes
(imported by it, not run by itself): a fit that fails (FAIL), the bundled dialog's panel (DIALOG),
the bundled exporter's internals missing (DRIFT), a re-export of the sample (REEXPORT), fits in
worker processes (PROCESSES) and constraints over the keys (CONSTRAINED)."""

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import cast

from helpers.bpy_access import current_scene, operator, settings
from helpers.child_job import ROOT, tool
from helpers.export_recording import exported


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
