"""What the glTF spec plays: sampler interpolation (STEP, LINEAR, CUBICSPLINE, CUBICSLERP) for
whole arrays of times (``interpolation``, with the key segments of ``segments`` and the slerp arcs
of ``arcs``), unit quaternions (``quaternions``, their squared chords in ``chords`` and
matrices in ``rotation_matrices``), animations and channels with
EXT_animation_sqlerp wired in (``animation``), the node hierarchy (``scene``, its forest in
``node_tree``, rest pose in ``rest_pose``, vertices in ``skinning``), every channel of a
clip at once (``pose_player`` and its ``pose_kernels``), where a CUBICSLERP curve jumps
(``sqlerp_jumps``) and the angle measure of spec "Error measure" (``metrics``)."""

from . import chords, quaternions, rotation_matrices
from .animation import Animation, Channel, Sampler, read_animations
from .arcs import Arcs, Gather, nearer_end, turned
from .interpolation import CHUNK, Evaluator, evaluate, slerp_keys
from .metrics import SAMPLES_PER_FRAME, dense_times
from .node_tree import depth_levels
from .pointer_channels import PointerChannel
from .pose_player import PosePlayer
from .quaternions import angle_between, make_continuous, normalize
from .scene import Scene
from .segments import nearest_index, segment_index, segment_parameters
from .sqlerp_jumps import brackets, jump_times, jumping_segments

__all__ = [
    'angle_between', 'Animation', 'Arcs', 'brackets', 'Channel', 'chords', 'CHUNK', 'dense_times',
    'depth_levels', 'evaluate', 'Evaluator', 'Gather', 'jump_times', 'jumping_segments',
    'make_continuous', 'nearer_end', 'nearest_index', 'normalize', 'PointerChannel', 'PosePlayer',
    'quaternions', 'read_animations', 'rotation_matrices', 'Sampler', 'SAMPLES_PER_FRAME', 'Scene',
    'segment_index', 'segment_parameters', 'slerp_keys', 'turned'
]
