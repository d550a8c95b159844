"""CUBICSLERP samplers for the rotation channels the bundled exporter gathered (its gather_gltf_hook).

For every rotation channel of a bone or object, the motion Blender plays is computed from the
action's keys (export_motion), mapped into glTF space, fitted with CUBICSLERP keys at the animator's
key times with the chosen fallback (core.rotation_export, all channels at once on every core:
export_fitting) and hung off the channel as ``extensions.EXT_animation_sqlerp``; the channel's own
sampler becomes the fallback (conventions section 3).

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
from ..core.channel_motion import AGREEMENT_DEG, ChannelTarget, ChannelTask, disagreement
from . import export_accessors as gltf
from .export_fitting import ChannelFits
from .export_motion import rotation_motion
from .export_outcome import ChannelOutcome, Outcome
from .export_stored import stored_keys

# Samples of the bundled exporter's that pick the action and measure the map here; the fit checks
# all of them against the dense check's values (core.channel_motion.ChannelTask.samples), where
# they cost next to nothing instead of a second emulation of the motion at every frame.
PICKED_SAMPLES = 64
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
    jobs = []
    with ChannelFits(options) as fits:  # fitting starts while the next channels are read
        for animation in animations:
            for sampler in animation.samplers:
                inputs.setdefault(id(sampler.input), (sampler.input, gltf.read(sampler.input)))
            for channel in list(animation.channels):
                if channel.target.path == "rotation" and channel.target.node is not None:
                    result, job = _channel(animation, channel, nodes, export_settings, timing)
                    outcome.channels.append(result)
                    if job is not None:
                        jobs.append(job)
                        fits.add(job.task)
        fitted = fits.results()
    for job, keys in zip(jobs, fitted):
        job.write(keys, options)
    for accessor, times in inputs.values():
        timing.fix(accessor, times)
    return outcome


class _Timing:
    """The bundled exporter writes seconds = frame / (fps * fps_base); Blender's rate is
    fps / fps_base (the 29.97 preset is fps 30, base 1.001). Every input is rescaled to the real
    rate, so the channels the add-on leaves alone stay in step with its own: KHR_animation_pointer
    ones too, which the exporter times alike (its data sampler's frame / fps is not what it
    writes; measured in both animation modes that write them, 4.2 to 5.0)."""

    def __init__(self, fps, fps_base):
        self.bundled_rate, self.rate = fps * fps_base, fps / fps_base

    def fix(self, accessor, bundled_times):
        if self.bundled_rate != self.rate and len(bundled_times):
            gltf.replace_times(accessor, bundled_times * self.bundled_rate / self.rate)


def _channel(animation, channel, nodes, export_settings, timing):
    """(ChannelOutcome, the channel's _Job or None when it keeps the bundled sampler)."""
    uuid, vnode = nodes.get(id(channel.target.node), (None, None))
    name = getattr(channel.target.node, "name", "?")
    result = ChannelOutcome(animation.name, name)
    if vnode is None or vnode.blender_object is None:
        result.skipped = "not a Blender object or bone"
        return result, None
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
        target, samples, reason = _measured_target(motion, bundled, vnode, bone, export_settings,
                                                   owner_uuid, animation.name, timing)
        if target is not None:
            break
    else:
        result.skipped = reason
        return result, None
    start, end = _frame_range(export_settings, owner_uuid, animation.name, target, action, motion)
    if end <= start:
        result.skipped = "the range is a single frame"
        return result, None
    stored = stored_keys(action, vnode.blender_object, bone, target)
    return result, _Job(animation, channel, ChannelTask(target, start, end, stored, samples), result)


@dataclass
class _Job:
    """One channel to fit: its Blender-free task, and where ``write`` puts the result."""
    animation: object
    channel: object
    task: ChannelTask
    result: ChannelOutcome

    def write(self, keys, options):
        """The CUBICSLERP sampler, the extension on the channel, the fallback in its sampler."""
        animation, channel, result, fit = self.animation, self.channel, self.result, keys.fit
        if keys.skipped:  # Blender's samples showed another motion: the bundled sampler stays
            result.skipped = keys.skipped
            return
        result.keys, result.max_error_deg = len(fit.times), fit.max_error_deg
        result.kept = keys.precision == "KEPT"
        index = len(animation.samplers)
        output = gltf.accessor(fit.interleaved(), short=keys.precision == "SHORT")
        animation.samplers.append(gltf.sampler(gltf.accessor(fit.times, bounds=True), output, "CUBICSLERP"))
        if keys.fallback is not None:
            interpolation, times, values = keys.fallback
            output = gltf.accessor(values, short=keys.fallback_precision == "SHORT")
            animation.samplers[channel.sampler] = gltf.sampler(gltf.accessor(times, bounds=True), output,
                                                               interpolation)
            result.fallback_error_deg = keys.fallback_error_deg
        result.fallback_keys = animation.samplers[channel.sampler].input.count
        extensions = dict(channel.extensions or {})
        extensions[gltf.EXTENSION_NAME] = gltf.sqlerp_extension(index, required=options.fallback == "NONE")
        channel.extensions = extensions


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
    """(the channel's ChannelTarget, with its constant ``a`` measured from the bundled samples;
    the samples as (frames, values) for the fit's check of them all; ""), or (None, None, reason)
    when the samples picked here are not the emulated motion (another action plays, say)."""
    slide = export_settings.get("slide", {}).get(owner_uuid, {}).get(action_name, 0)
    times, values = gltf.read(bundled.input), gltf.read(bundled.output)
    if bundled.interpolation not in ("LINEAR", "STEP") or len(values) != len(times):
        return None, None, f"the bundled sampler is {bundled.interpolation} (sampling was off)"
    if not len(times):
        return None, None, "the bundled sampler has no keys"
    frames = times * timing.bundled_rate + slide
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    b = quat.conjugate(_Y_UP) if bone is None and export_settings.get("gltf_yup", True) else identity
    target = ChannelTarget(motion, identity, b, slide, timing.rate)
    picked = np.unique(np.linspace(0, len(frames) - 1, min(len(frames), PICKED_SAMPLES)).astype(np.intp))
    played, seen = target.at_frames(frames[picked]), values[picked]
    # a = G · (P · b)^-1 per sample, averaged (signs aligned) against float32 noise.
    estimates = quat.multiply(seen, quat.conjugate(played))
    estimates *= np.where(estimates @ estimates[0] < 0.0, -1.0, 1.0)[:, None]
    target.a = quat.normalize(estimates.mean(axis=0))
    # a · (P · b): the motion once, a the constant on the left.
    worst = float(quat.chord2_to_degrees(quat.chord2(quat.multiply(target.a, played), seen).max()))
    if worst > AGREEMENT_DEG:
        return None, None, disagreement(worst)
    return target, (frames, values), ""


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
