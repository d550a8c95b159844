"""The deviation report in Blender, and "Add Keys" refitting the curves that miss the spec.

These tests import samples/sqlerp_arm.gltf, compare the report with the core's own evaluation of
the file (spec "Error measure" angle at the same dense times), then damage a bone's curves and
repair them (with undo), or refit every bone to the fallback; world rotations are measured by
tools/fidelity.py against the core. The rows worked out by hand: test_deviation_rows.py.
"""

from pathlib import Path

import numpy as np
import pytest
from helpers.bpy_access import current_scene, operator, settings
from helpers.deviation_records import FPS, peak

SAMPLE = Path(__file__).resolve().parents[2] / "samples/sqlerp_arm.gltf"


def fcurves_of(action, data_path):
    if hasattr(action, "layers") and action.layers:
        curves = [c for bag in action.layers[0].strips[0].channelbags for c in bag.fcurves]
    else:
        curves = list(action.fcurves)
    return sorted((c for c in curves if c.data_path == data_path), key=lambda c: c.array_index)


def key_points(action, data_path):
    result = []
    for fcurve in fcurves_of(action, data_path):
        co = np.zeros(2 * len(fcurve.keyframe_points), dtype=np.float32)
        fcurve.keyframe_points.foreach_get("co", co)
        result.append(co.reshape(-1, 2))
    return result


def by_target(rows):
    return {row.target: row for row in rows if row.rotation}


@pytest.fixture
def arm(fidelity):
    import bpy
    assert fidelity.import_gltf(SAMPLE) == {'FINISHED'}
    return bpy.data.objects["Arm"]


@pytest.mark.blender
def test_report_after_import_matches_the_core(arm):
    """Every bone's curves within the import tolerance of the extension; EXT-FALLBACK equal to
    the core's own evaluation of the file (local rotations, spec "Error measure" angle, same times)."""
    from gltf_sqlerp import core
    from gltf_sqlerp.core.sampling.metrics import dense_times, rotation_deviation
    from gltf_sqlerp.operators.preview.deviation import report
    rows = by_target(report(arm))
    assert set(rows) == {"Shoulder", "Elbow", "Wrist"}
    document = core.load(SAMPLE)
    clip = document.animations[0]
    times = dense_times(0.0, clip.duration, FPS, 8)
    names = [node["name"] for node in document.json["nodes"]]
    for channel in clip.channels:
        if channel.path != "rotation":
            continue
        row = rows[names[channel.node]]
        assert peak(row.ext_blender) <= 0.01 and row.source == "EXTENSION"
        expected = rotation_deviation(channel.evaluate(times),
                                      channel.evaluate(times, use_fallback=True), times)
        assert abs(row.ext_fallback.max - expected.max_deg) < 1e-6
        assert row.ext_fallback.time == pytest.approx(expected.at_time, abs=1e-9)
        assert row.ext_fallback.max > 0.05  # the sample's fallback really differs


@pytest.mark.blender
def test_report_operator_prints_and_keeps_a_summary(arm, capfd):
    action = arm.animation_data.action
    assert operator("gltf_sqlerp.deviation_report")(action=action.name) == {'FINISHED'}
    out = capfd.readouterr().out
    assert f"Info: Deviation of '{action.name}'" in out
    assert all(f"Info: {bone}" in out for bone in ("Shoulder", "Elbow", "Wrist"))
    state = settings(current_scene(), "gltf_sqlerp_deviation")
    assert state.action == action.name and len(state.rows) == 4
    assert state.lines.splitlines()[0] == state.summary and len(state.lines.splitlines()) == 5
    assert all(0.0 <= row.ext_blender <= 0.01 for row in state.rows if row.unit == "°")


