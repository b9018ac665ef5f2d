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
    # an int beyond float64 (10**400) is no usable real number: refused, not an OverflowError
    (Interval(Real, 0, None), [0, 1e300, 10**30], [np.inf, -1e-300, np.nan, 10**400]),
    (Interval(RealNotInt, 0, 1, "right"), [0.5], [10**400, -10**400]),
    (Interval(Real, 0, None, allow_inf=True), [np.inf], [-np.inf, np.nan]),
    (Options({"a", "b"}), ["a", "b"], ["c", None, ["a"], np.array(["a"])]),
    # a numpy scalar or 0-d array has __array__ but no entries to iterate
    ("array-like", [[1], (), np.array([1]), range(2)], [np.int64(1), np.array(1), "ab", {}]),
    (InstanceOf(dict, "a dict"), [{}], [[], None]),
])
def test_constraints_accept_exactly_their_values(constraint, good, bad):
    from treesmith._validation import _as_constraint

    constraint = _as_constraint(constraint)
    assert all(constraint.accepts(value) for value in good)
    assert not any(constraint.accepts(value) for value in bad)


def test_a_numpy_datetime_array_is_refused_as_a_frame_column_is():
    """scikit-learn turned datetime64 into nanoseconds (floats) for an array, while the same
    data in a DataFrame column was refused."""
    X = np.datetime64("2020-01-01") + np.arange(60).reshape(20, 3)
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=r"^X has dtype datetime64\[D\]; treesmith needs "
                                         r"numbers"):
        DecisionTreeClassifier().fit(X, y)
    model = DecisionTreeClassifier().fit(np.arange(60.0).reshape(20, 3), y)
    with pytest.raises(ValueError, match=r"X has dtype timedelta64"):
        model.predict(np.arange(60).reshape(20, 3).astype("timedelta64[s]"))


def test_descriptions_read_as_english():
    assert describe([Interval(Integral, 1, None), None]) == "an int >= 1 or None"
    assert describe([Interval(Real, 0.0, 0.5, "both")]) == "a float in [0.0, 0.5]"
    assert describe([None, Interval(Integral, 1, None), Options({"sqrt", "log2"})]) == \
        "None, an int >= 1 or one of 'log2', 'sqrt'"
    with pytest.raises(ValueError, match=r"^Tree: depth must be an int >= 1 or None, got 0\.$"):
        check_parameter("depth", 0, [Interval(Integral, 1, None), None], "Tree")


@pytest.mark.parametrize("name", ["ccp_alpha", "min_impurity_decrease",
                                  "min_weight_fraction_leaf", "min_weight_fraction_split"])
def test_an_int_beyond_float64_is_refused_by_name(name):
    """math.isnan(10**400) raised OverflowError ('int too large to convert to float')."""
    X, y = np.arange(20.0).reshape(10, 2), np.arange(10) % 2
    with pytest.raises(ValueError, match=rf"^DecisionTreeClassifier: {name} must be a float "):
        DecisionTreeClassifier(**{name: 10**400}).fit(X, y)


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
    # numpy's cast to float64 dropped the imaginary part (with a ComplexWarning only)
    with pytest.raises(ValueError, match=r"^sample_weight must be real numbers, one per sample "
                                         r"\(2\); got complex numbers\.$"):
        check_sample_weight(np.array([1 + 2j, 1 + 0j]), 2)


def test_a_frame_without_columns_is_named():
    """numpy's 'at least one array or dtype is required' (scikit-learn's too)."""
    import pandas as pd

    with pytest.raises(ValueError, match=r"^X is a DataFrame without columns \(shape=\(6, 0\)\)"):
        DecisionTreeClassifier().fit(pd.DataFrame(index=range(6)), np.arange(6) % 2)


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


# -- plain numpy input: the fast path equals scikit-learn's validation --------------------------
def _training_inputs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    with_nan = X.copy()
    with_nan[::3, 1] = np.nan
    with_inf = X.copy()
    with_inf[2, 2] = np.inf
    huge = np.full((4, 2), 1e308)  # the sum overflows, no element is infinite
    y = np.arange(20) % 3
    return [
        (X, y), (with_nan, y), (X.astype(np.float32), y), (np.asfortranarray(X), y),
        (X[:, ::2], y), (X, y.astype(np.uint8)), (X, y == 1), (X, y.astype(float)),
        (X, np.array(["a", "b"])[y % 2]), (huge, np.arange(4)),
        # not plain: scikit-learn's validation runs (conversions, messages)
        (X.tolist(), y), (X.astype(np.int64), y), (X, y.tolist()), (X, y[:, None]),
        (X, y[:5]), (with_inf, y), (X, np.where(y == 1, np.nan, y)), (X[:0], y[:0]),
        (X, y.astype(object)), (X.astype(np.float16), y),
    ]


