"""Live preview, "Play glTF Exactly": imported clips played by the core on every frame change.

With ``scene.gltf_sqlerp_preview`` enabled and its source 'EXTENSION' or 'FALLBACK', a
``frame_change_post`` handler evaluates every imported clip the scene plays (preview_clips) at the
scene's exact time (frame, subframe, the NLA strip's mapping) with the core's PosePlayer and
writes the values into pose bones, object transforms and shape keys (preview_write); the
KHR_animation_pointer properties of the cameras, lights and materials they use (colours and
factors in node sockets, lens, clip distances, light colour, energy, spot size) get the value the
import kept as their reference at that time (linear between its 8 samples a frame). Blender
re-evaluates what changed in the second pass of the same frame change, so playback, scrubbing,
scripts (``frame_set``) and renders see the exact pose: Blender calls the handler for the render
pipeline's depsgraph too, on every rendered frame and motion-blur subframe, so renders need no
handler of their own (Blender's docs advise Render > Lock Interface for handlers that change data
while rendering from the UI).

Nothing is written into keyframes, only values that Blender's own evaluation overwrites on the
next frame change. That evaluation is restored (the scene re-evaluated at its frame and subframe
with the preview held) when the preview is switched off, before a save (the .blend stores the
action's pose; the preview is back after it), around a glTF export (the bundled exporter samples
with frame_set; its pre/post export callbacks hold the preview) and when the add-on is disabled.
A .blend saved with the preview on plays it again once loaded.

The settings have no update callbacks (ui/preview_properties): a change made in the UI is picked
up through the message bus and shown at once; a script that sets them sees the change at the next
frame change, or at once with ``refresh(scene)`` or the ``gltf_sqlerp.preview_toggle`` operator.
"""

from typing import Protocol

import bpy
from bpy.app.handlers import persistent

from . import clips as preview_clips, exported as preview_exported, write as preview_write

PROPERTY = "gltf_sqlerp_preview"
PLAYED = ('EXTENSION', 'FALLBACK') + preview_exported.SOURCES

_held: set[str] = set()      # why the preview is held now: "save", "export"
_applied: set[int] = set()   # session_uid of scenes the handler wrote into since their last restore
# session_uid -> the scene's (on, source) when the preview last acted on it
_seen: dict[int, tuple[bool, str | None]] = {}


class PreviewSettings(Protocol):
    """The scene's ``gltf_sqlerp_preview`` (ui/preview_properties.py registers it; operators never
    import ui)."""
    enabled: bool
    source: str


def settings(scene: bpy.types.Scene | None) -> PreviewSettings | None:
    return getattr(scene, PROPERTY, None)


def is_on(scene: bpy.types.Scene) -> bool:
    """The scene's preview is switched on with a core source (held or not)."""
    group = settings(scene)
    return group is not None and group.enabled and group.source in PLAYED


def _state(scene: bpy.types.Scene) -> tuple[bool, str | None]:
    """(is_on(scene), source), reading each setting once: called on every frame change."""
    group = getattr(scene, PROPERTY, None)
    if group is None:
        return (False, None)
    source = group.source
    return (group.enabled and source in PLAYED, source)


def apply(scene: bpy.types.Scene, source: str | None = None) -> None:
    """Write the core's values of every imported clip ``scene`` plays at its current time."""
    if not source:
        group = settings(scene)
        if group is None:
            raise ValueError(f"scene '{scene.name}' has no {PROPERTY} (the add-on's ui is not registered)")
        source = group.source
    exported = source in preview_exported.SOURCES
    for data, action, slot, action_frame in preview_clips.playing(scene, exported):
        try:
            # bl_rna is the struct's definition (a bpy.types.Struct); the stubs say BlenderRNA.
            id_type = data.bl_rna.identifier  # pyright: ignore[reportAttributeAccessIssue]
            clip_key, clip = preview_clips.clip_for(action, slot, id_type, source, data)
            if clip.player is not None:
                writer = preview_write.writer_for(data, clip_key, clip.records)
                writer.write(data, clip.values(action_frame))
            if clip.pointers:  # KHR_animation_pointer properties: the import's reference
                writer = preview_write.writer_for(data, (clip_key, "pointers"), clip.pointers)
                writer.write(data, clip.pointer_values(action_frame))
        except Exception as error:  # noqa: BLE001 - a frame change must never fail
            # Damaged stored data or a clip that cannot be fitted: that ID keeps Blender's own
            # values (nothing was written for it), the others are previewed; said once per action.
            _report_failure(action, error)
    _applied.add(scene.session_uid)


