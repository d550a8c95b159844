"""CUBICSLERP samplers for the rotation channels the bundled exporter gathered (its gather_gltf_hook).

For every rotation channel of a bone or object, the motion Blender plays is computed from the
action's keys (export_motion), mapped into glTF space, fitted with CUBICSLERP keys at the animator's
key times (core.sqlerp_fit) and hung off the channel as ``extensions.EXT_animation_sqlerp``; the
channel's own sampler becomes the chosen fallback (conventions section 3).

The map into glTF space is the exporter's own: it writes ``C · q_basis`` for bones (C its constant
rest correction) and ``X · C · q_basis · X⁻¹`` for objects (X the Y-up axis change). C is measured
from the exporter's per-frame samples of the same channel, and those samples also check the whole
emulation: a channel whose samples differ (constraints, drivers, NLA blending, a parent bone) keeps
what the bundled exporter wrote, and the outcome says why.
"""

from dataclasses import dataclass

import bpy
import numpy as np

from ..core import quaternions as quat
from ..core.fallback_fit import cubicspline_fallback, linear_fallback
from ..core.interpolation import evaluate
from ..core.metrics import SAMPLES_PER_FRAME
from ..core.sqlerp_fit import CubicSlerpFit, fit_cubicslerp
from . import export_accessors as gltf
from .export_motion import RotationMotion, rotation_motion
from .export_outcome import ChannelOutcome, Outcome
from .export_stored import stored_keys

# The bundled exporter's samples are float32 values of mathutils (float32) matrices.
AGREEMENT_DEG = 0.005
# The fit aims below the tolerance so that the written key times and values still keep it:
# float32 times move a key by up to 4e-6 s at 40 s; 16-bit normalized quaternion components move
# a rotation by up to 2 asin(2 x 0.5 / 32767) = 0.0035 degrees.
FIT_MARGIN = 0.9
QUANTIZATION_DEG = {"FLOAT": 0.0, "SHORT": 0.0035}
_Y_UP = np.array([-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])  # -90 degrees about X: Blender Z-up -> glTF Y-up
_BONE = 3  # VExportNode.BONE


def rewrite(animations, export_settings, options):
    """Add CUBICSLERP samplers to ``animations`` (the exporter's objects, changed in place)."""
    scene = bpy.context.scene
    timing = _Timing(scene.render.fps, scene.render.fps_base)
    outcome = Outcome()
    nodes = {id(vnode.node): (uuid, vnode) for uuid, vnode in export_settings["vtree"].nodes.items()
             if vnode.node is not None}
    inputs = {}  # id(accessor) -> (accessor, bundled times): shared accessors are fixed once
    for animation in animations:
        for sampler in animation.samplers:
            inputs.setdefault(id(sampler.input), (sampler.input, gltf.read(sampler.input)))
        for channel in list(animation.channels):
            if channel.target.path == "rotation" and channel.target.node is not None:
                outcome.channels.append(_channel(animation, channel, nodes, export_settings, options, timing))
    for accessor, times in inputs.values():
        timing.fix(accessor, times)
    return outcome


class _Timing:
    """The bundled exporter writes seconds = frame / (fps * fps_base); Blender's rate is
    fps / fps_base (the 29.97 preset is fps 30, base 1.001). Every input is rescaled to the real
    rate, so the channels the add-on leaves alone stay in step with its own."""

    def __init__(self, fps, fps_base):
        self.bundled_rate, self.rate = fps * fps_base, fps / fps_base

    def fix(self, accessor, bundled_times):
        if self.bundled_rate != self.rate and len(bundled_times):
            gltf.replace_times(accessor, bundled_times * self.bundled_rate / self.rate)


@dataclass
class _Target:
    """One channel's motion in glTF space: glTF q = a · q_basis · b at ``frame``."""
    motion: RotationMotion
    a: np.ndarray
    b: np.ndarray
    slide: float
    rate: float

    def frames(self, seconds):
        return np.asarray(seconds, dtype=np.float64) * self.rate + self.slide

    def __call__(self, seconds):
        return self.at_frames(self.frames(seconds))

    def at_frames(self, frames):
        return quat.multiply(quat.multiply(self.a, self.motion.at(frames)), self.b)


