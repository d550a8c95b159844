"""CUBICSLERP samplers for the rotation channels the bundled exporter gathered (its gather_gltf_hook).

For every rotation channel of a bone or object, the motion Blender plays is computed from the
action's keys (export_motion), mapped into glTF space, fitted with CUBICSLERP keys at the animator's
key times with the chosen fallback (core.fitting.rotation_export, all channels at once on every core:
export_fitting) and hung off the channel as ``extensions.EXT_animation_sqlerp``; the channel's own
sampler becomes the fallback (spec "Channel forms").

The map into glTF space is the exporter's own: it writes ``C · q_basis`` for bones (C its constant
rest correction) and ``X · C · q_basis · X⁻¹`` for objects (X the Y-up axis change). C comes from the
rest pose (export_headstart.rest_correction) when the exporter's per-frame samples of the channel
agree with it, else it is measured from them; those samples also check the whole emulation: a
channel whose samples differ (constraints, drivers, NLA blending, a parent bone) keeps what the
bundled exporter wrote, and the outcome says why. Channels predicted at the export's start were
fitted while the exporter gathered (export_fitting.HeadStart); they keep those keys when their task
is the one predicted.
"""

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import bpy
import numpy as np

from ...core.sampling import chords
from ...core.sampling import quaternions as quat
from ...core.fitting import QUATERNION_BYTES, TIME_BYTES
from ...core.fitting import AGREEMENT_DEG, ChannelKeys, ChannelTarget, ChannelTask, ExportOptions, disagreement
from ...bundled_gltf import export_accessors as gltf
from .fitting import ChannelFits
from .headstart import TaskKey, frame_range, rest_correction, unique_actions
from .motion import rotation_motion
from . import blender_samples
from .blender_samples import SAMPLED_MODES, SampleRequest
from ..blender_context import current_scene
from .outcome import ChannelOutcome, Outcome
from .stored import stored_keys
from .timing import Timing
from .world import AnimationWorld, hold
from ...core import CUBICSLERP

if TYPE_CHECKING:
    from ...bundled_gltf import exported as bundled_exported

# What a channel fitted on the way down the tree holds until then (export_world.hold).
PENDING = ChannelKeys(None, "", skipped="not fitted yet")
# Samples of the bundled exporter's that measure the map here (all of them are checked against it;
# the fit checks them again against the dense check's values: core.fitting.channel_motion.ChannelTask.samples).
PICKED_SAMPLES = 64


def rewrite(animations: list[Any], scene: "bundled_exported.ExportedScene", options: ExportOptions,
            idle: Iterator[bool] | None = None) -> Outcome:
    """Add CUBICSLERP samplers to ``animations`` (the bundled exporter's animation objects, which
    have no types; changed in place). ``idle``: steps of other work (export_compaction.Reductions)
    taken while the pass down the tree waits for its fits."""
    render = current_scene().render
    timing = Timing(render.fps, render.fps_base)
    outcome = Outcome()
    # id(accessor) -> (accessor, bundled times): shared accessors are fixed once
    inputs: dict[int, tuple[Any, np.ndarray]] = {}
    jobs: list[Job] = []
    later: list[_Sampled] = []  # channels Blender is sampled for, all at once
    with ChannelFits(options) as fits:
        for animation in animations:
            for sampler in animation.samplers:
                inputs.setdefault(id(sampler.input), (sampler.input, gltf.read(sampler.input)))
            for channel in list(animation.channels):
                if channel.target.path != "rotation" or channel.target.node is None:
                    continue
                result, job = _channel(animation, channel, scene, timing, fits)
                outcome.channels.append(result)
                if isinstance(job, _Sampled):
                    later.append(job)
                elif job is not None:
                    jobs.append(job)
        sampled, unheld = _sampled_jobs(later, scene, timing) if later else ([], {})
        jobs += sampled
        worlds = _worlds(animations, jobs, scene, timing, options)
        # With world space on, a channel under an animated node is fitted once, on the way down
        # the tree, to its correction: a fit without it would be thrown away (most of them were).
        # Not STEP keys (constant F-curves): a correction would turn them into a curve of keys.
        pending = {w.positions[j] for w in worlds for j in w.under_animated()
                   if not w.jobs[j].task.target.motion.stepped()} if options.world_space else set()
        added = [position for position in range(len(jobs)) if position not in pending]
        for position in added:
            fits.add(jobs[position].task, jobs[position].key)
        first = iter(fits.results())
        fitted = [PENDING if position in pending else next(first) for position in range(len(jobs))]
        refitted, outcome.world_error_deg, outcome.fallback_world_error_deg = hold(
            worlds, jobs, fitted, options, fits, pending, idle)
    early = {added[index] for index in fits.early}  # the head start's keys, by job position
    uses = Counter(id(sampler.input) for animation in animations for sampler in animation.samplers)
    shared: dict[int, _Inputs] = {}  # id(animation) -> _Inputs: equal key times share one accessor per animation
    for position, (job, keys) in enumerate(zip(jobs, fitted)):
        job.result.head_start = position in early and position not in refitted
        job.result.refitted = position in refitted
        bundled_input = job.animation.samplers[job.channel.sampler].input
        known = shared.setdefault(id(job.animation), _Inputs())
        known.add(bundled_input, timing.written(inputs[id(bundled_input)][1]))
        job.result.bytes, job.result.bundled_bytes = keys.file_bytes, _bundled_bytes(job, uses)
        job.write(keys, options, known)
    _unheld(worlds, unheld, options, outcome)
    for accessor, times in inputs.values():
        timing.fix(accessor, times)
    return outcome


