"""World-space tolerances for the export's rotation channels (issue: errors add up along chains).

A bone's world rotation carries the error of every animated rotation above it, so a tolerance held
per channel is not held per bone. The export fits each channel at the whole tolerances first
(16-bit values stay usable, and errors of independent fits add up far less than their sum: on
real clips the world error is 1 to 2 times a channel's), then measures: every glTF node
above the channels is composed from its local rotations (exact, as written, as its fallback plays)
at SAMPLES_PER_FRAME per frame (core.world_error), and the channels above a node that misses are
refitted at tighter shares, for MEASURED_ROUNDS rounds at most; the export reports the world
maxima measured last. A share never goes below the import's split (tolerance / n, which holds the
tolerance on every chain whatever the errors are) nor below MIN_CHANNEL_DEG of the channel's own.
"""

import numpy as np

from ..core import quaternions as quat
from ..core.accessors import as_stored
from ..core.interpolation import Evaluator
from ..core.metrics import SAMPLES_PER_FRAME
from ..core.rotation_export import FIT_MARGIN
from ..core.world_error import chain_shares, compose, tightened_shares, world_errors
from . import export_accessors as gltf

MEASURED_ROUNDS = 2
# No channel is fitted finer than this: below it float32 key times (a 300-second clip turning 4
# degrees a frame, measured) and Blender's own float32 evaluation take the error, and the keys a
# fit needs explode (100 chained bones x 1,000 keys at the split 1/100: 4.9 million keys).
MIN_CHANNEL_DEG = 0.001
# A finer share's keys (those viewers with the extension play) may cost at most REFIT_GROWTH times
# the bytes of the channel's first fit, or the bundled exporter's per-frame float sampler's if
# more; beyond, a coarser share is tried and the world error reported: 100 chained bones x 1,000
# keys otherwise wrote 612,673 float keys and a fallback as large, 4.6 times the bundled file.
REFIT_GROWTH = 3
PER_FRAME_KEY_BYTES = 16  # a float quaternion (its input is shared)
CHUNK = 4096  # grid samples composed at once: N nodes x CHUNK x 4 floats per array
CACHED_ROTATIONS = 4_000_000  # exact world rotations kept between rounds (128 MB at most)
_IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


