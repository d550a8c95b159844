"""Child process of tests/operators/test_preview_lifecycle.py's export test (not a test module itself).

The bpy module of Blender 4.2 crashes at exit once its bundled glTF exporter has run, with or
without this add-on (a crash in Blender's static destructors), so the exports run here and the
process ends with os._exit. Usage: ``python preview_export_job.py FOLDER``: imports
samples/sqlerp_arm.gltf with the add-on enabled and writes FOLDER/off.glb (preview off),
FOLDER/on.glb (preview on, source FALLBACK, at frame 40) and FOLDER/leaked.glb (the same without
the add-on's export callbacks: the control), then prints one JSON line with the pose values read
in Blender before and after the preview's export.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, settings
from helpers.child_job import ROOT, finish, tool
SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"


def main(folder):
    fidelity = tool("tools/fidelity.py")
    import bpy
    from gltf_sqlerp.operators import action_data
    from gltf_sqlerp.operators.preview import live as preview
    fidelity.enable_addon()
    fidelity.import_gltf(str(SAMPLE))
    scene, arm = current_scene(), bpy.data.objects["Arm"]
    # What the bundled exporter samples is under test here: the add-on's CUBICSLERP export (which
    # would refit the rotations, and notices a leaked preview on its own) stays out of it.
    settings(scene, "gltf_sqlerp_export").enabled = False
    assert arm.animation_data is not None and arm.animation_data.action is not None
    clip = action_data.load(arm.animation_data.action)
    assert clip is not None
    paths = [r.data_path for r in clip.channels]

    def values():
        # fake-bpy-module types path_resolve as returning None; it returns the property's value.
        return [list(arm.path_resolve(path)) for path in paths]  # pyright: ignore[reportArgumentType]

    def export(name):
        result = bpy.ops.export_scene.gltf(filepath=str(folder / name), export_format='GLB')
        assert result == {'FINISHED'}, result

    export("off.glb")
    preview_settings = settings(scene, "gltf_sqlerp_preview")
    preview_settings.source = 'FALLBACK'
    preview_settings.enabled = True
    scene.frame_set(40)
    before = values()
    export("on.glb")
    scene.frame_set(40)
    after = values()
    held = sorted(preview._held)
    from gltf_sqlerp.bundled_gltf import export_hooks
    export_hooks.glTF2_pre_export_callback = lambda settings: None
    export_hooks.glTF2_post_export_callback = lambda settings: None
    export("leaked.glb")
    fidelity.disable_addon()
    print(json.dumps({"before": before, "after": after, "held": held}))


if __name__ == "__main__":
    finish(lambda: main(Path(sys.argv[1])))
