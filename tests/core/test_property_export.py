"""core.fitting.property_export: the translation, scale and weights tolerances of an export, from the
model's size and the node hierarchy (hand-built trees and boxes; sums checked chain by chain)."""

import numpy as np
import pytest

from gltf_sqlerp.core.fitting.property_export import (
    STILL, UNIT_SIZE, ancestor_scales, chain_budgets, channel_tolerance, model_size, parents_first,
    spread_of, total_tolerance
)

# 0 - 1 - 2 - 3 (a chain), 1 - 4 (a branch), 5 (another root)
PARENTS = [-1, 0, 1, 2, 1, -1]


def chains(parents):
    """Every chain from a root to a leaf, as lists of nodes."""
    leaves = set(range(len(parents))) - set(parents)
    result = []
    for leaf in sorted(leaves):
        chain, node = [], leaf
        while node >= 0:
            chain.append(node)
            node = parents[node]
        result.append(chain[::-1])
    return result


def test_model_size_is_the_diagonal_of_the_points_box_with_fallbacks():
    assert model_size([[0, 0, 0], [3, 4, 12], [1, 1, 1]]) == pytest.approx(13.0)
    assert model_size(np.zeros((0, 3)), [[0, 0, 0], [0, 3, 4]]) == pytest.approx(5.0)
    assert model_size(np.zeros((0, 3)), np.zeros((0, 3))) == UNIT_SIZE
    assert model_size([[2, 2, 2]]) == UNIT_SIZE  # one point has no size: a glTF unit


def test_parents_come_first():
    order = parents_first(PARENTS).tolist()
    assert all(order.index(parent) < order.index(node) for node, parent in enumerate(PARENTS) if parent >= 0)


def test_moving_nodes_split_the_total_along_their_longest_chain():
    spread = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])  # every node moves
    budgets = chain_budgets(PARENTS, spread, total=1e-3)
    assert budgets[[0, 1, 2, 3]] == pytest.approx(np.full(4, 1e-3 / 4))
    assert budgets[4] == pytest.approx(1e-3 / 3)  # its own longest chain: 0 - 1 - 4
    assert budgets[5] == pytest.approx(1e-3)


def test_still_nodes_keep_their_spread_and_chains_stay_within_the_total():
    total = 1e-3
    spread = np.array([0.5, 1e-7, np.nan, 0.2, 3e-5, 1e-9]) * [1, 1, 1, 1, 1, 1]
    budgets = chain_budgets(PARENTS, spread, total)
    still = spread <= STILL * total
    assert still.tolist() == [False, True, False, False, True, True]
    assert (budgets[still] >= spread[still]).all()
    for chain in chains(PARENTS):
        present = [n for n in chain if not np.isnan(spread[n])]
        assert budgets[present].sum() <= total * (1 + 1e-12), chain


def test_ancestor_scales_multiply_down_the_tree():
    largest = np.array([2.0, 0.5, 3.0, 7.0, 10.0, 4.0])
    assert ancestor_scales(PARENTS, largest).tolist() == [1.0, 2.0, 1.0, 3.0, 1.0, 1.0]


def test_channel_tolerances_per_path():
    translation, norm = channel_tolerance("translation", np.zeros((3, 3)), 2e-4, parent_scale=4.0)
    assert (translation, norm) == (pytest.approx(5e-5), True)
    scales = np.array([[2.0, -1.0, 0.0], [1.0, 0.5, 0.0]])
    tolerance, norm = channel_tolerance("scale", scales, 1e-4)
    assert not norm
    assert tolerance == pytest.approx(1e-4 * np.array([[2.0, 1.0, 0.02], [1.0, 0.5, 0.02]]))
    assert channel_tolerance("weights", np.zeros((2, 4)), 1e-4) == (1e-4, False)
    assert total_tolerance("translation", 1e-4, 30.0) == pytest.approx(3e-3)
    assert total_tolerance("scale", 1e-4, 30.0) == total_tolerance("weights", 1e-4, 30.0) == 1e-4
    with pytest.raises(ValueError):
        channel_tolerance("rotation", np.zeros((2, 4)), 1e-4)


def test_spread_is_the_error_of_the_middle_value():
    values = np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    assert spread_of("translation", values, parent_scale=2.0) == pytest.approx(5.0)
    assert spread_of("scale", np.array([[1.0], [1.5]])) == pytest.approx(0.25)
    assert spread_of("weights", np.array([[0.0, 1.0], [0.5, 1.0]])) == pytest.approx(0.25)
