"""core.fitting.world_error: world rotation errors composed down a node tree, and the shares of a
tolerance that the export's channels take from them. Values worked by hand."""

import numpy as np
import pytest

from gltf_sqlerp.core.sampling import quaternions as quat
from gltf_sqlerp.core.fitting.world_error import above, chain_shares, compose, tightened_shares, world_errors


def about(axis, degrees):
    """(x, y, z, w) quaternion of a turn about a unit axis."""
    half = np.radians(degrees) / 2.0
    return np.append(np.asarray(axis, dtype=np.float64) * np.sin(half), np.cos(half))


def test_errors_about_one_axis_add_up_along_a_chain_and_cancel_when_opposed():
    parents = np.array([-1, 0, 1])
    exact = np.tile([0.0, 0.0, 0.0, 1.0], (3, 2, 1))
    written = exact.copy()
    written[0, :] = about([0, 0, 1], 0.004)
    written[1, 0] = about([0, 0, 1], 0.003)   # same axis: 0.004 + 0.003 at the child
    written[1, 1] = about([0, 0, 1], -0.003)  # opposed: 0.004 - 0.003
    errors = world_errors(parents, compose(parents, exact), written)
    assert errors == pytest.approx([0.004, 0.007, 0.007], abs=1e-9)


def test_a_constant_turn_between_two_errors_changes_how_they_add():
    """Parent error about z, child error about x, the parent's exact rotation between them 90
    degrees about y: the child's error, seen in the parent's frame, is about z (x turned by 90
    about y is -z), so the two errors subtract: 0.005 - 0.002."""
    parents = np.array([-1, 0])
    exact = np.stack([np.tile(about([0, 1, 0], 90.0), (1, 1)), np.tile([0.0, 0.0, 0.0, 1.0], (1, 1))])
    written = exact.copy()
    written[0] = quat.multiply(about([0, 0, 1], 0.005), exact[0])  # a world-frame error about z
    written[1] = about([1, 0, 0], 0.002)
    errors = world_errors(parents, compose(parents, exact), written)
    assert errors == pytest.approx([0.005, 0.003], abs=1e-9)


def test_chain_shares_split_the_tolerance_by_the_longest_animated_chain_through_a_node():
    #      0*        (animated: *)
    #     / \
    #    1*  2
    #    |   |
    #    3*  4*
    parents = np.array([-1, 0, 0, 1, 2])
    animated = np.array([True, True, False, True, True])
    assert chain_shares(parents, animated) == pytest.approx([1 / 3, 1 / 3, 1 / 2, 1 / 3, 1 / 2])


def test_a_miss_tightens_every_node_above_it_by_the_smallest_factor_below_never_under_the_floor():
    parents = np.array([-1, 0, 0, 1, 2])
    shares = np.full(5, 0.8)
    floor = np.array([0.4, 0.4, 0.5, 0.4, 0.5])
    errors = np.array([0.002, 0.004, 0.0, 0.02, 0.0125])  # nodes 3 (2x over) and 4 (1.25x over)
    new = tightened_shares(parents, shares, errors, 0.01, floor)
    # node 3: 0.8 * 0.85 * 0.5 = 0.34 -> floor 0.4; node 4: 0.8 * 0.85 * 0.8 = 0.544;
    # node 1 above 3 like it; node 2 above 4 like it; the root takes the smaller factor (0.425).
    assert new == pytest.approx([0.4, 0.4, 0.544, 0.4, 0.544])
    assert np.all(tightened_shares(parents, shares, errors * 0.1, 0.01, floor) == shares)


def test_above_marks_the_nodes_and_their_ancestors():
    parents = np.array([-1, 0, 0, 1, 2, -1])
    marked = above(parents, np.array([False, False, False, True, False, False]))
    assert marked.tolist() == [True, True, False, True, False, False]
