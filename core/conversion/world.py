"""World-space tolerances for the converter's rotation channels (spec "Error measure"): errors add
up along chains of animated nodes, so a tolerance held per channel is not held per node.

The same rounds as the Blender exporter's (operators/export_world), on a file's own hierarchy:
every rewritten sampler is fitted at a share of the tolerances, the whole of them to begin with,
then the nodes' world rotations are
composed at the check times (8 per original interval of every rewritten sampler of the animation)
from the original samplers and from what the file will play (the extension, and the fallback), and
the samplers above a node that misses are refitted at tighter shares (core.fitting.world_error). After
MEASURED_ROUNDS such rounds the samplers above a node that still misses take the certain split
(tolerance / n each), and if one still misses then (a share the written form cannot reach), those
samplers stay as they were: the file never plays further than the tolerances from its source.

Only nodes at or under a rewritten one are composed: the rotations above them multiply both world
rotations alike, which leaves the angle between them unchanged. Other rotation channels of the
animation play their own (default) sampler in both.
"""

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from .channels import Unit, check_times, fit_unit, written_players
from ..sampling import Animation, depth_levels
from ..fitting import above, chain_shares, compose, tightened_shares, world_errors

MEASURED_ROUNDS = 2
# The share of a conversion's work that the first fit of every unit takes (for progress only).
FIRST_PASS = 0.8
CHUNK = 4096              # check times composed at once: nodes x CHUNK x 4 floats per array
CACHED_ROTATIONS = 4_000_000  # exact world rotations kept between rounds (128 MB at most)


class AnimationWorld:
    """One animation's rewritable samplers (``units``) and the nodes at or under theirs."""

    def __init__(self, parents: npt.ArrayLike, rest_rotations: npt.ArrayLike, animation: Animation,
                 units: list[Unit]):
        parents = np.asarray(parents, dtype=np.intp)
        marked = np.zeros(len(parents), dtype=bool)
        marked[[n for unit in units for n in unit.nodes]] = True
        for level in depth_levels(parents)[1:]:  # parents first: a mark goes down
            marked[level] |= marked[parents[level]]
        self.nodes = np.flatnonzero(marked)
        index = np.full(len(parents), -1, dtype=np.intp)
        index[self.nodes] = np.arange(len(self.nodes))
        up = parents[self.nodes]
        self.parents = np.where(up >= 0, index[np.maximum(up, 0)], -1)
        self.units = units
        self.of_unit = [index[unit.nodes] for unit in units]
        animated = np.zeros(len(self.nodes), dtype=bool)
        animated[np.concatenate(self.of_unit)] = True
        self.floor = chain_shares(self.parents, animated)
        self.rest = np.asarray(rest_rotations, dtype=np.float64)[self.nodes]
        own = {n for unit in units for n in unit.nodes}
        self.others = {int(index[c.node]): c for c in animation.channels
                       if c.path == "rotation" and index[c.node] >= 0 and c.node not in own}
        self.grid = np.unique(np.concatenate([check_times(unit.times) for unit in units]))
        self.cache: dict[int, np.ndarray] = {}  # exact world rotations by the grid index they start at

    def initial_shares(self) -> None:
        """The whole tolerances, not the exporter's 1 / sqrt(n) (n: the most rewritten rotations
        on one chain): a file's dense keys mostly become its own keys in 16 bits, whose rounding
        (up to 0.0035 deg per rotation) is random along a chain, not additive, and 16-bit values
        need a share of 0.0042 deg at least (core.fitting.rotation_export). Measured on CesiumMan (chains
        of 6 animated joints) at 0.01 deg: from 1 / sqrt(n) every channel was floats and none got smaller; from
        the whole tolerance every one is 16-bit and the world max is 0.0088 deg."""
        for unit in self.units:
            unit.share = unit.fallback_share = 1.0

    def errors(self) -> tuple[np.ndarray, np.ndarray]:
        """(N,) world errors in degrees of the extension and of the fallback, per node."""
        players = [written_players(u.keys) if u.keys is not None else None for u in self.units]
        worst, worst_fallback = np.zeros(len(self.nodes)), np.zeros(len(self.nodes))
        for start in range(0, len(self.grid), CHUNK):
            seconds = self.grid[start:start + CHUNK]
            exact = self._exact_world(start, seconds)
            for which, out in ((0, worst), (1, worst_fallback)):
                local = self._local(seconds)
                for unit, nodes, played in zip(self.units, self.of_unit, players):
                    # A unit left as it was plays its original sampler.
                    local[nodes] = played[which](seconds) if played else _original(unit, seconds)
                np.maximum(out, world_errors(self.parents, exact, local), out=out)
        return worst, worst_fallback

    def _local(self, seconds):
        """(N, T, 4) local rotations without the units': rest, or another channel's."""
        local = np.repeat(self.rest[:, None, :], len(seconds), axis=1)
        for n, channel in self.others.items():
            local[n] = channel.evaluate(seconds)
        return local

    def _exact_world(self, start, seconds):
        if start in self.cache:
            return self.cache[start]
        local = self._local(seconds)
        for unit, nodes in zip(self.units, self.of_unit):
            local[nodes] = _original(unit, seconds)
        world = compose(self.parents, local)
        if len(self.nodes) * len(self.grid) <= CACHED_ROTATIONS:
            self.cache[start] = world
        return world

    def tighten(self, errors: np.ndarray, tolerance: float, which: str, certain: bool) -> list[Unit]:
        """Units whose share (``which``: "share" or "fallback_share") the measured per-node
        ``errors`` lower, lowered in place."""
        shares = np.ones(len(self.nodes))
        for unit, nodes in zip(self.units, self.of_unit):
            shares[nodes] = getattr(unit, which)
        if certain:
            new = np.where(above(self.parents, errors > tolerance), np.minimum(self.floor, shares), shares)
        else:
            new = tightened_shares(self.parents, shares, errors, tolerance, self.floor)
        changed = []
        for unit, nodes in zip(self.units, self.of_unit):
            share = float(new[nodes].min())
            if unit.keys is not None and share < getattr(unit, which):
                setattr(unit, which, share)
                changed.append(unit)
        return changed

    def give_up(self, errors: np.ndarray, fallback_errors: np.ndarray, tolerance: float,
                fallback_tolerance: float) -> None:
        """Units above a node that still misses keep their original sampler."""
        missed = above(self.parents, (errors > tolerance) | (fallback_errors > fallback_tolerance))
        for unit, nodes in zip(self.units, self.of_unit):
            if unit.keys is not None and missed[nodes].any():
                unit.keys = None
                unit.note = "kept: a node under it missed the world tolerance at every share tried"


