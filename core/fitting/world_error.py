"""Rotation errors in world space: along a hierarchy, every animated rotation above a node adds
its error to the node's world rotation, so tolerances held per channel are not held per node.

``world_errors`` composes the written and the exact local rotations of every node down the tree at
common times and measures the angle between the two world rotations (bi-invariant: the constant
rotations in between enter both products alike). ``tightened_shares`` turns the measured errors
into smaller per-node tolerances for the channels above the nodes that miss: the exporter refits
those and measures again (operators/export_world). Their floor, ``chain_shares``, is the import's
split (core.blender_model.import_plan.rotation_budgets): each animated rotation gets tolerance / n, n the most
animated rotations on one chain through it, so their errors add up to at most the tolerance on
every chain whatever they are. Errors measured in practice add up to far less (about as a random
walk), so the export starts coarser and tightens only what misses.
"""

import numpy as np

from ..sampling import quaternions as quat
from ..blender_model import rotation_budgets
from ..sampling import depth_levels

# A measured miss tightens the channels above it this much further than the bare ratio, so that
# a refit lands under the tolerance in one round though errors do not scale exactly with it.
MARGIN = 0.85


def compose(parents: np.ndarray, local: np.ndarray) -> np.ndarray:
    """(N, T, 4) world rotations of N nodes from their (N, T, 4) local rotations (x, y, z, w) at
    T common times, parents first by depth. ``parents``: (N,) indices, -1 for roots (a forest)."""
    parents = np.asarray(parents, dtype=np.intp)
    world = local.copy()
    for level in depth_levels(parents)[1:]:
        world[level] = quat.multiply(world[parents[level]], local[level])
    return world


def world_errors(parents: np.ndarray, exact_world: np.ndarray, written: np.ndarray) -> np.ndarray:
    """(N,) largest angle in degrees between each node's world rotation composed from its
    ``written`` local rotations (N, T, 4) and ``exact_world`` (compose of the exact ones)."""
    world = compose(parents, written)
    count, samples = written.shape[:2]
    chords = quat.chord2(exact_world.reshape(-1, 4), world.reshape(-1, 4))
    return quat.chord2_to_degrees(chords.reshape(count, samples).max(axis=1, initial=0.0))


def chain_shares(parents: np.ndarray, animated: np.ndarray) -> np.ndarray:
    """(N,) 1 / the most animated rotations on one chain through each node (1 off chains): the
    per-channel share of a tolerance that holds it in world space with certainty."""
    parents = np.asarray(parents, dtype=np.intp)
    order = np.concatenate(depth_levels(parents)) if len(parents) else np.zeros(0, np.intp)
    return 1.0 / rotation_budgets(parents, order, np.flatnonzero(animated))


def tightened_shares(parents: np.ndarray, shares: np.ndarray, errors: np.ndarray, tolerance: float,
                     floor: np.ndarray) -> np.ndarray:
    """New per-node shares of ``tolerance``: where a node's world error is over it, every node on
    its way up to the root (itself included) takes its share times MARGIN x tolerance / error (the
    smallest such factor of the nodes under it), never below its ``floor`` (chain_shares)."""
    parents = np.asarray(parents, dtype=np.intp)
    factor = np.ones(len(parents))
    over = errors > tolerance
    factor[over] = MARGIN * tolerance / errors[over]
    for level in reversed(depth_levels(parents)[1:]):  # deepest first: a node's factor goes up
        np.minimum.at(factor, parents[level], factor[level])
    return np.maximum(shares * factor, np.minimum(floor, shares))


def above(parents: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """(N,) bool: ``nodes`` (a bool mask) and every node above one of them."""
    marked = np.asarray(nodes, dtype=bool).copy()
    for level in reversed(depth_levels(parents)[1:]):  # deepest first: a mark goes up
        marked[parents[level][marked[level]]] = True
    return marked