def _unheld(worlds, unheld, options, outcome):
    """Channels whose node's world rotation glTF cannot hold within the tolerance (shear, its
    figure ``unheld``: export_blender_samples.sample) once the fit's own world error there is
    added: named with that sum, and the world maxima raised to it, so that they are the file's."""
    worst, worst_fallback = 0.0, 0.0
    for world in worlds:
        for job in world.jobs:
            degrees = unheld.get((job.key[0], job.key[1]), 0.0)
            if not degrees:
                continue
            fitted, fallback = job.result.max_error_deg, job.result.fallback_error_deg
            if options.world_space:
                n = world.index[id(job.channel.target.node)]
                fitted, fallback = float(world.errors[n]), float(world.fallback_errors[n])
            if degrees + fitted > options.tolerance_deg:
                job.result.unheld_deg = degrees + fitted
                worst, worst_fallback = max(worst, degrees + fitted), max(worst_fallback, degrees + fallback)
    if worst and outcome.world_error_deg is not None:
        outcome.world_error_deg = max(outcome.world_error_deg, worst)
    if worst and outcome.fallback_world_error_deg is not None:
        outcome.fallback_world_error_deg = max(outcome.fallback_world_error_deg, worst_fallback)


def _worlds(animations, jobs, scene, timing, options):
    """An export_world.AnimationWorld per animation with jobs."""
    worlds = []
    for animation in animations:
        positions = [p for p, job in enumerate(jobs) if job.animation is animation]
        if positions:
            worlds.append(AnimationWorld(animation, [jobs[p] for p in positions], positions, scene,
                                         timing, options))
    return worlds


def _channel(animation, channel, scene, timing, fits):
    """(ChannelOutcome, the channel's Job or None when it keeps the bundled sampler)."""
    node = scene.by_gltf_node(channel.target.node)
    name = getattr(channel.target.node, "name", "?")
    result = ChannelOutcome(animation.name, name)
    if node is None or node.blender_object is None:
        result.skipped = "not a Blender object or bone"
        return result, None
    bone = node.bone_name
    bundled = animation.samplers[channel.sampler]
    reason = "no action plays it"
    # The animation's action: by name (4.4+), else by NLA track (4.2 names animations after
    # tracks), else the active one. Blender's own samples decide, so a wrong guess costs nothing.
    obj, yup = node.blender_object, scene.y_up
    for action in _candidate_actions(obj, animation.name):
        key = (obj.name, bone, action.name)  # the head start's, whose F-curves serve when it read them
        motion = fits.motion(key) or rotation_motion(obj, bone, action)
        if isinstance(motion, str):
            reason = motion
            continue
        slide = scene.slide(node.owner, animation.name)
        target = ChannelTarget(motion, *rest_correction(obj, bone, yup), slide, timing.rate)
        samples, reason = _measured_map(target, bundled, timing)
        if samples is not None:
            break
    else:
        result.skipped = reason
        return result, _sampled_later(animation, channel, scene, result, node, reason)
    exported = scene.frame_range(node.owner, animation.name)
    start, end = frame_range(exported, action, motion, target.slide)
    if end <= start:
        result.skipped = "the range is a single frame"
        return result, None
    stored = stored_keys(action, obj, bone, target)
    task = ChannelTask(target, start, end, stored, samples)
    return result, Job(animation, channel, task, result, key)


@dataclass
class _Sampled:
    """A channel whose keys are not its motion, to fit to Blender's own evaluation of it
    (export_blender_samples) once every channel has been read."""
    animation: Any
    channel: Any
    result: ChannelOutcome
    request: SampleRequest
    slide: float
    reason: str  # why its keys are not its motion