@pytest.mark.parametrize("case", range(len(_training_inputs())))
@pytest.mark.parametrize("y_numeric", [False, True])
def test_plain_training_arrays_are_what_validate_data_returns(case, y_numeric):
    from sklearn.utils.validation import validate_data

    from treesmith._validation import plain_training_arrays

    X, y = _training_inputs()[case]
    ours, theirs = DecisionTreeRegressor(), DecisionTreeRegressor()
    ours.feature_names_in_ = theirs.feature_names_in_ = np.array(["old"], dtype=object)
    plain = plain_training_arrays(ours, X, y, y_numeric)
    try:
        expected = validate_data(theirs, X, y, dtype=(np.float64, np.float32),
                                 ensure_all_finite="allow-nan", y_numeric=y_numeric)
    except ValueError:
        assert plain is None  # scikit-learn's error is raised by the caller's slow path
        return
    # the first ten inputs are plain (text labels only as class labels): the fast path
    # takes them; the others go to scikit-learn
    takes = case < 10 and not (y_numeric and y.dtype.kind == "U")
    assert (plain is not None) == takes
    if plain is None:
        return
    for got, want in zip(plain, expected, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        assert got.flags.c_contiguous == want.flags.c_contiguous
    assert plain[0] is X  # never a copy, as scikit-learn keeps a float array as it is
    assert ours.n_features_in_ == theirs.n_features_in_
    assert hasattr(ours, "feature_names_in_") == hasattr(theirs, "feature_names_in_") is False


def test_plain_prediction_array_only_for_what_needs_no_check():
    import pandas as pd

    from treesmith._validation import plain_prediction_array

    X = np.random.default_rng(0).normal(size=(10, 3))
    model = DecisionTreeClassifier().fit(X, np.arange(10) % 2)
    assert plain_prediction_array(model, X) is X
    assert plain_prediction_array(model, X.astype(np.float32)) is not None
    for other in (X[:, :2], X.tolist(), X.astype(int), X[:0], X[0]):
        assert plain_prediction_array(model, other) is None
    named = DecisionTreeClassifier().fit(pd.DataFrame(X, columns=list("abc")),
                                         np.arange(10) % 2)
    assert plain_prediction_array(named, X) is None  # scikit-learn warns: no feature names
    with pytest.warns(UserWarning, match="feature names"):
        named.predict(X)


@pytest.mark.parametrize("y", [np.arange(6) % 2, np.arange(6), np.arange(6) > 2,
                               np.array(list("abcabc")), np.arange(6, dtype=np.uint16),
                               np.arange(6.0), np.arange(6) + 0.5, np.arange(6).astype(object),
                               np.zeros(0, dtype=int), np.zeros((6, 1), dtype=int)])
def test_labels_are_classes_only_when_scikit_learn_agrees(y):
    from sklearn.utils.multiclass import check_classification_targets

    from treesmith._validation import labels_are_classes

    if labels_are_classes(y):
        check_classification_targets(y)  # must not raise


def test_constructor_parameters_are_scikit_learns():
    from treesmith._validation import constructor_parameters
    from treesmith.ensemble import RandomForestRegressor

    for cls in (DecisionTreeClassifier, DecisionTreeRegressor, RandomForestRegressor):
        assert constructor_parameters(cls) == BaseEstimator._get_param_names.__func__(cls)
        assert cls._get_param_names() == constructor_parameters(cls)
        names = constructor_parameters(cls)
        names.append("changed")  # a copy: the cached list is not changed
        assert "changed" not in constructor_parameters(cls)


def test_the_seeded_generator_draws_what_a_new_random_state_draws():
    import threading

    from treesmith._validation import seeded_generator
    from treesmith.ensemble.forest import tree_seed

    for seed in (0, 1, 12345, 2**31 - 2):
        seeded_generator(seed + 1).randint(0, 10, size=7)  # used before: seeded again
        np.testing.assert_array_equal(seeded_generator(seed).randint(0, 150, size=300),
                                      np.random.RandomState(seed).randint(0, 150, size=300))
        assert tree_seed(seed) == int(np.random.RandomState(seed).randint(0, 2**31 - 1))
    draws = {}

    def draw(seed):
        generator = seeded_generator(seed)
        draws[seed] = [generator.randint(0, 2**31 - 1) for _ in range(3)]

    threads = [threading.Thread(target=draw, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert draws == {seed: np.random.RandomState(seed).randint(0, 2**31 - 1, size=3).tolist()
                     for seed in range(4)}


@pytest.mark.parametrize("params", [{"max_features": 2}, {"max_features": 2, "pruning": "rep"},
                                    {"max_features": 1, "max_leaf_nodes": 6}])
def test_an_int_seed_grows_the_tree_of_its_random_state(params):
    # an int random_state draws the growth seed from a generator seeded again (no RandomState
    # built for the fit) when nothing else draws from it: the tree of RandomState(seed)
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    for seed in (0, 3, 2**32 - 1):
        ours = DecisionTreeClassifier(random_state=seed, **params).fit(X, y)
        theirs = DecisionTreeClassifier(random_state=np.random.RandomState(seed),
                                        **params).fit(X, y)
        for name, array in ours.tree_.to_arrays().items():
            np.testing.assert_array_equal(array, getattr(theirs.tree_, name), err_msg=name)


def test_a_binning_without_subsample_still_checks_its_random_state():
    from treesmith import BinMapper

    X = np.arange(12.0).reshape(6, 2)
    assert BinMapper(random_state=3).fit(X).n_bins_non_missing_.tolist() == [6, 6]
    with pytest.raises(ValueError, match=r"^BinMapper: random_state must be None, an int in "
                                         r"\[0, 2\*\*32 - 1\] or a numpy RandomState, "
                                         r"got 'three'\.$"):
        BinMapper(random_state="three").fit(X)


@pytest.mark.parametrize("params, match", [
    # scikit-learn's "Seed must be between 0 and 2**32 - 1" / "... cannot be used to seed":
    # neither named random_state; a bool was seed 0 or 1
    ({"random_state": -1}, r"random_state must be None, an int in \[0, 2\*\*32 - 1\]"),
    ({"random_state": 2**32}, r"random_state must be"),
    ({"random_state": True}, r"random_state must be"),
    ({"random_state": np.random.default_rng(0)}, r"random_state must be"),
    # a bool was a sample of one row ("expected a sequence of integers ..., got 'True'")
    ({"subsample": True}, r"^BinMapper: subsample must be an int >= 1 or None, got True\.$"),
    ({"subsample": 2.5}, r"subsample must be an int >= 1 or None"),
    ({"max_bins": 2**40}, r"^BinMapper: max_bins must be an int in \[2, 65535\] or None"),
])
def test_bin_mapper_parameters_are_named(params, match):
    from treesmith import BinMapper

    with pytest.raises(ValueError, match=match):
        BinMapper(**params).fit(np.arange(12.0).reshape(6, 2))


@pytest.mark.parametrize("y, predicted", [
    (np.array([0, 1, 2, 2]), np.array([0, 1, 1, 2])),
    (np.array([0, 1, 1]), np.array([True, True, False])),
    (np.array(list("abca")), np.array(list("abba"))),
    (np.arange(7, dtype=np.uint8), np.arange(7)),
    (np.array([1.0, 2.0]), np.array([1, 2])),  # float labels: scikit-learn's path
    (np.array(list("ab")), np.array([0, 1])),  # text against numbers: scikit-learn's error
    (np.array([0, 1]).tolist(), np.array([0, 1])),
])
@pytest.mark.parametrize("weighted", [False, True])
def test_plain_accuracy_is_accuracy_score(y, predicted, weighted):
    from sklearn.metrics import accuracy_score

    from treesmith._validation import plain_accuracy

    weight = np.linspace(1.0, 2.0, len(y)) if weighted else None
    ours = plain_accuracy(y, predicted, weight)
    try:
        expected = accuracy_score(y, predicted, sample_weight=weight)
    except (TypeError, ValueError):
        assert ours is None
        return
    assert ours is None or ours == expected
    if not weighted and isinstance(y, np.ndarray) and y.dtype.kind != "f" and (
            (y.dtype.kind == "U") == (predicted.dtype.kind == "U")):
        assert ours is not None


def test_scores_are_scikit_learns():
    from sklearn.base import ClassifierMixin
    from sklearn.datasets import load_iris

    from treesmith.ensemble import RandomForestClassifier

    X, y = load_iris(return_X_y=True)
    for model in (DecisionTreeClassifier(max_depth=2).fit(X, y),
                  RandomForestClassifier(5, max_depth=2, random_state=0).fit(X, y)):
        for labels in (y, y.tolist()):
            assert model.score(X, labels) == ClassifierMixin.score(model, X, labels)
        weight = np.arange(150.0)
        assert model.score(X, y, weight) == ClassifierMixin.score(model, X, y, weight)
