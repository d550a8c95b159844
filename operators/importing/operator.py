"""File > Import > glTF 2.0 with exact animation: ``import_scene.gltf_sqlerp``.

The file is loaded, validated and planned by the core before Blender is touched, so a broken file
changes nothing. Then the bundled importer builds the scene while our hook (import_session) writes
every animation channel; if anything failed on the way, every data-block the import added is
removed again.
"""

import os
import time
from typing import TYPE_CHECKING

import bpy
from bpy_extras.io_utils import ImportHelper

from ...core import GltfError
from ...core.blender_model import ImportSettings, plan_document
from ...bundled_gltf import draft_form
from . import session as import_session
from .. import transaction
from . import rig_placement as onto_rig
from .rig_match import RigMatch


def scene_rate(scene: bpy.types.Scene) -> float:
    """Frames per second Blender really plays (the 29.97 preset is fps 30, fps_base 1.001)."""
    return scene.render.fps / scene.render.fps_base


SOURCE_ITEMS = (
    ('EXTENSION', "CUBICSLERP Extension", "Play EXT_animation_sqlerp channels as the extension says"),
    ('FALLBACK', "Fallback", "Play the fallback sampler: what viewers without the extension show"),
)
ONTO_ITEMS = (
    ('NEW', "New Objects", "Build the file's objects, as the bundled importer does"),
    ('ACTIVE', "Active Rig", "Add every animation of the file as a clip of the active object (an "
               "armature, its children and objects of the same names); nothing else is added"),
)


class IMPORT_SCENE_OT_gltf_sqlerp(bpy.types.Operator, ImportHelper):
    """Import a glTF 2.0 file with the bundled importer, then write every animation so that
    Blender plays exactly what the glTF spec says (EXT_animation_sqlerp included)"""

    bl_idname = "import_scene.gltf_sqlerp"
    bl_label = "Import glTF (Exact Animation)"
    bl_options = {'REGISTER', 'UNDO'}

    filter_glob: bpy.props.StringProperty(default="*.glb;*.gltf", options={'HIDDEN'})
    source: bpy.props.EnumProperty(name="Play", items=SOURCE_ITEMS, default='EXTENSION')
    rotation_tolerance: bpy.props.FloatProperty(
        name="Rotation Tolerance", description="Largest angle (degrees) that Blender's rotation "
        "curves may be from the spec at any time; extra keys are added where needed",
        default=0.01, min=0.0001, max=10.0, precision=4)
    bake: bpy.props.BoolProperty(
        name="Bake Every Frame", description="Write a LINEAR key on every frame instead of "
        "fitted curves (exact on frames only)", default=False)
    onto: bpy.props.EnumProperty(name="Onto", items=ONTO_ITEMS, default='NEW')
    prefix_map: bpy.props.StringProperty(
        name="Name Prefixes", description="Onto a rig: file=rig name prefixes, comma-separated "
        "(e.g. 'mixamorig:=' matches the file's 'mixamorig:Hips' with the rig's 'Hips')", default="")
    files: bpy.props.CollectionProperty(type=bpy.types.OperatorFileListElement,
                                        options={'HIDDEN', 'SKIP_SAVE'})
    directory: bpy.props.StringProperty(subtype='DIR_PATH', options={'HIDDEN', 'SKIP_SAVE'})
    if TYPE_CHECKING:
        filepath: str  # ImportHelper's property, which the stubs leave out

    def execute(self, context: bpy.types.Context) -> set[str]:
        window_manager = context.window_manager
        if context.scene is None or window_manager is None:  # a context no import runs in
            self.report({'ERROR'}, "no scene to import into")
            return {'CANCELLED'}
        settings = ImportSettings(self.source, self.rotation_tolerance, self.bake,
                                  scene_rate(context.scene))
        paths = self._paths()
        rig = self._rig(context) if self.onto == 'ACTIVE' else None
        if self.onto == 'ACTIVE' and rig is None:
            return {'CANCELLED'}
        window_manager.progress_begin(0, 3 * len(paths))
        before, kept = transaction.snapshot(), onto_rig.selection(context)
        try:
            for number, path in enumerate(paths):
                problem = self._import(window_manager, 3 * number, path, settings, rig)
                if problem is not None:
                    removed = transaction.rollback(before)
                    if problem:  # "": the file's findings are reported already
                        self.report({'ERROR'}, f"{problem}; the scene is unchanged ({removed} "
                                               "data-blocks removed)")
                    return {'CANCELLED'}
        finally:
            if rig is not None:
                onto_rig.restore_selection(context, kept)
            window_manager.progress_end()
        return {'FINISHED'}

    def _paths(self) -> list[str]:
        """The file, or every file selected in the browser."""
        names = [f.name for f in self.files if f.name]
        if not names or not self.directory:
            return [self.filepath]
        return [os.path.join(self.directory, name) for name in names]

    def _rig(self, context: bpy.types.Context) -> RigMatch | None:
        obj, scene = context.active_object, context.scene
        if obj is None or scene is None:
            self.report({'ERROR'}, "no active object to add the clips to: select the rig")
            return None
        try:
            return RigMatch.of(obj, scene, self.prefix_map)
        except ValueError as error:
            self.report({'ERROR'}, str(error))
            return None

    def _import(self, window_manager: bpy.types.WindowManager, progress: int, filepath: str,
                settings: ImportSettings, rig: RigMatch | None) -> str | None:
        """Import one file; returns what went wrong ("" once reported), or None."""
        started = time.perf_counter()
        try:
            document = import_session.load_for_import(filepath)
        except GltfError as error:
            for finding in error.findings:
                self.report({'ERROR'}, _finding_text(finding))
            return ""
        name = document.path.name if document.path else "file"
        window_manager.progress_update(progress + 1)
        session = import_session.ImportSession(document, plan_document(document, settings), settings)
        session.rig = rig.fresh() if rig is not None else None
        window_manager.progress_update(progress + 2)
        before = transaction.snapshot() if rig is not None else set()
        with import_session.active(session):
            try:
                result = bpy.ops.import_scene.gltf(filepath=filepath)
            except RuntimeError as error:  # the bundled importer reported an ERROR
                result, session.errors = {'CANCELLED'}, session.errors + [_one_line(str(error))]
            finally:
                draft_form.unpatch()
        problem = _problem(result, session)
        if problem:
            return f"{problem} ({name})"
        if session.rig is not None:
            onto_rig.settle(session, before)
        for warning in document.warnings:
            self.report({'WARNING'}, _finding_text(warning))
        for note in _pointer_notes(document, session):
            self.report({'WARNING'}, note)
        self.report({'INFO'}, _summary(document, session, time.perf_counter() - started))
        return None


