"""Exporting with CUBICSLERP rotations: the ``export_scene.gltf_sqlerp`` operator (``operator``),
the add-on's side of every bundled export (``session``, ``outcome``), reading Blender's motion
(``motion``, ``stored``, ``headstart``), fitting it on every core (``fitting``, ``rotations``,
``world``) and fewer keys for the other channels (``compaction``, ``extent``)."""

from . import fitting, options, session
from .motion import rotation_motion
from .operator import EXPORT_SCENE_OT_gltf_sqlerp, ExportFailed, export
from ...core.fitting import ExportOptions
from .outcome import bundled_rewrite
from .session import ExportSettingsGroup, export_settings, options_from

__all__ = [
    'EXPORT_SCENE_OT_gltf_sqlerp', 'ExportFailed', 'ExportOptions', 'ExportSettingsGroup', 'bundled_rewrite', 'export',
    'export_settings', 'fitting', 'options', 'options_from', 'rotation_motion', 'session'
]
