"""The converter of whole glTF files without Blender: dense LINEAR rotations rewritten as
CUBICSLERP with a fallback (``convert``), planned in memory (``plan``, ``channels``, ``samplers``,
``world``) and written atomically with the files they reference (``files``)."""

from .converter import CONVERT_DEFAULTS, ConvertOptions, check_arguments, convert
from .files import external_uris

__all__ = ['CONVERT_DEFAULTS', 'ConvertOptions', 'check_arguments', 'convert', 'external_uris']