_failures: set[tuple[int, str, str]] = set()  # failures said already (cleared with the data: file loads, unregister)
_MAX_FAILURES = 256


def _report_failure(action, error):
    key = (action.session_uid, type(error).__name__, str(error))
    if key not in _failures:
        if len(_failures) >= _MAX_FAILURES:
            _failures.clear()
        _failures.add(key)
        print(f"Play glTF Exactly: '{action.name}' is not previewed: {type(error).__name__}: {error}")


@persistent
def on_frame_change(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph | None = None) -> None:
    if _held:
        return
    state = _state(scene)
    _seen[scene.session_uid] = state
    if state[0]:
        apply(scene, state[1])
    else:
        _applied.discard(scene.session_uid)  # Blender's own evaluation just ran


def on_settings_change() -> None:
    """Message bus: ``enabled`` or ``source`` of some scene changed (UI or script). Notified by
    the UI's event loop (never in background runs): the scenes whose settings differ from what the
    preview last acted on are shown again at once."""
    for scene in bpy.data.scenes:
        if _seen.get(scene.session_uid) != _state(scene):
            refresh(scene)


def evaluate(scene: bpy.types.Scene) -> None:
    """Re-evaluate ``scene`` at its current frame and subframe: the preview's values where it is
    on and not held, else Blender's own evaluation of every action (the preview's values gone)."""
    scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)
    if _held or not is_on(scene):
        _applied.discard(scene.session_uid)
    if not _held:
        _seen[scene.session_uid] = _state(scene)


def refresh(scene: bpy.types.Scene) -> None:
    """Show a change of the scene's preview settings now (the preview, or Blender's own values
    back) instead of at the next frame change."""
    if is_on(scene) or scene.session_uid in _applied:
        evaluate(scene)
    else:
        _seen[scene.session_uid] = _state(scene)


def _scenes_to_restore():
    return [s for s in bpy.data.scenes if s.session_uid in _applied or is_on(s)]


def hold(reason: str) -> None:
    """Restore Blender's own evaluation everywhere until ``release(reason)``."""
    first = not _held
    _held.add(reason)
    if first:
        for scene in _scenes_to_restore():
            evaluate(scene)


def release(reason: str) -> None:
    if reason not in _held:
        return
    _held.discard(reason)
    if not _held:
        for scene in bpy.data.scenes:
            if is_on(scene):
                evaluate(scene)


# --- the bundled glTF exporter (its callbacks: bundled_gltf.export_hooks) --------------------------

def hold_for_export() -> None:
    """The exporter samples the scene with frame_set: it must see Blender's own evaluation."""
    hold("export")
    # An export that fails half-way never calls the post callback: release once it is over (the
    # next turn of the event loop). Not in background runs: no event loop runs timers there, and
    # the bpy module hangs at exit while a timer is registered. There, a failed export's hold
    # ends with the next toggle or file load.
    if not bpy.app.background and not bpy.app.timers.is_registered(_release_export):
        bpy.app.timers.register(_release_export, first_interval=0.0)


def release_after_export() -> None:
    release("export")


def _release_export() -> None:
    release("export")
    return None  # once


# --- saving, loading, undo ------------------------------------------------------------------------

# Blender calls the save and load handlers with (the .blend's path, None), undo and redo with
# (the scene, None): unused here.
@persistent
def on_save_pre(*args: str | None) -> None:
    hold("save")


