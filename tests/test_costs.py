"""Feature costs, cost groups, cost models and the cost of a path (treesmith.costs)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treesmith import _dtypes
from treesmith.costs import COST_MODELS, group_costs, node_path_costs, path_cost, resolve_costs

NAMES = np.array(["age", "bp", "chol", "smoker=yes"], dtype=object)


def test_defaults_unit_costs_singleton_groups_per_test():
    resolved = resolve_costs(None, None, None, 3)
    assert resolved.feature_cost.tolist() == [1.0, 1.0, 1.0]
    assert resolved.feature_cost.dtype == np.float64
    assert resolved.cost_group.tolist() == [0, 1, 2] and resolved.cost_group.dtype == np.int64
    assert resolved.model_name == "per_test"
    assert resolved.cost_model == COST_MODELS["per_test"]
    assert resolve_costs(None, None, "per_feature", 3).model_name == "per_feature"
    assert COST_MODELS == {"per_test": _dtypes.COST_PER_TEST,
                           "per_feature": _dtypes.COST_PER_FEATURE}


def test_costs_by_position_and_by_name():
    costs = resolve_costs([1, 2.5, 0, 10], None, "per_feature", 4).feature_cost
    assert costs.tolist() == [1.0, 2.5, 0.0, 10.0]
    costs = resolve_costs({"bp": 3.0, "chol": 0.0, 0: 2.0}, None, None, 4, NAMES).feature_cost
    assert costs.tolist() == [2.0, 3.0, 0.0, 1.0]  # unlisted columns cost 1
    series = pd.Series({"smoker=yes": 4.0, "age": 0.5})
    costs = resolve_costs(series, None, None, 4, NAMES).feature_cost
    assert costs.tolist() == [0.5, 1.0, 1.0, 4.0]


@pytest.mark.parametrize("bad, message", [
    ([1, 2, 3], "one cost per column"),
    ([[1, 2, 3, 4]], "one cost per column"),
    ([1, -1, 1, 1], "non-negative finite"),
    ([1, np.nan, 1, 1], "non-negative finite"),
    ([1, np.inf, 1, 1], "non-negative finite"),
    ([1, "a", 1, 1], "non-negative finite"),
    ([1, True, 1, 1], "non-negative finite"),
    ({"weight": 2.0}, "no feature is named 'weight'"),
    ({7: 2.0}, "outside"),
    ({"bp": -2.0}, "non-negative finite"),
    ("cheap", "feature_costs must be"),
])
def test_bad_feature_costs(bad, message):
    with pytest.raises(ValueError, match=message) as info:
        resolve_costs(bad, None, None, 4, NAMES)
    assert "feature_costs" in str(info.value)


def test_names_need_feature_names():
    with pytest.raises(ValueError, match="no feature names"):
        resolve_costs({"bp": 1.0}, None, None, 4)


def test_cost_groups_forms():
    as_lists = resolve_costs([2, 2, 1, 2], [["age", "bp"], [3]], None, 4, NAMES).cost_group
    as_dict = resolve_costs([2, 2, 1, 2], {"vitals": ["age", "bp"], "habits": ["smoker=yes"]},
                            None, 4, NAMES).cost_group
    as_ids = resolve_costs([2, 2, 1, 2], [5, 5, 9, 7], None, 4).cost_group
    assert as_lists.tolist() == [0, 0, 1, 2]
    assert as_dict.tolist() == [0, 0, 1, 2]
    assert as_ids.tolist() == [0, 0, 1, 2]
    # ids are labels, whatever their size (2**63 raised OverflowError in an int64 array)
    assert resolve_costs(None, [2**63, 2**63, -5, 0], None, 4).cost_group.tolist() == [0, 0, 1, 2]
    # the fitted form round-trips
    assert resolve_costs(None, as_ids, None, 4).cost_group.tolist() == as_ids.tolist()


@pytest.mark.parametrize("bad, message", [
    ([["age", "bp"], ["bp", "chol"]], "disjoint"),
    ([["age"], ["nope"]], "no feature is named 'nope'"),
    ([0, 1, 2], "one id per column"),
    (["age", "bp"], "must be a list of columns"),
    ("age", "cost_groups must be"),
    # numbers are not groupings: they raised "'int' object is not iterable"
    (3, r"cost_groups must be None, a list of column groups, .* got 3\."),
    (2.5, "cost_groups must be None"),
    (True, "cost_groups must be None"),
    (np.int64(3), "cost_groups must be None"),
    (np.array(3), "cost_groups must be None"),
    (b"ab", "cost_groups must be None"),
])
def test_bad_cost_groups(bad, message):
    with pytest.raises(ValueError, match=message) as info:
        resolve_costs(None, bad, None, 4, NAMES)
    assert "cost_groups" in str(info.value)


def test_costs_must_agree_inside_a_group():
    with pytest.raises(ValueError, match="equal inside a cost group.*'age', 'bp' cost 1, 3"):
        resolve_costs([1, 3, 1, 1], [["age", "bp"]], None, 4, NAMES)


@pytest.mark.parametrize("bad", ["per_path", "", 1, "PER_TEST"])
def test_bad_cost_model(bad):
    with pytest.raises(ValueError, match="cost_model must be one of"):
        resolve_costs(None, None, bad, 2)


def test_group_costs():
    resolved = resolve_costs([2, 2, 5, 1], [[0, 1]], "per_feature", 4)
    assert resolved.group_cost.tolist() == [2.0, 5.0, 1.0]
    assert group_costs(np.array([4.0]), np.array([0])).tolist() == [4.0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=12))
def test_group_ids_are_canonical(ids):
    """Any id labelling gives ids 0..G-1 in order of first appearance, same partition."""
    groups = resolve_costs(None, ids, None, len(ids)).cost_group
    ids = np.asarray(ids)
    assert groups[0] == 0
    assert set(groups.tolist()) == set(range(len(set(ids.tolist()))))
    assert np.array_equal(ids[:, None] == ids[None, :], groups[:, None] == groups[None, :])
    first_seen = [g for i, g in enumerate(groups) if g not in groups[:i]]
    assert first_seen == sorted(first_seen)


# -- the cost of a path ----------------------------------------------------------------------
def test_path_cost_by_hand():
    costs = np.array([2.0, 3.0, 5.0])
    assert path_cost([0, 1, 0], costs) == 7.0  # per_test: every test pays
    assert path_cost([0, 1, 0], costs, cost_model="per_feature") == 5.0  # feature 0 once
    # columns 0 and 1 share one acquisition (equal costs): paid once per path
    assert path_cost([0, 1], [3.0, 3.0, 5.0], [0, 0, 1], "per_feature") == 3.0
    assert path_cost([0, 1, 2], [3.0, 3.0, 5.0], [0, 0, 1], "per_feature") == 8.0
    assert path_cost([], costs) == 0.0
    assert path_cost([2], costs, cost_model=COST_MODELS["per_feature"]) == 5.0
    with pytest.raises(ValueError, match="cost_model"):
        path_cost([0], costs, cost_model="per_leaf")


def _ancestors(tree, node):
    parent = tree.parent()
    path = []
    while parent[node] >= 0:
        node = int(parent[node])
        path.append(node)
    return path[::-1]


def _random_tree(seed, n_features=5, max_depth=7):
    from treesmith import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(300, n_features)).astype(float)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 3, 300)) % 3
    return DecisionTreeClassifier(max_depth=max_depth, random_state=seed).fit(X, y).tree_


@pytest.mark.parametrize("model", ["per_test", "per_feature"])
def test_node_path_costs_equal_the_cost_of_every_path(model):
    tree = _random_tree(0)
    costs = np.array([1.0, 2.0, 2.0, 0.0, 7.0])
    groups = np.array([0, 1, 1, 2, 3])  # columns 1 and 2: one acquisition
    got = node_path_costs(tree, costs, groups, model)
    for node in range(tree.node_count):
        tested = [int(tree.feature[a]) for a in _ancestors(tree, node)]
        assert got[node] == pytest.approx(path_cost(tested, costs, groups, model), abs=1e-12)


def test_growth_kernel_marginal_costs_follow_path_cost():
    """The growth kernel's cost of a candidate test at a node (_kernels.growth._path_costs) is
    path_cost(path + [f]) - path_cost(path), for both cost models."""
    from treesmith._kernels.growth import _path_costs
    from treesmith._kernels.records import TestCosts

    tree = _random_tree(1)
    costs = np.array([1.0, 2.0, 2.0, 0.5, 7.0])
    groups = np.array([0, 1, 1, 2, 3])
    parent = tree.parent()
    for model, code in COST_MODELS.items():
        for node in range(tree.node_count):
            out = np.empty(costs.shape[0])
            paid = np.zeros(groups.max() + 1, dtype=np.bool_)
            _path_costs(node, parent, tree.feature.astype(np.int64),
                        TestCosts(costs, groups.astype(np.int64), int(code)), paid,
                        np.zeros(0, dtype=np.bool_), out)
            tested = [int(tree.feature[a]) for a in _ancestors(tree, node)]
            expected = [path_cost(tested + [f], costs, groups, model)
                        - path_cost(tested, costs, groups, model) for f in range(5)]
            np.testing.assert_allclose(out, expected, atol=1e-12)
            assert not paid.any()


def test_node_path_costs_of_a_deep_chain_is_one_pass():
    """A chain of depth 20 000 (the old per-leaf path walk was quadratic: minutes)."""
    from types import SimpleNamespace

    depth = 20_000
    left = np.full(2 * depth + 1, -1)
    right = np.full(2 * depth + 1, -1)
    internal = np.arange(depth) * 2  # internal node 2i: left leaf 2i+1, right 2i+2
    left[internal], right[internal] = internal + 1, internal + 2
    feature = np.full(2 * depth + 1, -2)
    feature[internal] = np.arange(depth) % 3
    chain = SimpleNamespace(children_left=left, children_right=right, feature=feature)
    costs = np.array([1.0, 2.0, 4.0])
    per_test = node_path_costs(chain, costs)
    per_feature = node_path_costs(chain, costs, None, "per_feature")
    assert per_test[-1] == pytest.approx(sum(costs[np.arange(depth) % 3]))
    assert per_feature[-1] == 7.0 and per_feature[0] == 0.0 and per_feature[1] == 1.0
    assert per_feature[3] == 3.0 and per_test[5] == 7.0


def test_node_path_costs_that_overflow_are_named():
    """Finite costs (1e308) summed along a path were inf, with numpy's overflow warning only."""
    from sklearn.datasets import make_classification

    from treesmith import DecisionTreeClassifier

    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(
        *make_classification(200, 4, random_state=0)).tree_
    with pytest.raises(ValueError, match=r"feature_costs are too large for float64 path "
                                         r"costs: a path's sum overflows \(largest cost 1e\+308\)"):
        node_path_costs(tree, np.full(4, 1e308))
    assert np.isfinite(node_path_costs(tree, np.full(4, 1e300))).all()

