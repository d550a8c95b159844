"""Registration in the real Blender (bpy 4.5.4 from the project venv) and the check operator.

In background mode Blender prints operator reports to stdout ("Info: ...", "Warning: ...",
"Error: ...") and `bpy.ops` turns ERROR reports into a RuntimeError carrying their text.
"""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.bpy_access import operator

pytestmark = pytest.mark.blender
ROOT = Path(__file__).resolve().parents[2]
OPERATOR_CLASS = "GLTF_SQLERP_OT_check_file"
PANEL_CLASS = "GLTF_SQLERP_PT_animation"


def registered_names(bpy):
    """Our classes in bpy.types and our operator namespace in bpy.ops, as Blender lists them."""
    classes = sorted(name for name in dir(bpy.types) if name.startswith("GLTF_SQLERP_"))
    operators = sorted(dir(bpy.ops.gltf_sqlerp)) if "gltf_sqlerp" in dir(bpy.ops) else []
    return classes, operators


def test_register_adds_the_operator_and_the_panel(addon):
    import bpy
    classes, operators = registered_names(bpy)
    assert {OPERATOR_CLASS, PANEL_CLASS} <= set(classes) and "check_file" in operators
    assert operator("gltf_sqlerp.check_file").get_rna_type().identifier == OPERATOR_CLASS
    panel = getattr(bpy.types, PANEL_CLASS)
    assert (panel.bl_space_type, panel.bl_region_type, panel.bl_category) == ("VIEW_3D", "UI", "glTF Sqlerp")
    assert panel.is_registered


def counts_from_json(path):
    """Animations, channels and EXT_animation_sqlerp channels, read straight from the file's JSON."""
    animations = json.loads(path.read_text(encoding="utf-8"))["animations"]
    channels = [channel for animation in animations for channel in animation["channels"]]
    sqlerp = [channel for channel in channels if "EXT_animation_sqlerp" in channel.get("extensions", {})]
    return len(animations), len(channels), len(sqlerp)


@pytest.mark.parametrize("folder, relative", [
    ("shared", "khronos/BoxAnimated/glTF/BoxAnimated.gltf"),  # 1 animation, 2 LINEAR channels
    ("repo", "samples/sqlerp_arm.gltf"),  # 3 of its 4 channels carry the extension (fallback form)
])
def test_check_file_reports_the_counts_of_a_valid_file(empty_scene, shared_assets, capfd, folder, relative):
    import bpy
    path = (shared_assets if folder == "shared" else ROOT) / relative
    animations, channels, sqlerp = counts_from_json(path)
    objects_before = len(bpy.data.objects)
    assert operator("gltf_sqlerp.check_file")(filepath=str(path)) == {'FINISHED'}
    assert (f"Info: {path.name}: {animations} animation{'s' * (animations != 1)}, "
            f"{channels} channels ({sqlerp} EXT_animation_sqlerp), 0 warnings") in capfd.readouterr().out
    assert len(bpy.data.objects) == objects_before


def test_check_file_reports_each_warning_of_the_validator(empty_scene, shared_assets, capfd):
    path = shared_assets / "validator" / "animation" / "custom_property.gltf"
    report = json.loads(path.with_name(path.name + ".report.json").read_text(encoding="utf-8"))
    expected = [(m["code"], m["pointer"]) for m in report["issues"]["messages"] if m["severity"] == 1]
    assert expected  # severity 1: the validator's warnings
    assert operator("gltf_sqlerp.check_file")(filepath=str(path)) == {'FINISHED'}
    lines = capfd.readouterr().out.splitlines()
    warnings = [line for line in lines if line.startswith("Warning: custom_property.gltf: ")]
    missing = [(code, pointer) for code, pointer in expected
               if not any(f"[{code} at {pointer}]" in line for line in warnings)]
    assert missing == []
    assert any(line.endswith(f", {len(warnings)} warnings") for line in lines if line.startswith("Info: "))


