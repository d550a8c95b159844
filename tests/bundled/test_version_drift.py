"""Version drift on the import side: when Blender's bundled importer does not call the add-on's
animation hooks (a later Blender that renamed them, simulated here by hooks that do nothing), the
import is refused with a message naming the Blender version, and the scene is left as it was.
The export side is covered in tests/operators/test_export_bundled.py (child processes)."""

from pathlib import Path

import pytest
from helpers.bpy_access import operator
from helpers.import_checks import inventory

pytestmark = pytest.mark.blender
SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "sqlerp_arm.gltf"


def test_hooks_not_called_is_a_clear_refusal_and_changes_nothing(fidelity, monkeypatch):
    import bpy
    from gltf_sqlerp.bundled_gltf import import_hooks
    monkeypatch.setattr(import_hooks.glTF2ImportUserExtension, "gather_import_animation_after_hook",
                        lambda self, *args: None)
    fidelity.reset_scene()
    before = inventory(bpy)
    with pytest.raises(RuntimeError) as refused:
        operator("import_scene.gltf_sqlerp")(filepath=str(SAMPLE))
    assert f"Blender {bpy.app.version_string}" in str(refused.value)
    assert "did not call this add-on's animation hooks" in str(refused.value)
    assert inventory(bpy) == before


def test_hooks_read_their_arguments_from_both_ends(fidelity, monkeypatch):
    """A new argument between the index and gltf (as hook signatures grew before) changes nothing:
    the import finishes and the clip carries its stored samplers, which only the hooks write."""
    import bpy
    from gltf_sqlerp.bundled_gltf import import_hooks
    cls = import_hooks.glTF2ImportUserExtension
    before_hook, after_hook = cls.gather_import_animation_before_hook, cls.gather_import_animation_after_hook
    monkeypatch.setattr(cls, "gather_import_animation_before_hook",
                        lambda self, anim_idx, gltf: before_hook(self, anim_idx, "new", gltf))
    monkeypatch.setattr(cls, "gather_import_animation_after_hook",
                        lambda self, anim_idx, track, gltf: after_hook(self, anim_idx, track, "new", gltf))
    assert fidelity.import_gltf(str(SAMPLE)) == {'FINISHED'}
    arm = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
    assert arm.animation_data is not None and arm.animation_data.action is not None
    assert arm.animation_data.action.get("gltf_sqlerp") is not None