def _sampled_later(animation, channel, scene, result, node, reason):
    """A _Sampled for a channel ``reason`` keeps from its keys, or None where Blender is not
    sampled for it (an animation mode this export does not reproduce, no action, one frame)."""
    obj, mode = node.blender_object, scene.animation_mode
    track = animation.name if mode == "NLA_TRACKS" else None  # its group of NLA tracks plays
    playing = mode == "SCENE" or track is not None  # no action switched
    actions = [] if playing else _candidate_actions(obj, animation.name)
    if mode not in SAMPLED_MODES or not (actions or playing):
        return None
    slide = scene.slide(node.owner, animation.name)
    exported = scene.frame_range(node.owner, animation.name)
    bounds = actions[0].frame_range if actions else _playing_range(obj, track)
    start, end = (exported["start"], exported["end"]) if exported else (bounds[0], bounds[1])
    start = max(float(start), slide)
    if float(end) <= start:
        return None
    request = SampleRequest(obj, node.bone_name, actions[0] if actions else None, start, float(end),
                            _parent_bone(scene, node), track)
    return _Sampled(animation, channel, result, request, slide, reason)


def _playing_range(obj, track):
    """(first, last) frame of the strips of the NLA tracks the bundled exporter plays as the
    animation ``track`` (blender_samples.track_group), else of the scene."""
    strips = [strip for t in (blender_samples.track_group(obj, track) if track else ()) for strip in t.strips]
    if strips:
        return min(strip.frame_start for strip in strips), max(strip.frame_end for strip in strips)
    return current_scene().frame_start, current_scene().frame_end


def _parent_bone(scene, node):
    """The bone ``node`` (an ExportedNode) hangs from in the file, or None (the armature, an object)."""
    parent = scene.nodes.get(node.parent) if node.parent is not None else None
    return parent.bone_name if parent is not None and parent.is_bone else None


def _bone_parents(scene):
    """{armature name: {exported bone: its parent bone in the file, None for the armature}}."""
    parents: dict[str, dict[str, str | None]] = {}
    for node in scene.written():
        if node.is_bone and node.blender_object is not None and node.bone_name is not None:
            parents.setdefault(node.blender_object.name, {})[node.bone_name] = _parent_bone(scene, node)
    return parents


def _sampled_jobs(later, scene, timing):
    """(the _Jobs of the channels fitted to Blender's samples, the others keeping their reasons;
    {(armature, bone): degrees glTF cannot hold}: export_blender_samples.sample)."""
    jobs = []
    motions, unheld = blender_samples.sample([entry.request for entry in later], scene.reset_pose_bones,
                                             _bone_parents(scene))
    for entry, motion in zip(later, motions):
        request, result = entry.request, entry.result
        if isinstance(motion, str):
            result.skipped = f"{entry.reason}; Blender not sampled: {motion}"
            continue
        target = ChannelTarget(motion, *rest_correction(request.obj, request.bone, scene.y_up), entry.slide,
                               timing.rate)
        samples, reason = _measured_map(target, entry.animation.samplers[entry.channel.sampler], timing)
        if samples is None:
            result.skipped = f"{entry.reason}; Blender's samples: {reason}"
            continue
        result.skipped, result.sampled = "", entry.reason
        task = ChannelTask(target, request.start, request.end, None, samples)
        jobs.append(Job(entry.animation, entry.channel, task, result,
                         (request.obj.name, request.bone, request.action.name if request.action else "")))
    return jobs, unheld


