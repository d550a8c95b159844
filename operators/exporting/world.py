"""World-space tolerances for the export's rotation channels (issue: errors add up along chains).

A bone's world rotation carries the error of every animated rotation above it, so a tolerance held
per channel is not held per bone. The export fits each channel at the whole tolerances first, then
goes down each animation's node tree, each node as soon as its parent is settled, composing every
node's world rotation (exact, as the extension plays it, as the fallback plays it) at
SAMPLES_PER_FRAME per frame. A channel whose node's world rotation misses is fitted again (in
the workers, while this thread goes on with other nodes) to its target corrected for what the
written curves above it play (core.fitting.world_correction: C = written parent⁻¹ · exact
parent): its world error is then its own fit's, at the whole tolerance and in 16-bit values
whatever the depth, and the nodes below are composed from what it now writes (STEP keys alone:
in float values instead, see _correct_down).
Splitting the tolerance along chains instead (the first design)
left each of n channels about 1 / n of it, below 16-bit rounding: float keys, a 20-bone chain's
file 1.37 times the bundled exporter's (now 0.91 times).

The fallback (ten times coarser) cannot be corrected so: its CUBICSPLINE curves wiggle between
their keys (normalized Hermite arcs), and a child's fallback at other key times cannot follow a
parent's wiggles (measured: up to 5 degrees off where it tried). After the pass, the channels above
a node whose fallback misses are fitted again at tighter fallback shares (core.fitting.world_error), for
FALLBACK_ROUNDS rounds, never below the import's split (tolerance / n, which holds on every chain
whatever the errors are) nor below MIN_CHANNEL_DEG. The export reports the world maxima measured
last.
"""

from __future__ import annotations  # the export's jobs, scene and fits: for the type checker only

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.sampling import chords
from ...core.sampling import quaternions as quat
from ...core.sampling import SAMPLES_PER_FRAME
from ...core.fitting import FIT_MARGIN
from ...core.sampling import depth_levels
from ...core.fitting import WorldCorrection
from ...core.fitting import chain_shares, tightened_shares
from ...core.fitting import ChannelKeys, ExportOptions, keys_player, sampler_player
from ...bundled_gltf import export_accessors as gltf
from .timing import Timing

if TYPE_CHECKING:
    from ...bundled_gltf import exported as bundled_exported
    from .fitting import ChannelFits
    from .rotations import Job

# Rounds of tighter fallback shares after the pass down the tree.
FALLBACK_ROUNDS = 2
# No fallback is fitted finer than this: below it float32 key times (a 300-second clip turning 4
# degrees a frame, measured) and Blender's own float32 evaluation take the error.
MIN_CHANNEL_DEG = 0.001
_IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


@dataclass
class _World:
    """World rotations of one node over the grid, (G, 4) each: exact, as the extension plays
    them, as the fallback plays them (None when not measured)."""
    exact: np.ndarray
    written: np.ndarray
    fallback: np.ndarray | None = None


