"""Imported clips on an object, making one active (with undo and redo), and the sidebar panel.

The panel is drawn into a recording layout: headless Blender has no region to draw in, so the
test checks what the panel asks for instead: every button names a registered operator and sets
only that operator's real properties, every field is a real RNA property.
"""

from pathlib import Path
from typing import Any

import pytest
from helpers.bpy_access import current_scene, operator, settings
from helpers import ASSETS

pytestmark = pytest.mark.blender

BOX = ASSETS / "khronos/BoxAnimated/glTF/BoxAnimated.gltf"
INTERPOLATION_TEST = ASSETS / "khronos/InterpolationTest/glTF/InterpolationTest.gltf"
SAMPLE = Path(__file__).resolve().parents[2] / "samples/sqlerp_arm.gltf"


class OperatorButton:
    """What layout.operator returns: setting a property the operator lacks is an error."""
    _names: set[str]
    values: dict

    def __init__(self, idname):
        import bpy
        category, name = idname.split(".")
        object.__setattr__(self, "_names", set(
            getattr(getattr(bpy.ops, category), name).get_rna_type().properties.keys()))
        object.__setattr__(self, "values", {})

    def __setattr__(self, name, value):
        assert name in self._names, f"operator has no property {name!r}"
        self.values[name] = value


class RecordingLayout:
    def __init__(self, calls):
        self.calls, self.active, self.use_property_split, self.enabled = calls, True, False, True

    def column(self, **_):
        return self

    row = box = column

    def separator(self, **_):
        pass

    def panel(self, idname, **_):
        return self, self  # (header, body) of a sub-panel in the bundled glTF dialogs

    def label(self, text="", **_):
        self.calls.append(("label", text))

    def operator(self, idname, text=None, **options):
        import bpy
        category, name = idname.split(".")
        assert name in dir(getattr(bpy.ops, category)), f"{idname} is not registered"
        button = OperatorButton(idname)
        self.calls.append(("operator", idname, text, options.get("depress"), button))
        return button

    def prop(self, data, attribute, **_):
        assert attribute in data.bl_rna.properties.keys(), f"{data} has no property {attribute}"
        self.calls.append(("prop", attribute))


def draw_panel(bpy):
    from gltf_sqlerp.ui.panel import GLTF_SQLERP_PT_animation
    calls = []
    panel: Any = type("PanelView", (), {"layout": RecordingLayout(calls)})()  # the panel as draw reads it
    GLTF_SQLERP_PT_animation.draw(panel, bpy.context)
    return calls


def activate(bpy, name):
    obj = bpy.data.objects[name]
    bpy.context.view_layer.objects.active = obj
    return obj


def test_clips_of_an_object_follow_the_file(fidelity):
    """InterpolationTest: nine clips, each animating one cube; each cube lists exactly its clip."""
    import json

    import bpy
    from gltf_sqlerp.operators.clips import imported_clips
    fidelity.import_gltf(str(INTERPOLATION_TEST))
    document = json.loads(INTERPOLATION_TEST.read_text())
    for animation in document["animations"]:
        node = document["nodes"][animation["channels"][0]["target"]["node"]]
        clips = imported_clips(bpy.data.objects[node["name"]])
        assert [c.name for c in clips] == [animation["name"]]


def test_activate_clip_assigns_action_and_slot_with_undo_and_redo(fidelity):
    import bpy
    from gltf_sqlerp.operators.clips import imported_clips
    fidelity.import_gltf(str(BOX))
    obj = activate(bpy, "Node_0")
    clip = imported_clips(obj)[0]
    action_name, slot = clip.action.name, clip.slots["Object"]  # undo invalidates Python references
    assert bpy.context.window_manager is not None and obj.animation_data is not None
    window = bpy.context.window_manager.windows[0]
    with bpy.context.temp_override(window=window):
        obj.animation_data.action = None
        bpy.ops.ed.undo_push(message="no clip")
        assert operator("gltf_sqlerp.activate_clip")('EXEC_DEFAULT', True, action=action_name) == {'FINISHED'}
        obj = bpy.data.objects["Node_0"]
        assert playing(obj.name) == action_name
        # Any: action slots (Blender 4.4+) are newer than the type stubs (Blender 4.2).
        animation: Any = obj.animation_data
        if hasattr(animation, "action_slot"):
            assert animation.action_slot.identifier == slot
        assert imported_clips(obj)[0].active
        bpy.ops.ed.undo()
        assert playing("Node_0") is None
        bpy.ops.ed.redo()
        assert playing("Node_0") == action_name


