"""Out-of-bag estimates of the forests and the rows their bootstraps drew
(``estimators_samples_``), docs/methods.md §7: a row is out of bag for a tree exactly when the
tree's bootstrap did not draw it, whatever its weight (scikit-learn's definition)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import RandomForestClassifier as SkForestClassifier
from sklearn.ensemble import RandomForestRegressor as SkForestRegressor
from sklearn.metrics import accuracy_score, r2_score

import treesmith.ensemble.forest as forest_module
from treesmith.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from treesmith.ensemble.forest import bootstrap_counts, bootstrap_indices

NO_OOB = "do not have OOB scores"


def _one_feature(n=60, seed=0):
    """Integer values of one feature (fewer than max_bins): treesmith's trees of depth 3 and
    scikit-learn's are the same trees when they grow on the same bootstrap."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 12, size=(n, 1)).astype(float)
    y_class = ((X[:, 0] % 3 == 0) ^ (rng.random(n) < 0.1)).astype(int)
    y_value = X[:, 0] ** 2 + rng.normal(size=n)
    return X, y_class, y_value


def _oob_by_hand(forest, X, predict):
    """Mean of ``predict(member, rows)`` over the trees whose drawn rows
    (``estimators_samples_``) miss each row; NaN where every tree drew it."""
    total, n_trees = None, np.zeros(X.shape[0])
    for drawn, member in zip(forest.estimators_samples_, forest.estimators_):
        oob = np.setdiff1d(np.arange(X.shape[0]), drawn)
        values = predict(member, X[oob])
        if total is None:
            total = np.zeros((X.shape[0],) + values.shape[1:])
        total[oob] += values
        n_trees[oob] += 1
    with np.errstate(invalid="ignore"):
        return total / n_trees.reshape((-1,) + (1,) * (total.ndim - 1)), n_trees > 0


# -- against scikit-learn -------------------------------------------------------------------
def test_same_draws_and_out_of_bag_estimates_as_scikit_learn():
    """Without sample weights the bootstrap is scikit-learn's, seed for seed: the same drawn
    rows, and on one feature the same trees, hence the same OOB estimates and scores."""
    X, y_class, y_value = _one_feature()
    for Sk, Ours, y in ((SkForestClassifier, RandomForestClassifier, y_class),
                        (SkForestRegressor, RandomForestRegressor, y_value)):
        sk = Sk(40, max_depth=3, max_features=None, oob_score=True, random_state=1).fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # 40 trees: every row is out of bag somewhere
            ours = Ours(40, max_depth=3, max_features=None, oob_score=True,
                        random_state=1).fit(X, y)
        for theirs, mine in zip(sk.estimators_samples_, ours.estimators_samples_):
            np.testing.assert_array_equal(mine, theirs)
            assert mine.dtype == theirs.dtype == np.int32
        if Ours is RandomForestClassifier:
            np.testing.assert_allclose(ours.oob_decision_function_, sk.oob_decision_function_,
                                       rtol=0, atol=1e-12)
        else:
            np.testing.assert_allclose(ours.oob_prediction_, sk.oob_prediction_, rtol=1e-12)
        assert ours.oob_score_ == pytest.approx(sk.oob_score_, rel=1e-12)


def test_rows_never_out_of_bag_are_nan_where_scikit_learn_has_zero():
    """With few trees some rows are in every bootstrap: scikit-learn 1.9.1 gives them the
    prediction 0 (its docs say NaN) and scores them; treesmith gives NaN, one warning, and
    scores the other rows. Elsewhere the estimates are scikit-learn's."""
    X, y, _ = _one_feature()
    sk = SkForestClassifier(3, max_depth=3, max_features=None, oob_score=True,
                            random_state=0)
    with pytest.warns(UserWarning):
        sk.fit(X, y)
    with pytest.warns(UserWarning, match=NO_OOB) as caught:
        ours = RandomForestClassifier(3, max_depth=3, max_features=None, oob_score=True,
                                      random_state=0).fit(X, y)
    assert sum(NO_OOB in str(w.message) for w in caught) == 1
    never = np.all([np.isin(np.arange(len(y)), drawn) for drawn in ours.estimators_samples_],
                   axis=0)
    assert never.any()
    assert np.isnan(ours.oob_decision_function_[never]).all()
    assert not np.isnan(ours.oob_decision_function_[~never]).any()
    assert (sk.oob_decision_function_[never] == 0).all()
    np.testing.assert_allclose(ours.oob_decision_function_[~never],
                               sk.oob_decision_function_[~never], atol=1e-12)
    assert ours.oob_score_ == accuracy_score(
        y[~never], ours.oob_decision_function_[~never].argmax(axis=1))