class AnimationWorld:
    """One glTF animation's rotation jobs (export_rotations.Job, at ``positions`` in the
    export's list) and every glTF node above them, composed over the animation's time range."""

    def __init__(self, animation: Any, jobs: Sequence[Job], positions: Sequence[int],
                 scene: bundled_exported.ExportedScene, timing: Timing, options: ExportOptions):
        """``animation``: the bundled exporter's animation object (untyped)."""
        self.jobs, self.positions = jobs, positions
        self.nodes: list[Any] = []  # the exporter's glTF node objects
        self.index: dict[int, int] = {}  # id(node) -> its index in ``nodes``
        parents: list[int] = []
        for job in jobs:
            self._add(job.channel.target.node, scene, parents)
        self.parents = np.array(parents, dtype=np.intp)
        self.levels = depth_levels(self.parents)
        self.job_at = {self.index[id(job.channel.target.node)]: j for j, job in enumerate(jobs)}
        self.sampled = _sampled_rotations(animation, timing)  # id(node) -> its bundled sampler's player
        rate = timing.rate
        starts = [(job.task.start - job.task.target.slide) / rate for job in jobs]
        ends = [(job.task.end - job.task.target.slide) / rate for job in jobs]
        step = 1.0 / (SAMPLES_PER_FRAME * rate)
        self.grid = np.append(np.arange(min(starts), max(ends), step), max(ends))
        self.children: list[list[int]] = [[] for _ in self.nodes]
        for n, parent in enumerate(parents):
            if parent >= 0:
                self.children[parent].append(n)
        self.played: dict[int, tuple] = {}  # see ``start``
        self.composed: dict[int, _World] = {}  # node -> its world while the pass needs it (``roots``)
        self.left = np.zeros(len(self.nodes), dtype=np.intp)  # per node: its children not settled yet
        self.exact: dict[int, np.ndarray] = {}  # node -> its channel's exact local rotations on the grid
        self.measure_fallback = False
        animated = np.zeros(len(self.nodes), dtype=bool)
        animated[list(self.job_at)] = True
        self.fallback_floor = np.maximum(chain_shares(self.parents, animated),
                                         MIN_CHANNEL_DEG / options.fallback_tolerance_deg)

    def _add(self, node: Any, scene: bundled_exported.ExportedScene, parents: list[int]) -> None:
        """``node`` and the glTF nodes above it, with their ``parents``."""
        chain = []
        while node is not None and id(node) not in self.index:
            chain.append(node)
            found = scene.by_gltf_node(node)
            parent = scene.written_parent(found.uuid) if found is not None else None
            node = scene.nodes[parent].node if parent is not None else None
        parent = self.index[id(node)] if node is not None else -1
        for link in reversed(chain):
            self.index[id(link)] = len(self.nodes)
            self.nodes.append(link)
            parents.append(parent)
            parent = self.index[id(link)]

    def start(self, fitted: Sequence[ChannelKeys], measure_fallback: bool) -> None:
        """Before a pass down the tree: what each job's ChannelKeys in ``fitted`` play."""
        self.measure_fallback = measure_fallback
        self.errors = np.zeros(len(self.nodes))  # per node, of the extension and of the fallback
        self.fallback_errors = np.zeros(len(self.nodes))
        for j in range(len(self.jobs)):
            self._play(j, fitted[self.positions[j]])

    def _play(self, j, keys):
        node = id(self.jobs[j].channel.target.node)
        self.played.pop(node, None)
        if not keys.skipped:
            written = keys_player(keys, False)
            # A core sampler alone is its own fallback: the same player, evaluated once (_compose)
            fallback = written if keys.linear is not None else keys_player(keys, True)
            self.played[node] = (self.jobs[j].task, written, fallback if self.measure_fallback else None)

    def under_animated(self) -> list[int]:
        """Indices of the jobs whose node has an animated node above it: the pass down the tree
        fits them to their corrections, so a first fit without one would be thrown away."""
        animated = np.zeros(len(self.nodes), dtype=bool)
        animated[list(self.job_at)] = True
        below = np.zeros(len(self.nodes), dtype=bool)
        for level in self.levels[1:]:
            parents = self.parents[level]
            below[level] = animated[parents] | below[parents]
        return [j for n, j in self.job_at.items() if below[n]]

    def roots(self) -> list[int]:
        """Before a pass down the tree (``visit``, ``settle``): the nodes it starts from."""
        self.composed = {}
        self.left = np.array([len(children) for children in self.children], dtype=np.intp)
        return [int(n) for n in self.levels[0]] if self.levels else []

    def visit(self, n: int, tolerance: float, correctable: Callable[[int], bool],
              rounded: Callable[[int], bool] = lambda position: False,
              pending: Callable[[int], bool] = lambda position: False) -> int | None:
        """Compose node ``n`` (its parent composed before); returns the index of its job to fit
        again, else None (``n`` is settled: its children may follow). To fit again: a job whose
        node's world rotation misses ``tolerance`` and ``correctable(position)``, or not fitted
        yet (``pending(position)``); its task is given its correction, but for the
        ``rounded(position)`` ones (STEP keys in 16-bit values) while the parent's world rotation
        is within ``tolerance``: those are written in float values instead (see _correct_down)."""
        j, parent = self.job_at.get(n), int(self.parents[n])
        above = self.composed.get(parent)
        if j is None or above is None:
            self._keep(n, self._compose(n, above))
            return None
        position = self.positions[j]
        world = None if pending(position) else self._compose(n, above)  # else moot until fitted
        if world is not None and not (correctable(position) and self._errors(world)[0] > tolerance):
            self._keep(n, world)
            return None
        task = self.jobs[j].task
        if rounded(position) and self._errors(above)[0] <= tolerance:
            task.precision = "FLOAT"
        else:
            task.correction = self._correction(task, above.written, above.exact)
        task.grid = self.grid  # the fit plays its keys there too (settle)
        return j

    def settle(self, j: int, keys: ChannelKeys) -> int:
        """Job ``j`` fitted again (``keys``): its node (returned) composed from what it now writes,
        as played on the grid where it was fitted (``keys.on_grid``, then dropped), else here."""
        self._play(j, keys)
        self.jobs[j].task.grid = None
        n = self.index[id(self.jobs[j].channel.target.node)]
        written = None
        if keys.on_grid is not None:
            self.exact[n], written = keys.on_grid
            keys.on_grid = None
        self._keep(n, self._compose(n, self.composed.get(int(self.parents[n])), written))
        return n

    def _keep(self, n, world):
        """Node ``n`` settled as ``world`` plays: its errors taken, its world kept while a child
        of it is not settled."""
        self.errors[n], self.fallback_errors[n] = self._errors(world)
        if self.left[n]:
            self.composed[n] = world
        parent = int(self.parents[n])
        if parent >= 0:
            self.left[parent] -= 1
            if not self.left[parent]:
                del self.composed[parent]

    def measure(self, fitted: Sequence[ChannelKeys]) -> None:
        """Every node's errors (``errors``, ``fallback_errors``) as ``fitted`` plays, nothing refitted."""
        self.start(fitted, self.measure_fallback)
        ready = self.roots()
        while ready:
            n = ready.pop()
            self.visit(n, np.inf, lambda position: False)
            ready.extend(self.children[n])

    def fallback_shares(self, tolerance: float) -> dict[int, float]:
        """{job index: new fallback share} of the jobs above a node whose fallback misses
        ``tolerance`` (core.fitting.world_error.tightened_shares), where it shrinks."""
        shares = np.ones(len(self.nodes))
        of_job = np.array(sorted(self.job_at), dtype=np.intp)
        shares[of_job] = [self.jobs[self.job_at[n]].task.fallback_share for n in of_job]
        new = tightened_shares(self.parents, shares, self.fallback_errors, tolerance, self.fallback_floor)
        return {self.job_at[n]: float(new[n]) for n in of_job if new[n] < shares[n]}

    def _errors(self, world):
        written = float(chords.max_angle_deg(world.written, world.exact))
        if world.fallback is None or world.fallback is world.written:  # a core sampler alone: the same
            return written, written if world.fallback is not None else 0.0
        return written, float(chords.max_angle_deg(world.fallback, world.exact))

    def _compose(self, n, parent, written=None):
        """The _World of node ``n`` from its ``parent``'s (None at a root) and its own local
        rotations (``written``: what its keys play on the grid, when known)."""
        node, seconds = self.nodes[n], self.grid
        entry = self.played.get(id(node))
        if entry:  # the motion itself, the same in every pass
            exact = self.exact.get(n)
            if exact is None:
                exact = self.exact[n] = entry[0].exact_at(seconds)
        else:
            exact = self._fixed(node, seconds)
        written = self._written_local(node, seconds, 1) if written is None else written
        fallback = None
        if self.measure_fallback:
            same = entry is not None and entry[1] is not None and entry[2] is entry[1]
            fallback = written if same else self._written_local(node, seconds, 2)
        if parent is None:
            return _World(exact, written, fallback)
        composed = quat.multiply(parent.written, written)
        if fallback is not None and fallback is written and parent.fallback is parent.written:
            return _World(quat.multiply(parent.exact, exact), composed, composed)  # no fallback apart
        return _World(quat.multiply(parent.exact, exact), composed,
                      None if fallback is None else quat.multiply(parent.fallback, fallback))

    def _correction(self, task, written, exact):
        """The WorldCorrection written⁻¹ · exact (parent world rotations over the grid) over the
        task's range and a grid step beyond."""
        ends = (np.array([task.start, task.end]) - task.target.slide) / task.target.rate
        first, last = np.searchsorted(self.grid, ends)
        span = slice(max(first - 1, 0), min(last + 1, len(self.grid)))
        return WorldCorrection.between(self.grid[span], written[span], exact[span])

    def _written_local(self, node, seconds, which):
        """Local rotations of ``node`` at ``seconds`` as the file plays them: ``which`` 1 the
        extension, 2 the fallback (a channel's entry in ``played``)."""
        entry = self.played.get(id(node))
        if entry is None:
            return self._fixed(node, seconds)
        written = entry[which] or self.sampled.get(id(node))  # None: the bundled sampler stays
        return written(seconds) if written is not None else entry[0].exact_at(seconds)

    def _fixed(self, node, seconds):
        """A node's rotation without a fitted channel: its bundled sampler's, or its rest."""
        sampler = self.sampled.get(id(node))
        if sampler is not None:
            return sampler(seconds)
        return np.broadcast_to(np.asarray(node.rotation or _IDENTITY, dtype=np.float64), (len(seconds), 4))


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
            result[id(channel.target.node)] = sampler_player(sampler.interpolation, times, gltf.read(sampler.output))
        except (ValueError, KeyError):  # not float data: the node's rest stands in for it
            continue
    return result


