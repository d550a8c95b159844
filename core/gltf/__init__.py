"""The glTF file format: reading a .gltf or .glb (``file``), its accessors as numpy arrays
(``accessors``), the validator (``validation/``, Khronos glTF-Validator's codes and JSON pointers
plus the EXT_animation_sqlerp checks), writing documents and buffers (``writer``), dropping
unreferenced data (``compaction``) and joining animation data's buffer views (``view_merge``).
Errors are ``GltfError`` with ``Finding`` objects (``errors``). Nothing here evaluates animation."""

from .accessors import COMPONENT_TYPES, TYPE_SIZES, as_stored, read_accessor
from .animation_pointer import node_target, pointer_text
from .compaction import compact, unknown_extensions, unknown_names
from .errors import ERROR, Finding, GltfError, pointer
from .file import CHUNK_BIN, CHUNK_JSON, GLB_MAGIC, GltfFile, parse_json_only, read_file, read_relative_uri
from .view_merge import COMPONENT_SIZES, AccessorUse, View, ViewMerge, plan_merge
from .writer import BufferBuilder, write_atomic

__all__ = [
    'AccessorUse', 'BufferBuilder', 'CHUNK_BIN', 'CHUNK_JSON', 'COMPONENT_SIZES', 'COMPONENT_TYPES', 'ERROR',
    'Finding', 'GLB_MAGIC', 'GltfError', 'GltfFile', 'TYPE_SIZES', 'View', 'ViewMerge', 'as_stored', 'compact',
    'node_target', 'parse_json_only', 'plan_merge', 'pointer', 'pointer_text', 'read_accessor', 'read_file',
    'read_relative_uri', 'unknown_extensions', 'unknown_names', 'write_atomic'
]
