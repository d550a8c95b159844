"""Blender operators: thin adapters that hand a file to ``core`` and build or report the result."""

import bpy

from .exporting import fitting as export_fitting
from .preview import live as preview
from .importing.check_file import GLTF_SQLERP_OT_check_file
from .clips import GLTF_SQLERP_OT_activate_clip
from .preview.deviation import GLTF_SQLERP_OT_add_keys, GLTF_SQLERP_OT_deviation_report
from .exporting.operator import EXPORT_SCENE_OT_gltf_sqlerp
from .importing.operator import IMPORT_SCENE_OT_gltf_sqlerp
from .preview.live import GLTF_SQLERP_OT_preview_toggle

classes = (
    GLTF_SQLERP_OT_check_file,
    GLTF_SQLERP_OT_activate_clip,
    GLTF_SQLERP_OT_deviation_report,
    GLTF_SQLERP_OT_add_keys,
    IMPORT_SCENE_OT_gltf_sqlerp,
    EXPORT_SCENE_OT_gltf_sqlerp,
    GLTF_SQLERP_OT_preview_toggle,
)

_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register():
    _register_classes()
    preview.register()  # the live preview's handlers (frame change, save, load, undo)


def unregister():
    preview.unregister()  # first: restores Blender's own evaluation where the preview posed
    export_fitting.release()  # fit processes an unfinished export started
    _unregister_classes()