def hold(worlds: Sequence[AnimationWorld], jobs: Sequence[Job], fitted: list[ChannelKeys], options: ExportOptions,
         fits: ChannelFits, pending: set[int] | None = None,
         idle: Iterator[bool] | None = None) -> tuple[set[int], float | None, float | None]:
    """Fit again the channels whose node's world rotation misses (in place in ``fitted``, by
    ``fits``, export_fitting.ChannelFits): to corrections for the extension, each as soon as its
    parent's keys are known, then at tighter shares for the fallback; returns (positions
    refitted, world max of the extension, of the fallback or None). ``pending``: positions not
    fitted yet (PENDING in ``fitted``), each fitted on the way down to its correction. ``idle``:
    steps of other work taken while the pass waits for fits (export_fitting.Refits)."""
    if not options.world_space:
        return set(), None, None
    refitted: set[int] = set()
    measure_fallback = options.fallback != "NONE"
    for world in worlds:
        world.start(fitted, measure_fallback)
    pending = pending or set()
    with fits.refits(len(pending), idle) as refits:
        # As per channel, FIT_MARGIN of the tolerance: the rest is Blender's own float32 evaluation.
        _correct_down(worlds, fitted, options.tolerance_deg * FIT_MARGIN, refits, pending, refitted)
    if options.fallback in ("AUTO", "LINEAR", "CUBICSPLINE"):
        _tighten_fallbacks(worlds, fitted, options.fallback_tolerance_deg * FIT_MARGIN, fits, refitted)
    worst = max((float(w.errors.max(initial=0.0)) for w in worlds), default=0.0)
    worst_fallback = None
    if measure_fallback:
        worst_fallback = max((float(w.fallback_errors.max(initial=0.0)) for w in worlds), default=0.0)
    return refitted, worst, worst_fallback


