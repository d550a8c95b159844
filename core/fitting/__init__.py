"""Fitting what an export writes: CUBICSLERP keys to a motion (``sqlerp_fit``, ``sqlerp_segments``,
``sqlerp_tangents``), their core-spec fallbacks (``fallback_fit``, ``fallback_forms``), one rotation
channel's whole export (``rotation_export``, ``channel_motion``, ``screening``, ``stored_keys``) and
what it writes (``channel_keys``), or a CUBICSPLINE sampler alone (``spline_alone``,
``hermite_tangents``), fewer LINEAR, translation, scale and weight keys (``linear_reduction``,
``vector_reduction``, ``property_export``), animation pointer keys and their shared inputs
(``pointer_export``), the keys an import gives pointer properties (``pointer_samples``), world-space
tolerances along chains (``world_error``, ``world_correction``) and the sample's fallback
(``sample_fallback``), what written keys play (``played_keys``); a motion Blender evaluated,
sampled (``sampled_motion``), and what glTF cannot hold of it (``shear``)."""

from .channel_motion import (
    AGREEMENT_DEG, ChannelTarget, ChannelTask, RotationMotion, SampleCheck, disagreement,
)
from .property_export import (
    PATHS, ancestor_scales, chain_budgets, channel_tolerance, model_size, spread_of,
    total_tolerance,
)
from . import pointer_samples
from .pointer_export import input_bytes, join_key_sets, pointer_tolerance
from .fallback_forms import QUATERNION_BYTES, TIME_BYTES
from .channel_keys import ChannelKeys
from .rotation_export import ExportOptions, FIT_MARGIN, check_grid, export_keys
from .sqlerp_fit import FIT_DEFAULTS, CubicSlerpFit, FitOptions, fit_cubicslerp
from .played_keys import keys_player, sampler_player
from .sampled_motion import SampledMotion, sample_frames
from .shear import unheld_deg
from .vector_reduction import check_counts, reduce_vectors
from .world_correction import WorldCorrection
from .world_error import above, chain_shares, compose, tightened_shares, world_errors

__all__ = [
    'AGREEMENT_DEG', 'QUATERNION_BYTES', 'TIME_BYTES', 'ChannelKeys',
    'ChannelTarget', 'ChannelTask', 'CubicSlerpFit', 'ExportOptions',
    'FIT_DEFAULTS', 'FIT_MARGIN', 'FitOptions', 'PATHS', 'RotationMotion', 'SampleCheck', 'SampledMotion',
    'WorldCorrection', 'above', 'ancestor_scales', 'chain_budgets', 'chain_shares', 'channel_tolerance',
    'check_counts', 'check_grid', 'compose', 'disagreement', 'export_keys', 'fit_cubicslerp', 'input_bytes',
    'join_key_sets', 'keys_player',
    'model_size', 'pointer_samples', 'pointer_tolerance', 'reduce_vectors',
    'sample_frames', 'sampler_player', 'spread_of', 'tightened_shares', 'total_tolerance', 'unheld_deg', 'world_errors'
]