def _channel(animation, channel, nodes, export_settings, options, timing):
    uuid, vnode = nodes.get(id(channel.target.node), (None, None))
    name = getattr(channel.target.node, "name", "?")
    result = ChannelOutcome(animation.name, name)
    if vnode is None or vnode.blender_object is None:
        result.skipped = "not a Blender object or bone"
        return result
    bone = vnode.blender_bone.name if vnode.blender_type == _BONE and vnode.blender_bone else None
    owner_uuid = vnode.armature if bone else uuid
    bundled = animation.samplers[channel.sampler]
    reason = "no action plays it"
    # The animation's action: by name (4.4+), else by NLA track (4.2 names animations after
    # tracks), else the active one. Blender's own samples decide, so a wrong guess costs nothing.
    for action in _candidate_actions(vnode.blender_object, animation.name):
        motion = rotation_motion(vnode.blender_object, bone, action)
        if isinstance(motion, str):
            reason = motion
            continue
        target, reason = _measured_target(motion, bundled, vnode, bone, export_settings, owner_uuid,
                                          animation.name, timing)
        if target is not None:
            break
    else:
        result.skipped = reason
        return result
    frame_range = _frame_range(export_settings, owner_uuid, animation.name, target, action, motion)
    stored = stored_keys(action, vnode.blender_object, bone, target)
    _fit_channel(animation, channel, target, frame_range, options, result, stored)
    return result


def _candidate_actions(obj, name):
    animation = obj.animation_data
    candidates = [bpy.data.actions.get(name)]
    if animation is not None:
        candidates += [strip.action for track in animation.nla_tracks for strip in track.strips
                       if name in (track.name, strip.name)]
        candidates.append(animation.action)
    unique = []
    for action in candidates:
        if action is not None and action not in unique:
            unique.append(action)
    return unique


def _measured_target(motion, bundled, vnode, bone, export_settings, owner_uuid, action_name, timing):
    """The channel's _Target, with its constant ``a`` measured from the bundled samples, or
    (None, reason) when Blender's samples are not the emulated motion."""
    slide = export_settings.get("slide", {}).get(owner_uuid, {}).get(action_name, 0)
    times, values = gltf.read(bundled.input), gltf.read(bundled.output)
    if bundled.interpolation not in ("LINEAR", "STEP") or len(values) != len(times):
        return None, f"the bundled sampler is {bundled.interpolation} (sampling was off)"
    frames = times * timing.bundled_rate + slide
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    b = quat.conjugate(_Y_UP) if bone is None and export_settings.get("gltf_yup", True) else identity
    target = _Target(motion, identity, b, slide, timing.rate)
    played = target.at_frames(frames)
    # a = G · (P · b)^-1 per sample, averaged (signs aligned) against float32 noise.
    estimates = quat.multiply(values, quat.conjugate(played))
    estimates *= np.where(estimates @ estimates[0] < 0.0, -1.0, 1.0)[:, None]
    target.a = quat.normalize(estimates.mean(axis=0))
    worst = float(quat.angle_between(target.at_frames(frames), values).max())
    if worst > AGREEMENT_DEG:
        return None, (f"Blender plays something else than its keys ({worst:.3g} deg off: "
                      "constraints, drivers, NLA or a parent's motion)")
    return target, ""


def _frame_range(export_settings, owner_uuid, action_name, target, action, motion):
    """First and last frame of the curve: the bundled exporter's range, extended to a last key
    it drops (a fractional end frame), never before glTF time 0."""
    exported = export_settings.get("ranges", {}).get(owner_uuid, {}).get(action_name)
    if exported is not None:
        start, end = float(exported["start"]), float(exported["end"])
    else:
        start, end = (float(f) for f in action.frame_range) if action else (0.0, 0.0)
    keys = motion.key_frames
    if action is not None and len(keys):
        last = keys[keys <= float(action.frame_range[1]) + 1e-6]
        if len(last):
            end = max(end, float(last[-1]))
    return max(start, target.slide), end


def _fit_channel(animation, channel, target, frame_range, options, result, stored=None):
    start, end = frame_range
    if end <= start:
        result.skipped = "the range is a single frame"
        return
    keys = target.motion.key_frames
    key_frames = np.unique(np.concatenate([[start, end], keys[(keys > start) & (keys < end)]]))
    check_frames = np.unique(np.concatenate(
        [np.arange(start, end, 1.0 / SAMPLES_PER_FRAME), [end], key_frames]))
    key_times = _float32((key_frames - target.slide) / target.rate)
    check_times = (check_frames - target.slide) / target.rate
    expected = target(check_times)
    fit, precision, played = _written_fit(target, key_times, check_times, expected, options, stored)
    result.keys, result.max_error_deg = len(fit.times), float(quat.angle_between(played, expected).max())
    result.kept = fit.max_error_deg < 0.0
    index = len(animation.samplers)
    animation.samplers.append(gltf.sampler(gltf.accessor(fit.times, bounds=True),
                                           gltf.accessor(fit.interleaved(), short=precision == "SHORT"),
                                           "CUBICSLERP"))
    fallback = fallback_sampler(as_written(fit, precision), check_times, options)
    if fallback is not None:
        animation.samplers[channel.sampler] = fallback
        result.fallback_keys = fallback.input.count
        # Its own tolerance is against the CUBICSLERP curve as written (conventions section 3).
        result.fallback_error_deg = _fallback_error(fallback, check_times, played)
    else:
        result.fallback_keys = animation.samplers[channel.sampler].input.count
    extensions = dict(channel.extensions or {})
    extensions[gltf.EXTENSION_NAME] = gltf.sqlerp_extension(index, required=options.fallback == "NONE")
    channel.extensions = extensions