def _correct_down(worlds, fitted, tolerance, refits, pending, refitted):
    """The pass down the trees: a node's channel that misses (or is ``pending``) is fitted to its
    correction as soon as its parent is settled (``refits``: export_fitting.Refits), while the
    other nodes go on: no level waits for another's slowest fit (RecursiveSkeletons, 30 levels
    deep: 1.3 seconds of refits level by level, with the workers idle while this thread composed).

    STEP keys alone (constant F-curves: a still finger, a bone without keys) hold values and would
    follow a correction only as a curve of many keys. Their own error is the rounding of their
    16-bit values (up to 0.0035 degrees), which adds to their parent's world error, joint after
    joint down a still chain (measured: a still four-joint finger under a corrected hand, 0.0085
    degrees at the hand, 0.0125 at the finger's end). So one that misses under a parent within the
    tolerance is written in float values (rounding nothing: its world error is its parent's);
    under a parent that misses, it is corrected as any channel (a curve, as its STEP keys fail)."""
    def correctable(position):
        return not fitted[position].skipped

    def rounded(position):
        return fitted[position].step and fitted[position].precision == "SHORT"

    ready = [(world, n) for world in worlds for n in world.roots()]
    running: dict[int, tuple[AnimationWorld, int]] = {}  # refit handle -> (world, job index)
    while ready or running:
        while ready:
            world, n = ready.pop()
            j = world.visit(n, tolerance, correctable, rounded, pending.__contains__)
            if j is None:
                ready.extend((world, child) for child in world.children[n])
            else:
                running[refits.submit(world.jobs[j].task)] = (world, j)
        for handle, keys in refits.ended() if running else ():
            world, j = running.pop(handle)
            fitted[world.positions[j]] = keys
            refitted.add(world.positions[j])
            ready.extend((world, child) for child in world.children[world.settle(j, keys)])


def _tighten_fallbacks(worlds, fitted, tolerance, fits, refitted):
    """FALLBACK_ROUNDS of tighter fallback shares above the nodes whose fallback misses, each
    measured again; the CUBICSLERP keys stay as they are (the levels below were corrected for
    them), and LINEAR (or STEP) keys alone are their own core sampler: not refitted."""
    for _ in range(FALLBACK_ROUNDS):
        tasks = {}
        for world in worlds:
            for j, share in world.fallback_shares(tolerance).items():
                position = world.positions[j]
                if not fitted[position].skipped and fitted[position].linear is None:
                    task = world.jobs[j].task
                    task.fallback_share, task.extension = share, fitted[position]
                    tasks[position] = task
        if not tasks:
            return
        for position, keys in zip(tasks, fits.again(list(tasks.values()))):
            fitted[position] = keys
        refitted.update(tasks)
        for task in tasks.values():
            task.extension = None
        for world in worlds:
            world.measure(fitted)
