"""The user extension Blender's bundled glTF importer instantiates, and the hooks it calls.

The importer looks up ``glTF2ImportUserExtension`` on every enabled add-on module (the package
root forwards the name here), makes one before it parses a file, and calls its hooks as
``hook(*args, gltf)``. Each hook here unpacks the arguments, wraps ``gltf`` in an
``imported.ImportedScene`` and hands that to the import handler the operators registered
(``handlers.importing()``: ``operators.importing.session``), which does the work.

An exception escaping a hook crashes the importer's error logger and aborts the import half-way
(versions: hook_errors_crash_logger), so each hook catches everything and records it on the
session; the operator rolls the scene back when anything failed.
"""

from collections import namedtuple
from typing import Any

from ..core import EXTENSION_NAME
from . import bone_children, draft_form, handlers
from .imported import ImportedScene

# The importer accepts a file that requires an extension when a user extension declares it
# (it reads ``.name`` and ``.required``), so a plain record is enough on every Blender version.
_Declared = namedtuple("_Declared", "name extension required")


class glTF2ImportUserExtension:
    """Instantiated by the bundled importer for every enabled add-on module that exposes it. Its
    arguments are its own objects (io_scene_gltf2 has no types): Any below."""

    def __init__(self) -> None:
        self.handler = handlers.importing()
        self.session = self.handler.current()
        self.anim_idx = -1  # the animation the importer builds
        # Declare the extension only when we will handle it: otherwise a file that requires it
        # would pass the importer's check and then crash it, instead of being refused cleanly.
        wanted = self.handler.exact_wanted()
        self.extensions = [_Declared(EXTENSION_NAME, {}, True)] if wanted else []
        if wanted:
            # Made just before the importer parses the file: the draft form needs help there.
            draft_form.patch_next_parse()

    def gather_import_gltf_before_hook(self, gltf: Any) -> None:
        draft_form.unpatch()
        if self.session is None:
            self.session = self.handler.session_for_bundled_dialog(ImportedScene.of(gltf))

    def gather_import_scene_after_nodes_hook(self, *args: Any) -> None:
        if self.session is None:
            return
        try:
            bone_children.place_at_bone_heads(args[-1])
        except Exception:  # noqa: BLE001 - recorded; a raised one would abort the import half-way
            self.session.fail("placing objects parented to bones")
        try:
            self.handler.bind_rig(self.session, ImportedScene.of(args[-1]))
        except Exception:  # noqa: BLE001 - recorded; a raised one would abort the import half-way
            self.session.fail("matching the file with the rig")

    # The animation hooks take (anim_idx, ..., gltf) from 4.2 to 5.3; read by position from both
    # ends so that an argument added in between does not break the import.
    def gather_import_animation_before_hook(self, *args: Any) -> None:
        if self.session is None:
            return
        anim_idx, gltf = args[0], args[-1]
        self.anim_idx = anim_idx
        try:
            self.handler.prepare_animation(self.session, ImportedScene.of(gltf), anim_idx)
        except Exception:  # noqa: BLE001 - recorded; a raised one would abort the import half-way
            self.session.fail(f"preparing animation {anim_idx}")

    def gather_import_animation_pointer_channel_before_hook(self, *args: Any) -> None:
        """(animation, channel, gltf): the importer starts a KHR_animation_pointer channel."""
        if self.session is None:
            return
        try:
            self.handler.pointer_channel_starts(self.session, ImportedScene.of(args[-1]), self.anim_idx, args[-2])
        except Exception:  # noqa: BLE001 - recorded; a raised one would abort the import half-way
            self.session.fail("following a pointer channel")

    def decode_accessor_before_hook(self, accessor: Any, array: Any, gltf: Any) -> None:
        """Blender 5.2+: answer the animation's reads with placeholder keys (versions:
        decode_accessor_hook). Called for every accessor decoded, so it only looks up."""
        if self.session is None:
            return
        try:
            data = ImportedScene.of(gltf).placeholder_for(accessor)
            if data is not None:
                array.value = data
        except Exception:  # noqa: BLE001 - recorded; a raised one would abort the import half-way
            self.session.fail("reading an accessor")

    def gather_import_scene_after_animation_hook(self, *args: Any) -> None:
        """After every animation: a bundled-dialog import onto the rig is finished here."""
        if self.session is None:
            return
        try:
            self.handler.finish_bundled_onto(self.session, ImportedScene.of(args[-1]))
        except Exception:  # noqa: BLE001 - recorded; a raised one would abort the import half-way
            self.session.fail("adding the clips to the rig")

    def gather_import_animation_after_hook(self, *args: Any) -> None:
        session = self.session
        if session is None:
            return
        anim_idx, track_name, gltf = args[0], args[1], args[-1]
        scene = ImportedScene.of(gltf)
        scene.animation_done()
        try:
            self.handler.rewrite_animation(session, scene, anim_idx, track_name)
            session.animations_done += 1
        except Exception:  # noqa: BLE001 - recorded; a raised one would abort the import half-way
            session.fail(f"animation {anim_idx} '{track_name}'")
