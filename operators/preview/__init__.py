"""Previewing and measuring imported clips: the live "Play glTF Exactly" preview (``live``, with
``clips``, ``exported`` and ``write``) and the deviation report with "Add Keys" (``deviation``)."""

from . import deviation, live
from .deviation import GLTF_SQLERP_OT_add_keys, GLTF_SQLERP_OT_deviation_report, pointer_report, report
from .live import GLTF_SQLERP_OT_preview_toggle, refresh

__all__ = [
    'GLTF_SQLERP_OT_add_keys', 'GLTF_SQLERP_OT_deviation_report', 'GLTF_SQLERP_OT_preview_toggle',
    'deviation', 'live', 'pointer_report', 'refresh', 'report', 'world_fidelity'
]