def test_scikit_learn_does_not_weight_the_oob_score_and_neither_do_we():
    """scikit-learn 1.9.1 scores its OOB decision with the metric alone, no sample_weight;
    treesmith's oob_score_ is the same unweighted metric over the rows with an estimate."""
    X, y, _ = _one_feature(80, seed=3)
    weight = np.random.default_rng(3).random(len(y)) ** 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # heavy rows are drawn by every tree
        sk = SkForestClassifier(50, max_depth=3, oob_score=True, random_state=0).fit(
            X, y, sample_weight=weight)
    decided = sk.oob_decision_function_.argmax(axis=1)
    assert sk.oob_score_ == accuracy_score(y, decided)
    assert sk.oob_score_ != accuracy_score(y, decided, sample_weight=weight)
    ours = RandomForestClassifier(50, max_depth=3, oob_score=True, random_state=0).fit(
        X, y, sample_weight=weight)
    seen = ~np.isnan(ours.oob_decision_function_[:, 0])
    decided = ours.oob_decision_function_[seen].argmax(axis=1)
    assert ours.oob_score_ == accuracy_score(y[seen], decided)
    assert ours.oob_score_ != accuracy_score(y[seen], decided, sample_weight=weight[seen])


# -- the definition, recomputed by hand --------------------------------------------------------
def _classifier_values(member, X):
    return member.tree_.predict(X)


def _regressor_values(member, X):
    return member.tree_.predict(X)[:, 0]


@pytest.mark.parametrize("Forest,params", [
    (RandomForestClassifier, {}),
    (RandomForestClassifier, {"class_weight": "balanced_subsample"}),
    (RandomForestClassifier, {"max_samples": 0.5}),
    (RandomForestClassifier, {"max_samples": 150}),
    (ExtraTreesClassifier, {"bootstrap": True}),
    (RandomForestRegressor, {}),
    (RandomForestRegressor, {"max_samples": 0.4}),
    (ExtraTreesRegressor, {"bootstrap": True, "max_samples": 0.7}),
])
def test_oob_is_recomputed_from_the_drawn_rows(Forest, params):
    """Rows of weight 0 included: the OOB estimate of a row averages exactly the trees whose
    drawn rows miss it; the score is the unweighted metric over the rows that have one."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(90, 4)).round(1)
    y = (X[:, 0] + X[:, 1] > 0).astype(int) if Forest._task == "classification" else \
        X[:, 0] - X[:, 2] + 0.1 * rng.normal(size=90)
    weight = rng.integers(1, 4, 90).astype(float)
    zero = np.arange(0, 90, 6)
    weight[zero] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a row may have no OOB estimate
        forest = Forest(15, max_depth=4, oob_score=True, random_state=2, **params).fit(
            X, y, sample_weight=weight)
    classifier = Forest._task == "classification"
    expected, seen = _oob_by_hand(forest, X, _classifier_values if classifier
                                  else _regressor_values)
    # the rows of weight 0 are drawn (uniform draws) and then not out of bag for that tree
    assert any(np.isin(zero, drawn).any() for drawn in forest.estimators_samples_)
    if classifier:
        np.testing.assert_allclose(forest.oob_decision_function_, expected, rtol=1e-12)
        decided = forest.classes_.take(np.argmax(expected[seen], axis=1))
        assert forest.oob_score_ == accuracy_score(y[seen], decided)
    else:
        np.testing.assert_allclose(forest.oob_prediction_, expected, rtol=1e-12)
        assert forest.oob_score_ == pytest.approx(r2_score(y[seen], expected[seen]),
                                                  rel=1e-12)


def test_a_zero_weight_row_is_not_out_of_bag_for_a_tree_that_drew_it():
    """The defect this fixes: rows of weight 0 counted as out of bag in every tree, so their
    OOB estimate was the whole forest's prediction."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + rng.normal(size=40)
    weight = np.ones(40)
    weight[0] = 0.0
    forest = RandomForestRegressor(20, oob_score=True, random_state=0).fit(
        X, y, sample_weight=weight)
    out = [t for t, drawn in enumerate(forest.estimators_samples_) if 0 not in drawn]
    assert 0 < len(out) < 20
    expected = np.mean([forest.estimators_[t].predict(X[:1])[0] for t in out])
    assert forest.oob_prediction_[0] == pytest.approx(expected, rel=1e-12)
    assert forest.oob_prediction_[0] != pytest.approx(forest.predict(X[:1])[0], rel=1e-9)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 2), st.integers(10, 40), st.integers(2, 6),
       st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=40, max_size=40))
