"""What the import tests in the real Blender share (tests/operators/test_import_fidelity.py,
test_onto_rig.py, test_onto_armature_objects.py, tests/bundled/test_version_drift.py,
tests/pipeline/test_pipeline_blender.py): the import's tolerances and the check that a clip plays
the spec, the data-blocks of a session, and the rig that clips are imported onto (CesiumMan
imported whole, its clips removed) with the checks and edited copies of its file."""

import json
import shutil

import pytest

from .child_job import ASSETS


ROTATION_TOLERANCE_DEG = 0.01  # the import's default tolerance (what the README promises)
VERTEX_TOLERANCE = 1e-4        # of the mesh's bounding-box diagonal


def model_id(path):
    if ASSETS in path.parents:
        return f"{path.parent.parent.name}/{path.parent.name}/{path.name}"
    return path.name


def load_document(path):
    from gltf_sqlerp import core
    return core.load(path)


def inventory(bpy):
    return {block.as_pointer() for block in bpy.data.user_map()}


def assert_plays_the_spec(result, document, clip):
    assert result.problems == []
    animated = {c.node for c in document.animations[clip].channels}
    assert animated.isdisjoint(result.skipped)  # the clip's own nodes were compared
    assert result.rotations + result.vertices > 0
    assert result.rotation_max_deg <= ROTATION_TOLERANCE_DEG, str(result)
    assert result.vertex_max <= VERTEX_TOLERANCE, str(result)


CESIUM_MAN = ASSETS / "khronos/CesiumMan/glTF/CesiumMan.gltf"


def strip_clips(bpy):
    """Keep the imported objects, drop every action and NLA track: the rig the clips go onto."""
    for data in [*bpy.data.objects, *bpy.data.shape_keys]:
        data.animation_data_clear()
    for action in list(bpy.data.actions):
        bpy.data.actions.remove(action)


def make_active(bpy):
    """The armature, else the scene's first object."""
    armatures = [o for o in bpy.context.scene.objects if o.type == 'ARMATURE']
    obj = armatures[0] if armatures else bpy.context.scene.objects[0]
    bpy.context.view_layer.objects.active = obj
    return obj


def rig_of(fidelity, path):
    """``path`` imported whole, its clips and actions removed, its armature active: the rig."""
    bpy = fidelity.bpy
    assert fidelity.import_gltf(path) == {'FINISHED'}
    strip_clips(bpy)
    return make_active(bpy)


def check_refused(fidelity, path, add, message):
    """Adding ``path`` to CesiumMan's rig with ``add(bpy, path)`` raises ``message`` and leaves
    every data-block as it was."""
    bpy = fidelity.bpy
    rig_of(fidelity, CESIUM_MAN)
    before = inventory(bpy)
    with pytest.raises(RuntimeError, match=message):
        add(bpy, path)
    assert set(inventory(bpy)) == set(before)


def import_onto(bpy, path, **options):
    return bpy.ops.import_scene.gltf_sqlerp(filepath=str(path), onto='ACTIVE', **options)


def edited_copy(folder, edit, name="CesiumMan_edited.gltf"):
    """CesiumMan.gltf with its JSON changed by ``edit``, its buffer and texture copied beside it."""
    for sibling in CESIUM_MAN.parent.iterdir():
        if sibling.suffix != ".gltf" and not (folder / sibling.name).exists():
            shutil.copy(sibling, folder)
    data = json.loads(CESIUM_MAN.read_text(encoding="utf-8"))
    edit(data)
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def misfit(data):
    """leg_joint_R_2 moved from under leg_joint_R_1 to under Skeleton_torso_joint_1."""
    names = [n.get("name") for n in data["nodes"]]
    moved, old, new = (names.index(n) for n in ("leg_joint_R_2", "leg_joint_R_1", "Skeleton_torso_joint_1"))
    data["nodes"][old]["children"].remove(moved)
    if not data["nodes"][old]["children"]:
        del data["nodes"][old]["children"]  # an empty list is invalid glTF
    data["nodes"][new].setdefault("children", []).append(moved)
