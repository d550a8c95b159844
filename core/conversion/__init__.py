"""The converter of whole glTF files without Blender: dense LINEAR rotations rewritten as
CUBICSLERP with a fallback (``convert``), planned in memory (``plan``, ``channels``, ``samplers``,
``world``) and written atomically with the files they reference (``files``)."""

from .converter import DEFAULT_FALLBACK_TOLERANCE_DEG, DEFAULT_TOLERANCE_DEG, check_arguments, convert
from .files import external_uris

__all__ = [
    'DEFAULT_FALLBACK_TOLERANCE_DEG', 'DEFAULT_TOLERANCE_DEG', 'check_arguments', 'convert',
    'external_uris'
]