def _written_fit(target, key_times, check_times, expected, options, stored):
    """(fit, the precision it is written in, what the written data plays at check_times): the
    stored keys when they still hold (written as floats: a re-export keeps them to float32), else
    a fit aimed below the tolerance by the written precision's error; should the written data
    still miss (rare: float32 times on fast motion), fitted once more at half the aim."""
    tolerance = options.tolerance_deg
    fit = _kept(stored, check_times, expected, tolerance)
    if fit is not None:
        return fit, "FLOAT", _played(fit, "FLOAT", check_times)
    aim = (tolerance - QUANTIZATION_DEG[options.precision]) * FIT_MARGIN
    for attempt in range(2):
        fit = fit_cubicslerp(target, key_times, check_times, aim, check_values=expected)
        played = _played(fit, options.precision, check_times)
        if quat.angle_between(played, expected).max() <= tolerance or attempt:
            return fit, options.precision, played
        aim *= 0.5


def _played(fit, precision, check_times):
    return evaluate("CUBICSLERP", _float32(fit.times), _decoded(fit.interleaved(), precision), check_times,
                    rotation=True)


def as_written(fit, precision):
    """The fit with the times and quaternions a reader of the file gets: the fallbacks follow
    the curve as written."""
    rows = _decoded(fit.interleaved(), precision).reshape(-1, 3, 4)
    return CubicSlerpFit(_float32(fit.times), rows[:, 0], rows[:, 1], rows[:, 2], fit.max_error_deg)


def _decoded(values, precision):
    """Quaternion components as a reader gets them back from the file (glTF 2.0 3.11: a
    normalized short c decodes to max(c / 32767, -1))."""
    if precision == "SHORT":
        return np.maximum(np.round(np.asarray(values) * 32767.0), -32767.0) / 32767.0
    return _float32(values)


def _kept(stored, check_times, expected, tolerance_deg):
    """The stored CUBICSLERP keys as a CubicSlerpFit when Blender still plays them within the
    tolerance (the clip was not edited since its import), else None."""
    if stored is None:
        return None
    times, values = stored
    if len(times) < 2 or np.any(np.diff(times) <= 0.0) or times[0] < 0.0:
        return None
    played = evaluate("CUBICSLERP", _float32(times), _float32(values), check_times, rotation=True)
    if quat.angle_between(played, expected).max() > tolerance_deg:
        return None
    v = quat.make_continuous(values[1::3])
    a, b = _same_side(values[0::3], v), _same_side(values[2::3], v)
    a[0], b[-1] = v[0], v[-1]  # never used; written as the conventions say (section 2)
    if np.any(np.einsum("ij,ij->i", b[:-1], a[1:]) < 0.0):
        return None  # the 4th sign rule fails: fitted anew, with a split key
    return CubicSlerpFit(times, a, v, b, max_error_deg=-1.0)  # -1: kept, not fitted


def _same_side(q, v):
    """Tangents flipped to the side of their key (sign rules 2 and 3: the same rotations)."""
    return q * np.where(np.einsum("ij,ij->i", q, v) < 0.0, -1.0, 1.0)[:, None]


def fallback_sampler(fit, check_times, options):
    """The channel's new core sampler, or None to keep the bundled exporter's per-frame one."""
    if options.fallback == "LINEAR":
        times, values = linear_fallback(fit, check_times, options.fallback_tolerance_deg)
        return gltf.sampler(gltf.accessor(times, bounds=True), gltf.accessor(values), "LINEAR")
    if options.fallback == "CUBICSPLINE":
        times, values, _ = cubicspline_fallback(fit, check_times)
        return gltf.sampler(gltf.accessor(times, bounds=True), gltf.accessor(values), "CUBICSPLINE")
    if options.fallback == "NONE":
        # The schema needs channel.sampler: one STEP key holding v_1 (conventions section 3).
        return gltf.sampler(gltf.accessor(fit.times[:1], bounds=True), gltf.accessor(fit.values[:1]), "STEP")
    return None


def _fallback_error(sampler, check_times, expected):
    times, values = gltf.read(sampler.input), gltf.read(sampler.output)
    played = evaluate(sampler.interpolation, np.atleast_1d(times), values.reshape(-1, 4), check_times,
                      rotation=True)
    return float(quat.angle_between(played, expected).max())


def _float32(values):
    return np.asarray(values, dtype=np.float32).astype(np.float64)