class AnimationWorld:
    """One glTF animation's rotation jobs (export_rotations._Job, at ``positions`` in the
    export's list) and every glTF node above them, composed over the animation's time range."""

    def __init__(self, animation, jobs, positions, vtree, timing, options):
        self.jobs, self.positions = jobs, positions
        self.nodes, self.parents, self.index = [], [], {}
        by_node = {id(vnode.node): vnode for vnode in vtree.values() if vnode.node is not None}
        for job in jobs:
            self._add(job.channel.target.node, by_node, vtree)
        self.parents = np.array(self.parents, dtype=np.intp)
        self.of_job = np.array([self.index[id(job.channel.target.node)] for job in jobs], dtype=np.intp)
        self.animated = np.zeros(len(self.nodes), dtype=bool)
        self.animated[self.of_job] = True
        self.floor = np.maximum(chain_shares(self.parents, self.animated),
                                MIN_CHANNEL_DEG / options.tolerance_deg)
        self.fallback_floor = np.maximum(chain_shares(self.parents, self.animated),
                                         MIN_CHANNEL_DEG / options.fallback_tolerance_deg)
        self.sampled = _sampled_rotations(animation, timing)  # id(node) -> Evaluator (bundled)
        rate = timing.rate
        starts = [(job.task.start - job.task.target.slide) / rate for job in jobs]
        ends = [(job.task.end - job.task.target.slide) / rate for job in jobs]
        step = 1.0 / (SAMPLES_PER_FRAME * rate)
        self.grid = np.append(np.arange(min(starts), max(ends), step), max(ends))
        self.cache = {}  # chunk start -> exact world rotations

    def _add(self, node, by_node, vtree):
        chain = []
        while node is not None and id(node) not in self.index:
            chain.append(node)
            vnode = by_node.get(id(node))
            node = None
            while vnode is not None and node is None:  # up to the next node the file holds
                vnode = vtree.get(vnode.parent_uuid) if vnode.parent_uuid is not None else None
                node = vnode.node if vnode is not None else None
        parent = self.index[id(node)] if node is not None else -1
        for link in reversed(chain):
            self.index[id(link)] = len(self.nodes)
            self.nodes.append(link)
            self.parents.append(parent)
            parent = self.index[id(link)]

    def errors(self, fitted, fallback):
        """(N,) world errors of every node in degrees, of the extension and, with ``fallback``,
        of the fallback (else None): written rotations against the exact ones over the range."""
        played = {}
        for job, position in zip(self.jobs, self.positions):
            keys = fitted[position]
            if not keys.skipped:
                played[id(job.channel.target.node)] = (job.task, _written(keys, False),
                                                       _written(keys, True) if fallback else None)
        worst = np.zeros(len(self.nodes))
        worst_fallback = np.zeros(len(self.nodes)) if fallback else None
        for start in range(0, len(self.grid), CHUNK):
            seconds = self.grid[start:start + CHUNK]
            exact = self._exact_world(start, seconds, played)
            written = np.empty_like(exact)
            for n, node in enumerate(self.nodes):
                written[n] = self._written_local(node, played, seconds, 1)
            worst = np.maximum(worst, world_errors(self.parents, exact, written))
            if fallback:
                for n, node in enumerate(self.nodes):
                    written[n] = self._written_local(node, played, seconds, 2)
                worst_fallback = np.maximum(worst_fallback, world_errors(self.parents, exact, written))
        return worst, worst_fallback

    def _exact_world(self, start, seconds, played):
        """The exact world rotations at ``seconds`` (the chunk from ``start``), composed once
        per export when they fit in CACHED_ROTATIONS (they do not change between rounds)."""
        if start in self.cache:
            return self.cache[start]
        local = np.empty((len(self.nodes), len(seconds), 4))
        for n, node in enumerate(self.nodes):
            entry = played.get(id(node))
            local[n] = self._task_exact(entry[0], seconds) if entry else self._fixed(node, seconds)
        world = compose(self.parents, local)
        if len(self.nodes) * len(self.grid) <= CACHED_ROTATIONS:
            self.cache[start] = world
        return world

    @staticmethod
    def _task_exact(task, seconds):
        frames = np.clip(seconds * task.target.rate + task.target.slide, task.start, task.end)
        return task.target.at_frames(frames)

    def _written_local(self, node, played, seconds, which):
        """Local rotations of ``node`` at ``seconds`` as the file plays them: ``which`` 1 the
        extension, 2 the fallback (a channel's entry in ``played``)."""
        entry = played.get(id(node))
        if entry is None:
            return self._fixed(node, seconds)
        written = entry[which] or self.sampled.get(id(node))  # None: the bundled sampler stays
        return written(seconds) if written is not None else self._task_exact(entry[0], seconds)

    def _fixed(self, node, seconds):
        """A node's rotation without a fitted channel: its bundled sampler's, or its rest."""
        sampler = self.sampled.get(id(node))
        if sampler is not None:
            return sampler(seconds)
        return np.broadcast_to(np.asarray(node.rotation or _IDENTITY, dtype=np.float64), (len(seconds), 4))

    def shares(self, errors, shares, tolerance, fallback=False):
        """New per-job shares of ``tolerance`` from the measured world ``errors`` per node."""
        node_shares = np.ones(len(self.nodes))
        node_shares[self.of_job] = shares
        floor = self.fallback_floor if fallback else self.floor
        return tightened_shares(self.parents, node_shares, errors, tolerance, floor)[self.of_job]