def playing(name):
    """The name of the action the object ``name`` plays (None: none); it has animation data."""
    import bpy
    animation = bpy.data.objects[name].animation_data
    assert animation is not None
    return animation.action.name if animation.action else None


def test_activate_clip_says_why_it_is_disabled(fidelity):
    import bpy
    fidelity.import_gltf(str(BOX))
    activate(bpy, "outer_box")  # a mesh the file does not animate
    assert not operator("gltf_sqlerp.activate_clip").poll()
    with pytest.raises(RuntimeError, match="no imported glTF clip"):
        operator("gltf_sqlerp.activate_clip")(action="Anim_0")


def test_panel_draws_import_clips_and_the_active_clip(fidelity):
    import bpy
    fidelity.import_gltf(str(SAMPLE))
    arm = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
    activate(bpy, arm.name)
    calls = draw_panel(bpy)
    operators = [c for c in calls if c[0] == "operator"]
    assert [(c[1], c[2]) for c in operators[:3]] == [
        ("import_scene.gltf_sqlerp", "Import glTF (Exact)"),
        ("import_scene.gltf_sqlerp", "Add Clips to Rig"), ("gltf_sqlerp.check_file", None)]
    assert operators[1][4].values["onto"] == 'ACTIVE'
    clip_buttons = [c for c in operators if c[1] == "gltf_sqlerp.activate_clip"]
    assert [(c[2], c[3]) for c in clip_buttons] == [("Wave", True)]
    assert clip_buttons[0][4].values["action"] == playing(arm.name)
    activate(bpy, next(o for o in bpy.data.objects if o.type == 'MESH').name)
    assert ("label", "Select an object with imported glTF clips") in draw_panel(bpy)


def test_panel_and_export_dialog_draw_the_export_settings(fidelity):
    """The sidebar's export button carries the scene's settings (saved with the .blend); the
    bundled export dialog's panel draws the same settings with their on/off switch."""
    import bpy
    from gltf_sqlerp.ui.export_dialog import draw_export
    chosen = settings(current_scene(), "gltf_sqlerp_export")
    chosen.tolerance, chosen.fallback, chosen.fallback_tolerance = 0.25, 'CUBICSPLINE', 0.5
    chosen.property_tolerance = 2.0 ** -10  # exact in the property's float32
    chosen.world_space = False
    calls = draw_panel(bpy)
    export = [c for c in calls if c[0] == "operator" and c[1] == "export_scene.gltf_sqlerp"]
    assert len(export) == 1
    assert export[0][4].values == {"tolerance": 0.25, "fallback": 'CUBICSPLINE', "fallback_tolerance": 0.5,
                                   "precision": 'SHORT', "property_tolerance": 2.0 ** -10,
                                   "world_space": False}
    assert {("prop", "tolerance"), ("prop", "fallback"), ("prop", "fallback_tolerance")} <= set(calls)
    dialog = []
    layout: Any = RecordingLayout(dialog)  # the UILayout as draw_export uses it
    draw_export(bpy.context, layout)
    assert [c for c in dialog if c[0] == "prop"] == [("prop", "enabled"), ("prop", "tolerance"),
                                                     ("prop", "precision"), ("prop", "fallback"),
                                                     ("prop", "fallback_tolerance"),
                                                     ("prop", "world_space"),
                                                     ("prop", "property_tolerance")]
