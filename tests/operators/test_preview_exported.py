"""The live preview's "as exported" sources on actions keyed in Blender (tools/keyed_rig.py:
bones and empties in every rotation mode, Bezier keys every 4-12 frames).

Blender's own evaluation is the reference: with the preview off, frame_set gives the motion the
export fits; with 'EXPORTED' on, the pose must stay within the export's tolerance of it at every
frame and half frame (and differ from it somewhere: the preview posed it), with
'EXPORTED_FALLBACK' within the fallback's tolerance on top; switching off restores Blender's own
values exactly; an edit of the keys is followed.
"""


import numpy as np
import pytest
from helpers import tool
from helpers.preview_checks import frame_set, import_sample, set_preview

from gltf_sqlerp.core.sampling import quaternions as quat

pytestmark = pytest.mark.blender

FRAMES = np.arange(-6.0, 40.01, 0.5)
TOLERANCE, FALLBACK_TOLERANCE = 0.01, 0.1   # the export's defaults (scene.gltf_sqlerp_export)


@pytest.fixture
def rig(fidelity):
    import bpy
    fidelity.reset_scene(24, 1.0)
    arm, empties = tool("tools/keyed_rig.py").build()
    return bpy.context.scene, arm, empties


def local_rotations(scene, arm, empties, frames):
    """(F, N, 4) rotations (x, y, z, w) of every bone relative to its parent, and every empty's."""
    result = []
    for frame in frames:
        frame_set(scene, frame)
        rows = []
        for bone in arm.pose.bones:
            parent = bone.parent.matrix if bone.parent else arm.matrix_world.inverted() @ arm.matrix_world
            rows.append(list((parent.inverted() @ bone.matrix).to_quaternion()))
        rows += [list(e.matrix_world.to_quaternion()) for e in empties]
        result.append(rows)
    return np.roll(np.array(result), -1, axis=2)


def angles(a, b):
    return quat.angle_between(a.reshape(-1, 4), b.reshape(-1, 4)).reshape(a.shape[:2])


@pytest.mark.parametrize("source, tolerance", [("EXPORTED", TOLERANCE),
                                               ("EXPORTED_FALLBACK", FALLBACK_TOLERANCE + TOLERANCE)])
def test_as_exported_follows_blenders_motion_within_the_export_tolerance(rig, source, tolerance):
    scene, arm, empties = rig
    own = local_rotations(scene, arm, empties, FRAMES)
    set_preview(scene, True, source)
    previewed = local_rotations(scene, arm, empties, FRAMES)
    set_preview(scene, False)
    restored = local_rotations(scene, arm, empties, FRAMES)
    error = angles(previewed, own)
    assert error.max() <= tolerance
    assert (error.max(axis=0) > 1e-5).all()   # every bone and empty was posed by the preview
    assert np.array_equal(restored, own)


def test_an_edit_of_the_keys_is_followed(rig):
    import bpy
    scene, arm, empties = rig
    from gltf_sqlerp.operators.preview import exported as preview_exported
    set_preview(scene, True, 'EXPORTED')
    local_rotations(scene, arm, empties, [10.0])           # fitted and cached
    fitted = dict(preview_exported._clips)
    local_rotations(scene, arm, empties, FRAMES[:20])      # frame changes keep the fit
    assert len(fitted) == 3 and all(preview_exported._clips.get(k) is c for k, c in fitted.items())
    set_preview(scene, False)
    empty = empties[0]
    curve = next(c for c in _curves(empty.animation_data.action) if c.array_index == 1)
    point = curve.keyframe_points[2]
    point.co.y += 0.8
    point.handle_left.y += 0.8
    point.handle_right.y += 0.8
    curve.update()
    assert bpy.context.view_layer is not None
    bpy.context.view_layer.update()
    frames = np.arange(empty.animation_data.action.frame_range[0], 40.0, 0.5)
    own = local_rotations(scene, arm, empties, frames)
    set_preview(scene, True, 'EXPORTED')
    previewed = local_rotations(scene, arm, empties, frames)
    set_preview(scene, False)
    assert angles(previewed, own).max() <= TOLERANCE


def _curves(action):
    if not hasattr(action, "layers"):
        return list(action.fcurves)
    return [c for layer in action.layers for strip in layer.strips for bag in strip.channelbags
            for c in bag.fcurves]


def test_imported_clips_play_their_extension_and_fallback(fidelity):
    """With an "as exported" source an imported clip plays what its import stored."""
    scene = import_sample(fidelity)
    arm = next(o for o in scene.objects if o.type == 'ARMATURE')
    assert arm.pose is not None
    poses = {}
    for source in ('EXTENSION', 'EXPORTED', 'FALLBACK', 'EXPORTED_FALLBACK'):
        set_preview(scene, True, source)
        frame_set(scene, 17.5)
        poses[source] = [[*b.rotation_quaternion] for b in arm.pose.bones]
    set_preview(scene, False)
    assert poses['EXPORTED'] == poses['EXTENSION'] and poses['EXPORTED_FALLBACK'] == poses['FALLBACK']
    assert poses['EXTENSION'] != poses['FALLBACK']


def test_damaged_stored_data_leaves_that_clip_to_blender_and_never_fails_a_frame(fidelity, capsys,
                                                                                monkeypatch):
    """A clip whose stored samplers were damaged (hand-edited custom properties, a broken file
    from another tool) is not previewed: frame_set goes on, its bones keep Blender's own values,
    and the console says so once; the clip is not built again on the next frame change."""
    scene = import_sample(fidelity)
    arm = next(o for o in scene.objects if o.type == 'ARMATURE')
    assert arm.pose is not None
    frame_set(scene, 12.5)
    own = [[*b.rotation_quaternion] for b in arm.pose.bones]
    set_preview(scene, True, 'EXTENSION')
    assert [[*b.rotation_quaternion] for b in arm.pose.bones] != own   # the preview posed it
    set_preview(scene, False)
    assert arm.animation_data is not None and arm.animation_data.action is not None
    data = arm.animation_data.action["gltf_sqlerp"]
    channels = data["channels"]
    channels[0]["sampler"]["values"] = [0.0]     # no longer a whole number of quaternions
    data["channels"] = channels
    from gltf_sqlerp.operators.preview import clips as preview_clips
    preview_clips.forget()  # an edit inside the stored group is not seen by the cache (documented)
    builds = []
    clip_class = preview_clips.Clip

    def counted(data, records, source):
        builds.append(len(records))
        return clip_class(data, records, source)
    monkeypatch.setattr(preview_clips, "Clip", counted)
    set_preview(scene, True, 'EXTENSION')
    for frame in (13.0, 14.0, 12.5):
        frame_set(scene, frame)
    damaged = [[*b.rotation_quaternion] for b in arm.pose.bones]
    set_preview(scene, False)
    assert damaged == own
    out = capsys.readouterr().out
    assert out.count("is not previewed") == 1
    # Refused when read (core.blender_model.clip_record: the damage named), then an empty clip, kept.
    assert "is damaged" in out and builds == [0]