def test_regressor_oob_invariant(seed, n, n_trees, weights):
    """Any data, weights (zeros included) and number of trees: the OOB prediction is the mean
    over the trees that did not draw the row, NaN (one warning) where every tree drew it."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 2)).astype(float)
    y = rng.normal(size=n)
    weight = np.asarray(weights[:n])
    weight[0] = 1.0  # some positive weight in every bootstrap is not guaranteed otherwise
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            forest = RandomForestRegressor(n_trees, max_depth=3, oob_score=True,
                                           random_state=seed % 1000).fit(
                X, y, sample_weight=weight)
        except ValueError as error:  # a bootstrap without positive weight: a clear error
            assert "bootstrap sample" in str(error)
            return
    expected, seen = _oob_by_hand(forest, X, _regressor_values)
    np.testing.assert_allclose(forest.oob_prediction_, expected, rtol=1e-12)
    assert sum(NO_OOB in str(w.message) for w in caught) == (0 if seen.all() else 1)


# -- estimators_samples_ ------------------------------------------------------------------------
def test_drawn_rows_are_the_bootstrap_counts(monkeypatch):
    """``bootstrap_indices`` draws what ``bootstrap_counts`` counts, in chunks and beyond
    ``MULTINOMIAL_DRAWS`` (then in increasing row order)."""
    for n_samples, n_draws in ((10, 10), (7, 100), (1000, 300)):
        np.testing.assert_array_equal(
            np.bincount(bootstrap_indices(3, n_samples, n_draws), minlength=n_samples),
            bootstrap_counts(3, n_samples, n_draws))
    whole = bootstrap_indices(5, 9, 50)
    monkeypatch.setattr(forest_module, "BOOTSTRAP_CHUNK", 7)
    np.testing.assert_array_equal(bootstrap_indices(5, 9, 50), whole)  # same stream
    np.testing.assert_array_equal(np.bincount(whole, minlength=9), bootstrap_counts(5, 9, 50))
    monkeypatch.setattr(forest_module, "MULTINOMIAL_DRAWS", 20)
    drawn = bootstrap_indices(5, 9, 50)
    assert np.all(np.diff(drawn) >= 0) and drawn.shape == (50,)
    np.testing.assert_array_equal(np.bincount(drawn, minlength=9), bootstrap_counts(5, 9, 50))


def test_estimators_samples_without_bootstrap_warm_start_and_before_fit():
    X, y, _ = _one_feature(30)
    forest = ExtraTreesClassifier(3, random_state=0).fit(X, y)
    samples = forest.estimators_samples_
    assert len(samples) == 3
    for drawn in samples:
        np.testing.assert_array_equal(drawn, np.arange(30))
    once = RandomForestClassifier(6, random_state=4, max_samples=0.5).fit(X, y)
    warm = RandomForestClassifier(2, random_state=4, max_samples=0.5, warm_start=True).fit(X, y)
    warm.set_params(n_estimators=6).fit(X, y)
    for a, b in zip(once.estimators_samples_, warm.estimators_samples_):
        np.testing.assert_array_equal(a, b)
        assert a.shape == (15,)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        RandomForestClassifier().estimators_samples_


def test_no_out_of_bag_row_is_named():
    """max_samples=2**31 draws every row in every bootstrap: the OOB metric failed on empty
    arrays with scikit-learn's 'Found empty input array'."""
    from sklearn.datasets import make_classification

    from treesmith import RandomForestClassifier, RandomForestRegressor

    X, y = make_classification(60, 3, n_redundant=0, random_state=0)
    for Forest, target in ((RandomForestClassifier, y), (RandomForestRegressor, X[:, 0])):
        with pytest.raises(ValueError, match=r"oob_score: none of the 60 training rows is out "
                                             r"of bag for any of the 5 trees"):
            Forest(5, oob_score=True, max_samples=2**31, random_state=0).fit(X, target)