def test_check_file_names_code_and_pointer_of_an_invalid_file(empty_scene, shared_assets, capfd):
    path = shared_assets / "validator" / "animation" / "unresolved_channel_sampler.gltf"
    # glTF-Validator's report for this file (unresolved_channel_sampler.gltf.report.json).
    code, pointer = "UNRESOLVED_REFERENCE", "/animations/0/channels/0/sampler"
    with pytest.raises(RuntimeError) as raised:
        operator("gltf_sqlerp.check_file")(filepath=str(path))
    assert code in str(raised.value) and pointer in str(raised.value)
    error_lines = [line for line in capfd.readouterr().out.splitlines() if line.startswith("Error:")]
    assert any(code in line and pointer in line for line in error_lines)


def test_unregister_leaves_nothing_registered(addon):
    import bpy
    registered = registered_names(bpy)
    assert OPERATOR_CLASS in registered[0]
    addon.unregister()
    try:
        assert registered_names(bpy) == ([], [])
        with pytest.raises(KeyError):
            operator("gltf_sqlerp.check_file").get_rna_type()
    finally:
        # The session fixture unregisters at teardown: leave it registered as it found it.
        addon.register()
    assert registered_names(bpy) == registered


def test_the_bundled_hooks_hand_their_views_to_the_operators_while_registered(addon):
    # The one-way seam (bundled_gltf/handlers.py): registering hands the hooks the operators'
    # sessions and the live preview; unregistering leaves handlers that do nothing.
    from gltf_sqlerp.bundled_gltf import handlers
    from gltf_sqlerp.operators.exporting import session as export_session
    from gltf_sqlerp.operators.importing import session as import_session
    from gltf_sqlerp.operators.preview import live
    assert (handlers.importing(), handlers.exporting(), handlers.previewing()) == (import_session, export_session, live)
    addon.unregister()
    try:
        assert handlers.importing().current() is None and handlers.exporting().start() is None
        assert handlers.importing() is not import_session
    finally:
        addon.register()
    assert handlers.importing() is import_session


def test_the_export_dialog_panel_is_in_the_bundled_exporters_table_while_registered(addon):
    """The bundled exporter draws every function of io_scene_gltf2.exporter_extension_layout_draw
    in File > Export > glTF 2.0; since Blender 4.4 it no longer adds enabled add-ons' draw_export
    there itself (on 4.5 to 5.3 our panel was never drawn)."""
    from gltf_sqlerp.ui.export_dialog import draw_export
    # Blender's add-ons (scripts/addons_core) are on the path at run time only, by name here.
    table = importlib.import_module("io_scene_gltf2").exporter_extension_layout_draw
    assert draw_export in table.values()
    addon.unregister()
    try:
        assert draw_export not in table.values()
    finally:
        addon.register()
    assert list(table.values()).count(draw_export) == 1


def test_importing_the_package_and_core_does_not_import_bpy():
    # A fresh interpreter: this one has bpy loaded already. The operators import at the end is the
    # control that shows the check sees a bpy import when there is one.
    script = f"""
import importlib, importlib.util, pkgutil, sys
root = {str(ROOT)!r}
spec = importlib.util.spec_from_file_location("gltf_sqlerp", root + "/__init__.py",
                                              submodule_search_locations=[root])
package = importlib.util.module_from_spec(spec)
sys.modules["gltf_sqlerp"] = package
spec.loader.exec_module(package)
import gltf_sqlerp.core
for info in pkgutil.walk_packages(gltf_sqlerp.core.__path__, "gltf_sqlerp.core."):
    importlib.import_module(info.name)
print("core:", "bpy" in sys.modules, "mathutils" in sys.modules)
import gltf_sqlerp.operators
print("operators:", "bpy" in sys.modules)
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    # Blender 5.2 and later print a colour-management line when bpy is imported: only our lines count.
    ours = [line for line in result.stdout.splitlines() if line.startswith(("core:", "operators:"))]
    assert ours == ["core: False False", "operators: True"]
