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

from ..sampling import chords
from ..sampling import quaternions as quat
from ..blender_model import rotation_budgets
from ..sampling import depth_levels

# A measured miss tightens the channels above it this much further than the bare ratio, so that
# a refit lands under the tolerance in one round though errors do not scale exactly with it.
MARGIN = 0.85


def compose(parents: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Compose the world rotations of a forest of nodes from their local rotations.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 for a root; the nodes in any order (composed parents first
        by depth).
    local : (N, T, 4) float array
        Local rotations (x, y, z, w) of the N nodes at T common times.

    Returns
    -------
    (N, T, 4) float array
        World rotations: a node's parent's world rotation times its own local one.

    Examples
    --------
    >>> z90 = [0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)]  # 90 deg about Z, root and child alike
    >>> (compose(np.array([-1, 0]), np.array([[z90], [z90]])).round(6) + 0.0).tolist()  # child: 180 deg
    [[[0.0, 0.0, 0.707107, 0.707107]], [[0.0, 0.0, 1.0, 0.0]]]
    """
    parents = np.asarray(parents, dtype=np.intp)
    world = local.copy()
    for level in depth_levels(parents)[1:]:
        world[level] = quat.multiply(world[parents[level]], local[level])
    return world


def world_errors(parents: np.ndarray, exact_world: np.ndarray, written: np.ndarray) -> np.ndarray:
    """Measure each node's largest world rotation error over the common times.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 for a root.
    exact_world : (N, T, 4) float array
        The exact world rotations (``compose`` of the exact local ones).
    written : (N, T, 4) float array
        The local rotations the written keys play, composed down the tree here.

    Returns
    -------
    (N,) float array
        Per node, the largest angle in degrees between the two world rotations.

    Examples
    --------
    >>> exact = np.tile([0.0, 0.0, 0.0, 1.0], (2, 1, 1))  # a root and its child at one time, still
    >>> written = exact.copy(); written[0, 0] = [np.sin(np.radians(0.5)), 0, 0, np.cos(np.radians(0.5))]
    >>> world_errors(np.array([-1, 0]), exact, written).round(6).tolist()  # the root 1 deg off: its child too
    [1.0, 1.0]
    """
    world = compose(parents, written)
    count, samples = written.shape[:2]
    squared = chords.chord2(exact_world.reshape(-1, 4), world.reshape(-1, 4))
    return chords.chord2_to_degrees(squared.reshape(count, samples).max(axis=1, initial=0.0))


def chain_shares(parents: np.ndarray, animated: np.ndarray) -> np.ndarray:
    """Split a tolerance evenly along the chains of animated rotations.

    The share is the one that holds the tolerance in world space with certainty, whatever the
    channels' errors are.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 for a root.
    animated : (N,) bool array
        Whether each node's rotation is animated.

    Returns
    -------
    (N,) float array
        Per node, 1 / the most animated rotations on one chain through it (1 off such chains).

    Examples
    --------
    >>> animated = np.array([True, True, True, False])  # a chain 0-1-2, and node 3 still under 0
    >>> chain_shares(np.array([-1, 0, 1, 0]), animated).round(6).tolist()
    [0.333333, 0.333333, 0.333333, 1.0]
    """
    parents = np.asarray(parents, dtype=np.intp)
    order = np.concatenate(depth_levels(parents)) if len(parents) else np.zeros(0, np.intp)
    return 1.0 / rotation_budgets(parents, order, np.flatnonzero(animated))


def tightened_shares(parents: np.ndarray, shares: np.ndarray, errors: np.ndarray, tolerance: float,
                     floor: np.ndarray) -> np.ndarray:
    """Tighten the shares of the nodes above those whose world error misses the tolerance.

    Where a node's world error is over ``tolerance``, every node on its way up to the root
    (itself included) takes its share times MARGIN x tolerance / error (the smallest such factor
    of the nodes under it), never below its ``floor``.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 for a root.
    shares : (N,) float array
        Each node's current share of ``tolerance``.
    errors : (N,) float array
        Each node's measured world error in degrees (``world_errors``).
    tolerance : float
        The world tolerance in degrees.
    floor : (N,) float array
        The shares that hold with certainty (``chain_shares``); a share already below its floor
        stays where it is.

    Returns
    -------
    (N,) float array
        The new per-node shares.

    Examples
    --------
    >>> errors = np.array([0.005, 0.02, 0.005])  # node 1 (under 0) misses 0.01 twice over: 0.85 x 1/2
    >>> tightened_shares(np.array([-1, 0, -1]), np.ones(3), errors, 0.01, np.full(3, 0.25)).round(6).tolist()
    [0.425, 0.425, 1.0]
    """
    parents = np.asarray(parents, dtype=np.intp)
    factor = np.ones(len(parents))
    over = errors > tolerance
    factor[over] = MARGIN * tolerance / errors[over]
    for level in reversed(depth_levels(parents)[1:]):  # deepest first: a node's factor goes up
        np.minimum.at(factor, parents[level], factor[level])
    return np.maximum(shares * factor, np.minimum(floor, shares))


def above(parents: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Mark the given nodes and every node above one of them.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 for a root.
    nodes : (N,) bool array
        The nodes to start from.

    Returns
    -------
    (N,) bool array
        ``nodes`` and their ancestors.

    Examples
    --------
    >>> above(np.array([-1, 0, 1, 0]), np.array([False, False, True, False])).tolist()  # node 2's chain
    [True, True, True, False]
    """
    marked = np.asarray(nodes, dtype=bool).copy()
    for level in reversed(depth_levels(parents)[1:]):  # deepest first: a mark goes up
        marked[parents[level][marked[level]]] = True
    return marked