@pytest.mark.blender
def test_add_keys_repairs_a_damaged_bone_and_undo_restores_the_damage(arm, fidelity, capfd):
    """Every other key of the Shoulder's rotation curves removed: the report puts the Shoulder
    first; Add Keys refits it within tolerance (world rotations measured by tools/fidelity.py
    against the core too) with more keys than the damage left; undo brings the damage back."""
    import bpy
    from gltf_sqlerp import core
    from gltf_sqlerp.operators.preview.deviation import report
    document = core.load(SAMPLE)
    path = 'pose.bones["Shoulder"].rotation_quaternion'
    action_name = arm.animation_data.action.name
    # A fresh import is within tolerance everywhere: nothing to add.
    assert operator("gltf_sqlerp.add_keys")(action=action_name) == {'CANCELLED'}
    for fcurve in fcurves_of(bpy.data.actions[action_name], path):
        points = fcurve.keyframe_points
        for i in range(len(points) - 2, 0, -2):  # every other key, first and last kept
            points.remove(points[i])
        fcurve.update()
    damaged = key_points(bpy.data.actions[action_name], path)
    rows = report(arm)
    assert rows[0].target == "Shoulder" and peak(rows[0].ext_blender) > 0.01
    assert fidelity.measure(document, 0).rotation_max_deg > 0.01
    assert all(peak(row.ext_blender) <= 0.01 for row in rows[1:] if row.rotation)
    capfd.readouterr()
    assert bpy.context.window_manager is not None
    with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
        bpy.ops.ed.undo_push(message="damaged")
        result = operator("gltf_sqlerp.add_keys")('EXEC_DEFAULT', True, action=action_name)
        assert result == {'FINISHED'}
        repaired = key_points(bpy.data.actions[action_name], path)
        assert all(len(r) > len(d) for r, d in zip(repaired, damaged))
        added = sum(len(r) - len(d) for r, d in zip(repaired, damaged))
        assert f"+{added} keys on 1 channel" in capfd.readouterr().out
        fixed = by_target(report(bpy.data.objects["Arm"]))
        assert all(peak(row.ext_blender) <= 0.01 for row in fixed.values())
        assert fidelity.measure(document, 0).rotation_max_deg <= 0.01
        assert bpy.ops.ed.undo() == {'FINISHED'}
    restored = key_points(bpy.data.actions[action_name], path)
    assert len(restored) == 4 and all(np.array_equal(r, d) for r, d in zip(restored, damaged))
    assert peak(by_target(report(bpy.data.objects["Arm"]))["Shoulder"].ext_blender) > 0.01


@pytest.mark.blender
def test_add_keys_against_the_fallback_makes_blender_play_it(arm, fidelity):
    """Refitting every bone to the fallback: the report against FALLBACK drops within tolerance,
    the records say the curves now play the fallback, and Blender's world rotations (measured by
    tools/fidelity.py against the core's fallback) are within the import's 0.01°."""
    import bpy
    from gltf_sqlerp import core
    from gltf_sqlerp.operators.preview.deviation import report
    document = core.load(SAMPLE)
    assert fidelity.measure(document, 0, use_fallback=True).rotation_max_deg > 0.05
    action_name = arm.animation_data.action.name
    assert operator("gltf_sqlerp.add_keys")(action=action_name, source='FALLBACK') == {'FINISHED'}
    rows = by_target(report(arm, source='FALLBACK'))
    assert all(peak(row.fallback_blender) <= 0.01 for row in rows.values())
    records = bpy.data.actions[action_name]["gltf_sqlerp"].to_dict()["channels"]
    assert {r["source"] for r in records if r["path"] == "rotation"} == {"FALLBACK"}
    assert {r["source"] for r in records if r["path"] != "rotation"} == {"EXTENSION"}  # no fallback
    assert all(row.source == "FALLBACK" for row in by_target(report(arm)).values())
    played = fidelity.measure(document, 0, use_fallback=True)
    assert played.problems == [] and played.rotation_max_deg <= 0.01


@pytest.mark.blender
def test_tolerance_shares_follow_the_chains_the_import_used(arm):
    """Blender's hierarchy (bone parents) gives each bone the same share of the tolerance as the
    import computed from the glTF node tree (core.blender_model.import_plan.rotation_budgets on core.Scene)."""
    from gltf_sqlerp import core
    from gltf_sqlerp.core.blender_model.import_plan import rotation_budgets
    from gltf_sqlerp.operators import action_data
    from gltf_sqlerp.operators.preview.deviation import chain_counts
    document = core.load(SAMPLE)
    rotated = {c.node for c in document.animations[0].channels if c.path == "rotation"}
    budgets = rotation_budgets(document.scene.parents, document.scene.order, rotated)
    names = [node["name"] for node in document.json["nodes"]]
    clip = action_data.load(arm.animation_data.action)
    assert clip is not None
    counts = chain_counts(clip)
    assert counts == {("Arm", names[n]): int(budgets[n]) for n in rotated}
    assert set(counts.values()) == {3}  # Shoulder > Elbow > Wrist