@dataclass
class Job:
    """One channel to fit: its Blender-free task, and where ``write`` puts the result."""
    animation: Any  # the bundled exporter's animation and channel objects (untyped)
    channel: Any
    task: ChannelTask
    result: ChannelOutcome
    key: TaskKey  # (object, bone, action) names: the head start's key

    def write(self, keys: ChannelKeys, options: ExportOptions, inputs: "_Inputs") -> None:
        """The CUBICSLERP sampler, the extension on the channel, the fallback in its sampler; or,
        for a dense channel whose LINEAR (or STEP) keys alone are smaller, those keys in its
        sampler and no extension. ``inputs``: the animation's _Inputs, the bundled sampler's among
        them: samplers with the same key times share one input accessor."""
        animation, channel, result, fit = self.animation, self.channel, self.result, keys.fit
        if keys.skipped:  # Blender's samples showed another motion: the bundled sampler stays
            result.skipped = keys.skipped
            return
        result.dense = keys.dense
        if keys.linear is not None:
            self._write_linear(keys, inputs)
            return
        if fit is None:  # neither skipped nor LINEAR keys: a ChannelKeys has its CUBICSLERP fit
            raise ValueError(f"{result.target}: no CUBICSLERP keys were fitted")
        result.keys, result.max_error_deg = len(fit.times), fit.max_error_deg
        result.kept = keys.precision == "KEPT"
        index = len(animation.samplers)
        output = gltf.accessor(fit.interleaved(), short=keys.precision == "SHORT")
        animation.samplers.append(gltf.sampler(inputs.get(fit.times), output, CUBICSLERP))
        if keys.fallback is not None:
            interpolation, times, values = keys.fallback
            output = gltf.accessor(values, short=keys.fallback_precision == "SHORT")
            animation.samplers[channel.sampler] = gltf.sampler(inputs.get(times), output, interpolation)
            result.fallback_error_deg = keys.fallback_error_deg
        result.fallback_keys = animation.samplers[channel.sampler].input.count
        extensions = dict(channel.extensions or {})
        extensions[gltf.EXTENSION_NAME] = gltf.sqlerp_extension(index, required=options.fallback == "NONE")
        channel.extensions = extensions

    def _write_linear(self, keys, inputs):
        """A dense channel's LINEAR keys as its sampler: every viewer plays the motion."""
        linear, result = keys.linear, self.result
        output = gltf.accessor(linear.values, short=keys.precision == "SHORT")
        self.animation.samplers[self.channel.sampler] = gltf.sampler(inputs.get(linear.times), output,
                                                                     keys.interpolation)
        result.form = keys.interpolation
        result.keys = result.fallback_keys = len(linear.times)
        result.max_error_deg = result.fallback_error_deg = linear.max_error_deg


class _Inputs:
    """Input accessors of one animation's samplers: a bundled one (``add``) or one made earlier
    where the times are the same, else a new one."""

    def __init__(self):
        self.known = []

    def add(self, accessor, times):
        """Offer the bundled input ``accessor`` whose times will be written as ``times``."""
        if not any(known is accessor for _, known in self.known):
            self.known.append((np.asarray(times, dtype=np.float32), accessor))

    def get(self, times):
        stored = np.asarray(times, dtype=np.float32)
        for known, accessor in self.known:
            if np.array_equal(known, stored):
                return accessor
        made = gltf.accessor(times, bounds=True)
        self.known.append((stored, made))
        return made


def _bundled_bytes(job, uses):
    """The bundled exporter's sampler of the channel: its float values and its share of the key
    times (an input accessor serves every sampler of the action)."""
    sampler = job.animation.samplers[job.channel.sampler]
    shared_times = sampler.input.count * TIME_BYTES // uses[id(sampler.input)]
    return sampler.output.count * QUATERNION_BYTES["FLOAT"] + shared_times


def _candidate_actions(obj, name):
    animation = obj.animation_data
    candidates = [bpy.data.actions.get(name)]
    if animation is not None:
        candidates += [strip.action for track in animation.nla_tracks for strip in track.strips
                       if name in (track.name, strip.name)]
        candidates.append(animation.action)
    return unique_actions(candidates)


def _measured_map(target, bundled, timing):
    """((frames, values) of the bundled sampler's samples, for the fit's check of them all, "");
    or (None, reason) when they are not the emulated motion (another action plays, say). The
    constant ``target.a`` (the rest pose's) stays when the samples picked here agree with it,
    else it is measured from them."""
    times, values = gltf.read(bundled.input), gltf.read(bundled.output)
    if bundled.interpolation not in ("LINEAR", "STEP") or len(values) != len(times):
        return None, f"the bundled sampler is {bundled.interpolation} (sampling was off)"
    if not len(times):
        return None, "the bundled sampler has no keys"
    frames = times * timing.bundled_rate + target.slide
    picked = np.unique(np.linspace(0, len(frames) - 1, min(len(frames), PICKED_SAMPLES)).astype(np.intp))
    # Every sample is checked, not only those picked: a constraint may act on a few frames only,
    # and a channel found here is fitted to Blender's samples instead (_sampled_jobs).
    played = target.at_frames(frames)
    if chords.max_angle_deg(played[picked], values[picked]) > AGREEMENT_DEG:
        # a' = G · (a · P · b)^-1 · a per sample, averaged (signs aligned) against float32 noise.
        estimates = quat.multiply(quat.multiply(values[picked], quat.conjugate(played[picked])), target.a)
        estimates *= np.where(estimates @ estimates[0] < 0.0, -1.0, 1.0)[:, None]
        measured = quat.normalize(estimates.mean(axis=0))
        played = quat.multiply(quat.multiply(measured, quat.conjugate(target.a)), played)
        target.a = measured
    worst = chords.max_angle_deg(played, values)
    if worst > AGREEMENT_DEG:
        return None, disagreement(worst)
    return (frames, values), ""

