"""Feature costs, cost groups and cost models (treesmith.costs, SPEC §5)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treesmith import _dtypes
from treesmith.costs import COST_MODELS, group_costs, resolve_costs

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
    # the fitted form round-trips
    assert resolve_costs(None, as_ids, None, 4).cost_group.tolist() == as_ids.tolist()


@pytest.mark.parametrize("bad, message", [
    ([["age", "bp"], ["bp", "chol"]], "disjoint"),
    ([["age"], ["nope"]], "no feature is named 'nope'"),
    ([0, 1, 2], "one id per column"),
    (["age", "bp"], "must be a list of columns"),
    ("age", "cost_groups must be"),
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
