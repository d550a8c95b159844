"""The user extension and callbacks Blender's bundled glTF exporter looks up on the add-on.

The exporter makes a ``glTF2ExportUserExtension`` (the package root forwards the name here) for
each export, calls its ``gather_gltf_hook(..., animations, export_settings)`` once everything is
gathered and ``gather_gltf_extensions_hook(gltf, export_settings)`` just before the JSON is made,
and calls ``glTF2_pre_export_callback`` / ``glTF2_post_export_callback`` around a successful
export. Each unpacks the arguments and hands views to the handlers the operators registered
(``handlers``: ``operators.exporting.session`` and the live preview). The exporter logs and
swallows hook exceptions (versions: critical_hooks is not set), so nothing here raises: a failure
is the export's outcome.
"""

import traceback
from typing import Any

import bpy

from . import export_views, handlers
from .exported import ExportedScene, animation_pointers, meshopt
from .versions import applies


# The exporter's arguments are its own objects (io_scene_gltf2 has no types): Any below.
class glTF2ExportUserExtension:
    def __init__(self) -> None:
        self.handler = handlers.exporting()
        self.options = self.handler.start()

    def gather_gltf_hook(self, *args: Any) -> None:
        """(active_scene_idx, scenes, animations, export_settings) from 4.2 to 5.3; taken by
        position from the end so that a new leading argument does not break the export."""
        if self.options is None:
            return
        animations, export_settings = (args[-2], args[-1]) if len(args) >= 2 else (None, None)
        if not (isinstance(animations, list) and isinstance(export_settings, dict)):
            self.handler.fail(f"Blender {bpy.app.version_string}: gather_gltf_hook got unexpected "
                                f"arguments ({', '.join(type(a).__name__ for a in args)})")
            return
        if meshopt(export_settings):
            # Meshopt-compressed samplers hold their float bytes under a 16-bit accessor until
            # the file is written, and the file then requires an extension this add-on's reader
            # (and its checks of what it wrote) cannot read.
            self.handler.fail("EXT_animation_sqlerp is not written with meshopt compression: "
                                "turn compression off for CUBICSLERP rotations")
            return
        try:
            scene = ExportedScene(export_settings)
        except Exception as error:  # noqa: BLE001 - its tree or settings moved: said, not raised
            self.handler.fail(f"Blender {bpy.app.version_string}: the bundled exporter's node "
                                f"tree is not as expected ({type(error).__name__}: {error})")
            return
        self.handler.rewrite(animations, scene, self.options)
        # Our importer fails on a pointer sampler that shares its input with a TRS sampler
        # (docs: blender-notes), so inputs are shared only in files without pointer channels.
        if export_views.SHARE_INPUTS and not animation_pointers(export_settings):
            try:
                export_views.share_equal_inputs(animations)
            except Exception:  # noqa: BLE001 - each sampler keeps an input of its own
                traceback.print_exc()

    def gather_gltf_extensions_hook(self, *args: Any) -> None:
        """(gltf, export_settings): after gather_gltf_hook, before the JSON is made. Blender 5.2
        and later drop an idle KHR_materials_iridescence (factor or thickness 0, as every material
        with the importer's "glTF Material Output" group has, e.g. for an occlusion texture) in
        their JSON clean-up and, when they do, rebuild each animation's samplers from its
        channels' core ``sampler``: the CUBICSLERP samplers, referenced from the channel extension
        only, were dropped and the file did not read back (versions: iridescence_cleanup).
        Dropping the idle extension here, as that clean-up would, leaves it nothing to do.
        Then the buffer views of animation data are joined (export_views; versions:
        extensions_hook_after_buffer)."""
        if self.options is None or len(args) < 2:
            return
        gltf, export_settings = args[-2], args[-1]
        if applies("iridescence_cleanup"):
            try:
                drop_idle_iridescence(gltf, animation_pointers(export_settings))
            except Exception:  # noqa: BLE001 - at worst the clean-up runs as before
                traceback.print_exc()
        # Meshopt writes its own views (compressed, with a fallback buffer): left as they are.
        if export_views.MERGE_VIEWS and not meshopt(export_settings):
            try:
                export_views.merge_animation_views(gltf)
            except Exception:  # noqa: BLE001 - the views stay as the exporter made them
                traceback.print_exc()


def drop_idle_iridescence(gltf: Any, animation_pointers: bool) -> int:
    """Remove KHR_materials_iridescence from materials where it changes nothing (the bundled
    exporter's own rule: factor 0 or maximum thickness 0) unless animation pointers may animate
    it. By then the exporter holds extensions as plain dicts. Returns how many were removed."""
    if animation_pointers:
        return 0
    removed = 0
    for material in getattr(gltf, "materials", None) or []:
        extensions = getattr(material, "extensions", None)
        found = extensions.get("KHR_materials_iridescence") if isinstance(extensions, dict) else None
        data = found if isinstance(found, dict) else getattr(found, "extension", None)
        if isinstance(extensions, dict) and isinstance(data, dict) and (data.get("iridescenceFactor", 0.0) == 0.0
                                       or data.get("iridescenceThicknessMaximum", 400.0) == 0.0):
            del extensions["KHR_materials_iridescence"]
            removed += 1
    return removed


def glTF2_pre_export_callback(export_settings: dict[str, Any]) -> None:
    """The exporter samples the scene with frame_set: it must see Blender's own evaluation."""
    handlers.previewing().hold_for_export()


def glTF2_post_export_callback(export_settings: dict[str, Any]) -> None:
    handlers.previewing().release_after_export()