def _finding_text(finding):
    """A finding as a report line. Blender keeps reports as C strings, so a NUL that a hostile file
    put into a message or pointer (a URI, a property name) would cut the line there, code and
    pointer included: it is shown as the two characters \\0 instead."""
    return finding.text().replace("\0", "\\0")


def _one_line(message):
    """Blender's error as one line: a Python traceback becomes its exception ("KeyError: 99"),
    the "Error: Python:" prefixes and Blender's "Location: ops.py" line go."""
    lines = [line.strip() for line in message.strip().splitlines()
             if line.strip() and not line.strip().startswith("Location:")]
    if any("Traceback" in line for line in lines):
        lines = lines[-1:]
    text = " ".join(lines)
    for prefix in ("Error: ", "Python: "):
        text = text[len(prefix):] if text.startswith(prefix) else text
    return text


def _problem(result, session):
    if session.misfit is not None:
        return onto_rig.refusal(session)
    if result != {'FINISHED'}:
        return "Blender's glTF importer did not finish" + "".join(f": {e}" for e in session.errors)
    if session.errors:
        return "exact animation failed: " + "; ".join(session.errors)
    refused = onto_rig.refusal(session)
    if refused is not None:
        return refused
    if session.animations_done < len(session.plans):
        # Either the add-on is registered but not enabled in the preferences (the bundled importer
        # only calls enabled add-ons), or this Blender's importer no longer calls these hooks.
        return (f"Blender {bpy.app.version_string}'s glTF importer did not call this add-on's "
                "animation hooks: enable glTF Sqlerp Animation in Preferences > Add-ons; if it is "
                "enabled, this Blender version changed its importer's hooks")
    return None


def _summary(document, session, seconds):
    plans = [p for plans in session.plans.values() for p in plans]
    keys = sum(len(p.keyframes.times) for p in plans)
    file_keys = sum(len(p.sampler.times) for p in plans)
    name = document.path.name if document.path else "file"
    onto = f" onto '{session.rig.root.name}'" if session.rig is not None else ""
    pointers = session.pointer_channels_written
    also = f" and {pointers} material, camera or light channel(s)" if pointers else ""
    return (f"Imported {name}{onto}: {len(document.animations)} animation(s), "
            f"{session.channels_written} channel(s){also} exact, {keys} keys ({keys - file_keys:+d} vs "
            f"the file) in {seconds:.2f} s{_jumps(document, plans)}{_unmatched(session)}")


def _pointer_notes(document, session):
    """A line per KHR_animation_pointer channel left as the bundled importer made it, and why."""
    if session.rig is not None:
        return []
    skipped = [note for animation in document.animations for note in animation.pointer_skipped]
    return [f"Not exact, imported as Blender's importer does: {note}" for note in skipped + session.notes]


def _unmatched(session, shown=5):
    """'; not on the rig: ...' naming the animated nodes the rig has not, or ''."""
    missing = session.rig.unmatched_animated if session.rig is not None else []
    if not missing:
        return ""
    more = f" and {len(missing) - shown} more" if len(missing) > shown else ""
    return f"; {len(missing)} animated node(s) not on the rig: {', '.join(missing[:shown])}{more}"


def _jumps(document, plans, shown=3):
    """'; N jumps ...' naming where CUBICSLERP curves jump (keyed either side), or ''."""
    found = [(plan, float(t)) for plan in plans for t in plan.jumps()]
    if not found:
        return ""
    nodes = document.json.get("nodes") or []
    where = ", ".join(f"{_node_name(nodes, plan.channel.node)} at {t:.4f} s" for plan, t in found[:shown])
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    return f"; {len(found)} jump(s) of the CUBICSLERP curve, keyed either side: {where}{more}"


def _node_name(nodes, index):
    node = nodes[index] if 0 <= index < len(nodes) and isinstance(nodes[index], dict) else {}
    return str(node.get("name") or f"node {index}")

