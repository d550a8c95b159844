"""Blender's side, in numpy: how Blender plays F-curves (``fcurves``; a channel's F-curve keys:
``blender_curves``) and rotation modes (``rotation_modes``), the keyframes that make it play a glTF
sampler within a tolerance (``keyframes``, ``keyframes_batch``, ``keyframes_joined``,
``curve_slopes``, ``import_plan``), how far an imported clip's sources play apart (``deviation``;
pointer properties against their reference: ``pointer_reference``) and the clip record kept on
imported Actions (``clip_record``, versioned). No bpy: the Blender layer hands plain arrays in."""

from . import deviation, pointer_reference, rotation_modes
from .clip_record import ChannelRecord, ClipRecord, CurveTarget, KEY, PointerRecord, RecordError, SamplerRecord
from .blender_curves import BlenderCurves, CurveKeys
from .deviation import target_name
from .pointer_reference import PointerDeviation, format_pointer_table, pointer_deviations, reference_values
from .import_plan import ImportSettings, chain_sums, plan_document, rotation_budgets
from .keyframes import Keyframes, keyframes_for
from .rotation_modes import DATA_PATHS, from_blender_quaternion, from_quaternions

__all__ = [
    'BlenderCurves', 'ChannelRecord', 'ClipRecord', 'CurveKeys', 'CurveTarget', 'DATA_PATHS',
    'ImportSettings', 'KEY', 'Keyframes', 'PointerDeviation', 'PointerRecord', 'RecordError',
    'SamplerRecord', 'chain_sums', 'deviation',
    'format_pointer_table', 'from_blender_quaternion', 'from_quaternions', 'keyframes_for', 'plan_document',
    'pointer_deviations', 'pointer_reference', 'reference_values', 'rotation_budgets',
    'rotation_modes', 'target_name'
]