def _written(keys, fallback):
    """An Evaluator of what ``keys`` write (seconds -> (T, 4)), or None for the bundled sampler."""
    if keys.linear is not None:
        return _clamped(keys.interpolation, keys.linear.times, as_stored(keys.linear.values, keys.precision))
    if fallback:
        if keys.fallback is None:
            return None
        interpolation, times, values = keys.fallback
        return _clamped(interpolation, times, as_stored(values, keys.fallback_precision))
    precision = "FLOAT" if keys.precision == "KEPT" else keys.precision
    return _clamped("CUBICSLERP", keys.fit.times, quat.normalize(as_stored(keys.fit.interleaved(), precision)))


def _clamped(interpolation, times, values):
    """seconds -> (T, 4) rotations of a sampler, held at its ends outside its range (as glTF)."""
    times = np.asarray(times, dtype=np.float64)
    evaluator = Evaluator(interpolation, times, values, rotation=True)
    return lambda seconds: quat.normalize(evaluator(np.clip(seconds, times[0], times[-1])))


def _sampled_rotations(animation, timing):
    """{id(glTF node): evaluator} of the animation's rotation samplers as the bundled exporter
    wrote them (read before any is replaced)."""
    result = {}
    for channel in animation.channels:
        if channel.target.path != "rotation" or channel.target.node is None:
            continue
        sampler = animation.samplers[channel.sampler]
        try:
            times = timing.written(gltf.read(sampler.input))
            result[id(channel.target.node)] = _clamped(sampler.interpolation, times, gltf.read(sampler.output))
        except (ValueError, KeyError):  # not float data: the node's rest stands in for it
            continue
    return result


def hold(worlds, jobs, fitted, options, refit):
    """Refit the channels whose shares the measured world errors tighten (in place in
    ``fitted``; ``refit(tasks)`` -> their ChannelKeys); returns (positions refitted, world max of the extension, of the fallback or None)."""
    if not options.world_space:
        return set(), None, None
    check_fallback = options.fallback in ("AUTO", "LINEAR", "CUBICSPLINE")
    rounds, refitted = 0, set()
    while True:
        changed, worst, worst_fallback = _tighten(worlds, jobs, fitted, options, check_fallback)
        if not changed or rounds == MEASURED_ROUNDS:
            break
        for position, keys in zip(changed, refit([jobs[position].task for position in changed])):
            fitted[position] = keys
        refitted.update(changed)
        rounds += 1
    if options.fallback == "SAMPLED":
        worst_fallback = max((float(w.errors(fitted, True)[1].max(initial=0.0)) for w in worlds), default=0.0)
    return refitted, worst, worst_fallback


def _tighten(worlds, jobs, fitted, options, check_fallback):
    """(positions of the jobs whose shares changed, world max, fallback world max or None)."""
    changed, worst, worst_fallback = [], 0.0, None
    for world in worlds:
        tasks = [jobs[position].task for position in world.positions]
        errors, fallback_errors = world.errors(fitted, check_fallback)
        worst = max(worst, float(errors.max(initial=0.0)))
        # As per channel, FIT_MARGIN of the tolerance: the rest is Blender's own float32 evaluation.
        share = world.shares(errors, np.array([t.share for t in tasks]), options.tolerance_deg * FIT_MARGIN)
        fallback_share = np.array([t.fallback_share for t in tasks])
        if check_fallback:
            worst_fallback = max(worst_fallback or 0.0, float(fallback_errors.max(initial=0.0)))
            fallback_share = world.shares(fallback_errors, fallback_share,
                                          options.fallback_tolerance_deg * FIT_MARGIN, fallback=True)
        for position, task, new, new_fallback in zip(world.positions, tasks, share, fallback_share):
            if fitted[position].skipped:
                continue
            if new < task.share or new_fallback < task.fallback_share:
                task.share, task.fallback_share = float(new), float(new_fallback)
                if task.max_bytes is None:  # against the first fit, at the whole tolerances
                    task.max_bytes = max(PER_FRAME_KEY_BYTES * len(task.sample_frames()),
                                         REFIT_GROWTH * fitted[position].extension_bytes)
                changed.append(position)
    return changed, worst, worst_fallback
