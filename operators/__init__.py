"""Blender operators: thin adapters that hand a file to ``core`` and build or report the result.

``importing/``, ``preview/`` and ``exporting/`` hold the three jobs; the modules here are what they
share: the clip record on Actions (``action_data``), the clip list (``clips``), an imported
clip's F-curves (``clip_curves``, ``fcurves``), all-or-nothing changes (``transaction``) and the
context's scene and window manager (``blender_context``).
"""

from collections.abc import Callable
from typing import cast

import bpy

from ..bundled_gltf import handlers as bundled_handlers
from . import action_data
from .clips import GLTF_SQLERP_OT_activate_clip, imported_clips
from .exporting import EXPORT_SCENE_OT_gltf_sqlerp, fitting
from .exporting import session as export_session
from .importing import GLTF_SQLERP_OT_check_file, IMPORT_SCENE_OT_gltf_sqlerp
from .importing import session as import_session
from .preview import (
    GLTF_SQLERP_OT_add_keys, GLTF_SQLERP_OT_deviation_report, GLTF_SQLERP_OT_preview_toggle, live,
)

__all__ = ['action_data', 'imported_clips', 'register', 'unregister']

classes = (
    GLTF_SQLERP_OT_check_file,
    GLTF_SQLERP_OT_activate_clip,
    GLTF_SQLERP_OT_deviation_report,
    GLTF_SQLERP_OT_add_keys,
    IMPORT_SCENE_OT_gltf_sqlerp,
    EXPORT_SCENE_OT_gltf_sqlerp,
    GLTF_SQLERP_OT_preview_toggle,
)

# (register, unregister): the stubs say None
_register_classes, _unregister_classes = cast(tuple[Callable[[], None], Callable[[], None]],
                                              bpy.utils.register_classes_factory(classes))


def register() -> None:
    _register_classes()
    live.register()  # the live preview's handlers (frame change, save, load, undo)
    # Whom the bundled add-on's hooks hand their views to (bundled_gltf never imports operators).
    bundled_handlers.register(importing=import_session, exporting=export_session, previewing=live)


def unregister() -> None:
    bundled_handlers.unregister()
    live.unregister()  # first of the rest: restores Blender's own evaluation where the preview posed
    fitting.release()  # fit processes an unfinished export started
    _unregister_classes()