@persistent
def on_save_post(*args: str | None) -> None:
    release("save")


@persistent
def on_load_post(*args: str | None) -> None:
    """A new file: nothing is held or applied any more, cached players belong to old data; a
    scene saved with the preview on plays it again at once."""
    _held.clear()
    _applied.clear()
    _seen.clear()
    _failures.clear()
    preview_clips.forget()
    _ensure_handlers()
    for scene in bpy.data.scenes:
        if is_on(scene):
            evaluate(scene)


@persistent
def on_undo_redo(*args: bpy.types.Scene | None) -> None:
    """Undo and redo reload data blocks: drop the cache and bring each scene's pose in line with
    its (restored) setting."""
    preview_clips.forget()
    for scene in bpy.data.scenes:
        if is_on(scene) or scene.session_uid in _applied:
            evaluate(scene)


# --- the toggle ------------------------------------------------------------------------------------

class GLTF_SQLERP_OT_preview_toggle(bpy.types.Operator):
    """Play imported glTF clips exactly as the file says (the core's evaluation on every frame
    change), or switch back to Blender's own F-curves"""

    bl_idname = "gltf_sqlerp.preview_toggle"
    bl_label = "Play glTF Exactly"
    # The toggle changes a scene setting saved with the .blend: undo restores it.
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        return context.scene is not None and settings(context.scene) is not None

    def execute(self, context: bpy.types.Context) -> set[str]:
        release("export")  # held by an export that failed half-way (see the export callbacks)
        scene = context.scene
        group = settings(scene)
        if scene is None or group is None:  # poll asks for both; a script's context may lack them
            self.report({'ERROR'}, "no scene with glTF preview settings")
            return {'CANCELLED'}
        group.enabled = not group.enabled
        refresh(scene)
        state = "on" if group.enabled else "off"
        self.report({'INFO'}, f"Play glTF Exactly: {state} ({group.source})")
        return {'FINISHED'}


# --- registration ---------------------------------------------------------------------------------

_HANDLERS = (
    ("frame_change_post", on_frame_change),
    ("save_pre", on_save_pre),
    ("save_post", on_save_post),
    ("save_post_fail", on_save_post),
    ("load_post", on_load_post),
    ("undo_post", on_undo_redo),
    ("redo_post", on_undo_redo),
    ("depsgraph_update_post", preview_exported.on_depsgraph_update),
)


_BUS_OWNER = object()


def watch_settings() -> None:
    """Subscribe on_settings_change to both settings (again after a file load, which drops
    message-bus subscriptions). Needs the settings' type registered (ui/preview_properties), found
    by name: operators never import ui."""
    bpy.msgbus.clear_by_owner(_BUS_OWNER)
    settings_type = getattr(bpy.types, "GLTF_SQLERP_PG_preview", None)
    if settings_type is not None:
        for name in ("enabled", "source"):
            bpy.msgbus.subscribe_rna(key=(settings_type, name), owner=_BUS_OWNER,
                                     args=(), notify=on_settings_change)


def unwatch_settings() -> None:
    # A subscription left behind makes the bpy module of Blender 4.2 crash at exit.
    bpy.msgbus.clear_by_owner(_BUS_OWNER)


def _ensure_handlers():
    for name, handler in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name, None)
        if handlers is not None and handler not in handlers:
            handlers.append(handler)
    watch_settings()


def register() -> None:
    _ensure_handlers()


def unregister() -> None:
    """Disabling the add-on restores Blender's own evaluation in every scene the preview posed."""
    for name, handler in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name, None)
        while handlers is not None and handler in handlers:
            handlers.remove(handler)
    unwatch_settings()
    while bpy.app.timers.is_registered(_release_export):  # the bpy module hangs at exit on one
        bpy.app.timers.unregister(_release_export)
    posed = [s for s in bpy.data.scenes if s.session_uid in _applied] if _applied else []
    _held.clear()
    _applied.clear()
    _seen.clear()
    _failures.clear()
    preview_clips.forget()
    for scene in posed:
        scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)