def _original(unit, seconds):
    """The unit's original LINEAR sampler at ``seconds``, held at its ends."""
    return unit.target()(np.clip(seconds, unit.times[0], unit.times[-1]))


def hold(worlds: Sequence[AnimationWorld], tolerance: float, fallback_tolerance: float, min_ratio: float,
         progress: Callable[[float], None] | None = None) -> tuple[float, float]:
    """Fit every unit of ``worlds`` (AnimationWorld) within the tolerances in world space; returns
    (world max error of the extension, of the fallback), in degrees, as the file will play.
    ``progress(fraction)``, if given, hears how far it is: the first fit of every unit is most of
    the work (to FIRST_PASS), the measured rounds the rest."""
    report = progress or (lambda fraction: None)
    total = max(sum(len(world.units) for world in worlds), 1)
    fitted = 0

    def fit(units, first=False):
        nonlocal fitted
        for unit in units:
            fit_unit(unit, tolerance, fallback_tolerance, min_ratio)
            if first:
                fitted += 1
                report(FIRST_PASS * fitted / total)

    for world in worlds:
        world.initial_shares()
        fit(world.units, first=True)
    worst = []
    for done, world in enumerate(worlds):
        errors = fallback_errors = np.zeros(0)  # the first round measures them
        for rounds in range(MEASURED_ROUNDS + 2):
            errors, fallback_errors = world.errors()
            certain = rounds >= MEASURED_ROUNDS
            changed = world.tighten(errors, tolerance, "share", certain)
            changed += [u for u in world.tighten(fallback_errors, fallback_tolerance, "fallback_share",
                                                 certain) if u not in changed]
            if not changed or rounds > MEASURED_ROUNDS:
                break
            fit(changed)
        if (errors > tolerance).any() or (fallback_errors > fallback_tolerance).any():
            world.give_up(errors, fallback_errors, tolerance, fallback_tolerance)
            errors, fallback_errors = world.errors()
        worst.append((float(errors.max(initial=0.0)), float(fallback_errors.max(initial=0.0))))
        report(FIRST_PASS + (1.0 - FIRST_PASS) * (done + 1) / len(worlds))
    return max((w[0] for w in worst), default=0.0), max((w[1] for w in worst), default=0.0)
