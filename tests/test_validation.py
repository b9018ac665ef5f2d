"""The validation room: the constraint vocabulary, the declared tables and the weight checker."""

import re
from numbers import Integral, Real

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import BaseEstimator

from treesmith import DecisionTreeClassifier, DecisionTreeRegressor
from treesmith._validation import (
    InstanceOf,
    Interval,
    Options,
    RealNotInt,
    check_class_weight,
    check_consistent_rows,
    check_parameter,
    check_sample_weight,
    clamp_count,
    describe,
    validate_parameters,
)


@pytest.mark.parametrize("constraint, good, bad", [
    (Interval(Integral, 1, None), [1, 2, 10**30, np.int64(5)], [0, -1, 1.0, True, "1", None]),
    (Interval(Real, 0, 1, "right"), [1, 0.5, np.float32(0.1)], [0, 0.0, 1.01, np.nan, True]),
    (Interval(RealNotInt, 0, 1, "neither"), [0.5], [1, 0, 1.0, 0.0, np.nan]),
    (Interval(Real, 0, None), [0, 1e300], [np.inf, -1e-300, np.nan]),
    (Interval(Real, 0, None, allow_inf=True), [np.inf], [-np.inf, np.nan]),
    (Options({"a", "b"}), ["a", "b"], ["c", None, ["a"], np.array(["a"])]),
    (InstanceOf(dict, "a dict"), [{}], [[], None]),
])
def test_constraints_accept_exactly_their_values(constraint, good, bad):
    assert all(constraint.accepts(value) for value in good)
    assert not any(constraint.accepts(value) for value in bad)


def test_descriptions_read_as_english():
    assert describe([Interval(Integral, 1, None), None]) == "an int >= 1 or None"
    assert describe([Interval(Real, 0.0, 0.5, "both")]) == "a float in [0.0, 0.5]"
    assert describe([None, Interval(Integral, 1, None), Options({"sqrt", "log2"})]) == \
        "None, an int >= 1 or one of 'log2', 'sqrt'"
    with pytest.raises(ValueError, match=r"^Tree: depth must be an int >= 1 or None, got 0\.$"):
        check_parameter("depth", 0, [Interval(Integral, 1, None), None], "Tree")


@given(st.integers(min_value=1, max_value=10**40), st.integers(min_value=1, max_value=10**6))
def test_clamp_count_never_exceeds_the_limit(value, limit):
    assert clamp_count(value, limit) == min(value, limit)


class _Forest(BaseEstimator):
    """How another estimator reuses the table (see the module docstring)."""

    _parameter_table = {"n_estimators": [Interval(Integral, 1, None)],
                        "bootstrap": ["boolean"], "random_state": ["random_state"]}

    def __init__(self, n_estimators=100, bootstrap=True, random_state=None):
        self.n_estimators = n_estimators
        self.bootstrap = bootstrap
        self.random_state = random_state


def test_a_new_estimator_declares_its_table_once():
    validate_parameters(_Forest())
    for params, name in [({"n_estimators": 0}, "n_estimators"), ({"bootstrap": 1}, "bootstrap"),
                         ({"random_state": "x"}, "random_state")]:
        with pytest.raises(ValueError, match=f"_Forest: {name} must be"):
            validate_parameters(_Forest(**params))


def test_every_estimator_parameter_is_declared():
    """Parameters resolved elsewhere (criterion names, rules, costs) are listed here."""
    resolved_elsewhere = {"split_rule", "feature_costs", "cost_groups"}
    for estimator in (DecisionTreeClassifier(), DecisionTreeRegressor()):
        declared = set(type(estimator)._parameter_table)
        assert set(estimator.get_params()) - declared == resolved_elsewhere


def test_sample_weight_checker():
    np.testing.assert_array_equal(check_sample_weight(None, 3), np.ones(3))
    np.testing.assert_array_equal(check_sample_weight(2, 2), [2.0, 2.0])
    np.testing.assert_allclose(check_sample_weight([1, 3], 2, normalize=True), [0.25, 0.75])
    np.testing.assert_array_equal(check_sample_weight([0, 0], 2, positive_sum=False), [0, 0])
    huge = check_sample_weight(np.full(4, 1e308), 4)
    assert np.isfinite(huge.sum()) and np.all(huge == huge[0])  # exact power-of-two scale
    with pytest.raises(ValueError, match="sums to infinity"):
        check_sample_weight(np.full(4, 1e308), 4, rescale=False)
    with pytest.raises(ValueError, match="spans too many orders of magnitude"):
        check_sample_weight(np.r_[np.full(4, 1e308), 1e-310], 5)
    with pytest.raises(ValueError, match=r"negative at rows 1, 2"):
        check_sample_weight([1, -1, -2], 3)
    with pytest.raises(ValueError, match=r"my_weight must be finite"):
        check_sample_weight([1, np.nan], 2, name="my_weight")


def test_class_weight_checker():
    check_class_weight({0: 0.0, 1: 2}, np.array([0, 1]))
    check_class_weight("balanced", np.array([0, 1]))
    with pytest.raises(ValueError, match=r"class_weight\['a'\] must be a finite number"):
        check_class_weight({"a": -1}, np.array(["a", "b"]))


def test_consistent_rows():
    assert check_consistent_rows(X=np.zeros((3, 2)), y=[1, 2, 3], sample_weight=None) == 3
    with pytest.raises(ValueError, match=r"X has 3, y has 2"):
        check_consistent_rows(X=np.zeros((3, 2)), y=[1, 2])


@pytest.mark.parametrize("constraints, shown", [
    ([None, 0], "[None]"), ([1, "up"], "['up']"), ([1.5, None], "[1.5, None]")])
def test_monotonic_cst_with_missing_or_text_entries_names_them(constraints, shown):
    """[None, 0] raised numpy's "'<' not supported between instances of 'int' and
    'NoneType'" (sorting the bad entries) instead of naming the parameter."""
    from treesmith._validation import check_monotonic_cst

    with pytest.raises(ValueError, match=r"monotonic_cst must hold only -1 .* got " +
                       re.escape(shown)):
        check_monotonic_cst(constraints, 2)
