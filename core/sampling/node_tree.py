"""The node forest of a glTF asset: each node's parent, read from the ``children`` lists and
checked, and the depth levels that let core.sampling.scene compose global matrices with one
batched matmul per depth.

glTF 2.0 ("Nodes and Hierarchy"): the nodes form disjoint strict trees, so a node has at most one
parent and no node is its own ancestor. A file that breaks this gets the validator's codes
(UNRESOLVED_REFERENCE, NODE_PARENT_OVERRIDE, NODE_LOOP) with JSON pointers.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..gltf import Finding, pointer


def link_children(nodes: Sequence[dict[str, Any]]) -> tuple[npt.NDArray[np.intp], list[Finding]]:
    """Read each node's parent from the ``children`` lists and check that they form a forest.

    Parameters
    ----------
    nodes : list of dict
        The file's ``nodes`` array.

    Returns
    -------
    parents : (N,) int array
        Each node's parent index, -1 for a root (and for a child its findings leave out).
    findings : list of Finding
        TYPE_MISMATCH, UNRESOLVED_REFERENCE and NODE_PARENT_OVERRIDE per bad ``children`` entry;
        when there is none of those, NODE_LOOP per node on a loop.
    """
    parents, findings = np.full(len(nodes), -1, dtype=np.intp), []
    for i, node in enumerate(nodes):
        children = node.get("children", [])
        if not isinstance(children, list):
            findings.append(Finding("TYPE_MISMATCH", pointer("nodes", i, "children"),
                                    f"node {i} 'children' must be an array"))
            continue
        for j, child in enumerate(children):
            where = pointer("nodes", i, "children", j)
            if not is_index(child, len(nodes)):
                findings.append(Finding("UNRESOLVED_REFERENCE", where,
                                        f"node {i} lists child {child!r}, which is no node"))
            elif parents[child] != -1:
                findings.append(Finding("NODE_PARENT_OVERRIDE", where,
                                        f"node {child} already has parent {parents[child]}; "
                                        f"node {i} cannot be a second parent"))
            else:
                parents[child] = i
    if not findings:  # loops are only well defined once every node has at most one parent
        findings += _loops(parents)
    return parents, findings


def depth_levels(parents: npt.NDArray[np.intp]) -> list[npt.NDArray[np.intp]]:
    """Group the nodes of a forest by depth, roots first.

    Composing global matrices level by level computes every parent before its children, with one
    batched matmul per level instead of one per node.

    Parameters
    ----------
    parents : (N,) int array
        Each node's parent index, -1 for a root; the hierarchy must be a forest (a node on a loop
        is on no level).

    Returns
    -------
    list of (n_d,) int arrays
        The indices of the nodes at depth 0, 1, 2, ... in ascending order; every node of the
        forest is on exactly one level.

    Examples
    --------
    >>> import numpy as np
    >>> [level.tolist() for level in depth_levels(np.array([-1, 0, 0, 2]))]  # 0 > (1, 2 > 3)
    [[0], [1, 2], [3]]
    >>> [level.tolist() for level in depth_levels(np.array([2, -1, -1, 1]))]  # two trees
    [[1, 2], [0, 3]]
    """
    level, levels = np.flatnonzero(parents == -1), []
    while level.size:
        levels.append(level)
        level = np.flatnonzero(_members(level, len(parents))[parents])
    return levels


def is_index(value: object, size: int) -> bool:
    """Tell whether a JSON value is an index into an array of ``size`` items (a bool is not)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size


def _members(nodes, count):
    """(count + 1,) mask of ``nodes``, indexable by parent indices (-1, a root's, reads the spare
    last slot, never set): np.isin without its sort, faster on the small trees of real files
    (measured: docs/manual/benchmarks.md, "Kernel choices")."""
    mask = np.zeros(count + 1, dtype=bool)
    mask[nodes] = True
    return mask


def _loops(parents):
    """NODE_LOOP findings, one per node on a loop (with one parent per node, walking up the
    parents from a node that is no root's descendant must come back round)."""
    reached = parents == -1
    frontier = reached.copy()
    while frontier.any():
        frontier = ~reached & _members(np.flatnonzero(frontier), len(parents))[parents]
        reached |= frontier
    on_loop = set()
    for start in np.flatnonzero(~reached):
        seen, node = [], int(start)
        while node not in seen and node not in on_loop:
            seen.append(node)
            node = int(parents[node])
        if node in seen:
            on_loop.update(seen[seen.index(node):])
    return [Finding("NODE_LOOP", pointer("nodes", i), f"node {i} is part of a node loop")
            for i in sorted(on_loop)]
