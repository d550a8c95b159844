"""What the export jobs (tests/jobs/export_job.py and its parts) record in Blender: the world
rotations Blender plays before an export and after its re-import, the slide the bundled exporter
gives each clip, and the outcome the export left (not a test module)."""

from typing import Any

from .bpy_access import current_scene


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
