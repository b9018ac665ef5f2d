"""Random forests on the engine (treesmith.ensemble.forest)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, make_classification
from sklearn.ensemble import RandomForestClassifier as SklearnForest
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

import treesmith
from treesmith import DecisionTreeClassifier, DecisionTreeRegressor, metrics
from treesmith.ensemble import RandomForestClassifier, RandomForestRegressor
import treesmith.ensemble.forest as forest_module
from treesmith.ensemble.forest import bootstrap_counts


def expected_failures(estimator):
    """As for scikit-learn's own forests: a bootstrap draws rows uniformly, so weight 2 is not
    the same as a repeated row (the repeated row is drawn twice as often)."""
    reason = "bootstrap: an integer weight is not equivalent to repeating the row"
    return {"check_sample_weight_equivalence_on_dense_data": reason,
            "check_sample_weight_equivalence_on_sparse_data": reason}


@parametrize_with_checks([RandomForestClassifier(n_estimators=5, random_state=0),
                          RandomForestRegressor(n_estimators=5, random_state=0)],
                         expected_failed_checks=expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0)


def test_accuracy_close_to_scikit_learn(cancer):
    X_train, X_test, y_train, y_test = cancer
    ours = RandomForestClassifier(60, random_state=0).fit(X_train, y_train).score(X_test, y_test)
    theirs = SklearnForest(60, random_state=0).fit(X_train, y_train).score(X_test, y_test)
    assert ours >= theirs - 0.03
    single = DecisionTreeClassifier(random_state=0).fit(X_train, y_train).score(X_test, y_test)
    assert ours >= single


def test_member_is_the_tree_grown_on_its_bootstrap_counts(cancer):
    """Each member is a single tree with random_state = its seed fitted with the bootstrap
    multiplicities as sample weights. The forest bins once, on all rows, while a single tree
    bins only its positive-weight rows, so with exact bins the two trees make the same tests on
    the in-bag rows (same features, counts and values; a threshold may sit anywhere in the gap
    between two in-bag values)."""
    X_train, _, y_train, _ = cancer
    forest = RandomForestClassifier(3, max_features=5, max_bins=None,
                                    random_state=1).fit(X_train, y_train)
    for member in forest.estimators_:
        counts = bootstrap_counts(member.random_state, X_train.shape[0], X_train.shape[0])
        single = DecisionTreeClassifier(max_features=5, max_bins=None,
                                        random_state=member.random_state).fit(
            X_train, y_train, sample_weight=counts)
        assert np.array_equal(single.tree_.feature, member.tree_.feature)
        assert np.array_equal(single.tree_.n_node_samples, member.tree_.n_node_samples)
        assert np.allclose(single.tree_.value, member.tree_.value)
        in_bag = counts > 0
        assert np.array_equal(single.apply(X_train[in_bag]), member.apply(X_train[in_bag]))


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
@pytest.mark.parametrize("backend", ["threads", "processes"])
def test_same_forest_whatever_n_jobs(Forest, backend, monkeypatch):
    monkeypatch.setattr(forest_module, "FOREST_WORK_PER_THREAD", 1)  # threads even when tiny
    monkeypatch.setattr(forest_module, "FOREST_PREDICT_WORK_PER_THREAD", 1)
    monkeypatch.setattr(forest_module, "PARALLEL_BACKEND", backend)
    X, y = make_classification(400, 8, random_state=0)
    X[::7, 2] = np.nan
    one = Forest(6, random_state=3, n_jobs=1).fit(X, y)
    for n_jobs in (2, -1, None):
        other = Forest(6, random_state=3, n_jobs=n_jobs).fit(X, y)
        for a, b in zip(one.estimators_, other.estimators_):
            assert np.array_equal(a.tree_.feature, b.tree_.feature)
            assert np.array_equal(a.tree_.threshold, b.tree_.threshold, equal_nan=True)
            assert np.array_equal(a.tree_.value, b.tree_.value)
        assert np.array_equal(one.predict(X), other.predict(X))
        if hasattr(one, "predict_proba"):  # every row's sum in tree order, bit for bit
            assert np.array_equal(one.predict_proba(X), other.predict_proba(X))


def test_parallel_prediction_sums_the_trees_as_one_thread_does(monkeypatch):
    X, y = make_classification(300, 6, n_classes=3, n_informative=4, random_state=5)
    forest = RandomForestClassifier(7, random_state=0, n_jobs=1).fit(X, y)
    expected = np.zeros((300, 3))
    for member in forest.estimators_:
        expected += member.tree_.predict(X)
    monkeypatch.setattr(forest_module, "FOREST_PREDICT_WORK_PER_THREAD", 1)
    forest.set_params(n_jobs=2)
    assert np.array_equal(forest.predict_proba(X), expected / 7)
    regressor = RandomForestRegressor(5, random_state=0, n_jobs=2).fit(X, X[:, 0])
    total = sum(member.tree_.predict(X)[:, 0] for member in regressor.estimators_)
    assert np.array_equal(regressor.predict(X), total / 5)


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_gathered_rows_grow_the_same_trees(Forest, monkeypatch):
    """Trees grown on a gathered copy of their drawn rows (``gather_rows``) equal the trees
    grown on the whole matrix with zero weights elsewhere: same rows, same order, same sums."""
    X, y = make_classification(600, 8, random_state=1)
    X[::5, 3] = np.nan
    params = dict(n_estimators=4, max_samples=0.5, random_state=2, n_jobs=1)
    gathered = Forest(**params).fit(X, y)
    assert forest_module.gathers_rows(True, 1, 300, np.zeros((600, 8), np.uint8, order="F"))
    monkeypatch.setattr(forest_module, "gathers_rows", lambda *args: False)
    whole = Forest(**params).fit(X, y)
    for a, b in zip(gathered.estimators_, whole.estimators_):
        for name in ("feature", "threshold", "value", "n_node_samples", "impurity"):
            assert np.array_equal(getattr(a.tree_, name), getattr(b.tree_, name),
                                  equal_nan=True), name


def test_bootstrap_weights_take_the_fast_scan_and_grow_the_same_trees(monkeypatch):
    """Bootstrap multiplicities are integer weights: with min_samples_leaf=1 the trees use the
    scan that reads the weight columns only (``splitting.scan_feature_unit_weights``) and
    grow exactly the generic scan's trees."""
    from treesmith import grower

    X, y = make_classification(800, 10, n_informative=6, n_classes=3, random_state=4)
    X[::6, 1] = np.nan
    used = []
    original = grower.TreeGrower._unit_weight_scan
    monkeypatch.setattr(grower.TreeGrower, "_unit_weight_scan",
                        lambda self, data: used.append(original(self, data)) or used[-1])
    fast = RandomForestClassifier(5, random_state=0, n_jobs=1).fit(X, y)
    assert used == [True] * 5
    monkeypatch.setattr(grower.TreeGrower, "_unit_weight_scan", lambda self, data: False)
    generic = RandomForestClassifier(5, random_state=0, n_jobs=1).fit(X, y)
    for a, b in zip(fast.estimators_, generic.estimators_):
        for name in ("feature", "threshold", "value", "n_node_samples", "missing_go_left"):
            assert np.array_equal(getattr(a.tree_, name), getattr(b.tree_, name),
                                  equal_nan=True), name


def test_gathered_rows_stay_within_their_memory_budget():
    X_binned = np.asfortranarray(np.arange(10_000).reshape(1000, 10) % 251, dtype=np.uint8)
    rows = np.array([3, 5, 900])
    drawn = forest_module.gather_rows(X_binned, np.arange(1000), np.arange(1000.0), rows)
    assert drawn.X_binned.flags.f_contiguous
    assert np.array_equal(drawn.X_binned, X_binned[rows])
    assert np.array_equal(drawn.y_code, rows) and np.array_equal(drawn.sample_weight, rows)
    assert not forest_module.gathers_rows(False, 1, 1000, X_binned)  # no bootstrap
    budget = forest_module.GATHER_MEMORY_BYTES
    wide = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), (budget // 10, 20), (0, 0))
    assert forest_module.gathers_rows(True, 2, budget // 20, wide)  # copies = the matrix
    assert not forest_module.gathers_rows(True, 3, budget // 20, wide)


def test_forest_threads_follow_the_single_tree_policy(monkeypatch):
    """n_jobs=None is every core the process may use (as for a single tree): a loky or
    GridSearchCV worker's OMP_NUM_THREADS share is honoured; trees go to threads first."""
    from treesmith import _threading

    monkeypatch.setattr(_threading, "available_threads", lambda: 2)
    assert forest_module.forest_threads(None, 100, 1e6) == (2, 1)
    assert forest_module.forest_threads(-1, 100, 1e6) == (2, 1)
    assert forest_module.forest_threads(1, 100, 1e6) == (1, 1)
    assert forest_module.forest_threads(None, 100, 10) == (1, 1)  # too small to pay
    monkeypatch.setattr(_threading, "available_threads", lambda: 1)  # a worker's share
    assert forest_module.forest_threads(None, 100, 1e6) == (1, 1)
    assert forest_module.forest_threads(-1, 100, 1e6) == (1, 1)
    with pytest.raises(ValueError, match="n_jobs"):
        forest_module.forest_threads(0, 100, 1e6)


def test_forest_in_a_loky_worker_uses_the_workers_share():
    """joblib's process workers (GridSearchCV(n_jobs=k), cross_val_score) set
    OMP_NUM_THREADS to cores // k: a forest there grows on that share, not on every core."""
    from joblib import Parallel, cpu_count, delayed

    results = Parallel(n_jobs=2, backend="loky")(
        delayed(forest_module.forest_threads)(None, 100, 1e7) for _ in range(2))
    share = max(1, cpu_count() // 2)
    assert all(workers == share and per_tree == 1 for workers, per_tree in results)


def test_oob_score_estimates_the_test_score(cancer):
    X_train, X_test, y_train, y_test = cancer
    forest = RandomForestClassifier(50, oob_score=True, random_state=0).fit(X_train, y_train)
    assert abs(forest.oob_score_ - forest.score(X_test, y_test)) < 0.06
    assert forest.oob_decision_function_.shape == (X_train.shape[0], 2)
    assert np.allclose(np.nansum(forest.oob_decision_function_, axis=1), 1.0)


def test_regressor_oob_and_accuracy():
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    forest = RandomForestRegressor(50, oob_score=True, random_state=0).fit(X_train, y_train)
    single = DecisionTreeRegressor(random_state=0).fit(X_train, y_train)
    assert forest.score(X_test, y_test) > single.score(X_test, y_test) + 0.1
    assert forest.oob_score_ > 0.2
    assert forest.oob_prediction_.shape == y_train.shape


def test_without_bootstrap_all_trees_see_all_rows():
    X, y = make_classification(300, 6, random_state=0)
    forest = RandomForestClassifier(3, bootstrap=False, max_features=None,
                                    random_state=0).fit(X, y)
    for member in forest.estimators_:
        assert member.tree_.n_node_samples[0] == 300
    assert forest.score(X, y) == 1.0


def test_max_samples_draws_fewer_rows():
    X, y = make_classification(1000, 6, random_state=0)
    forest = RandomForestClassifier(4, max_samples=0.1, random_state=0).fit(X, y)
    for member in forest.estimators_:
        assert member.tree_.weighted_n_node_samples[0] == pytest.approx(100)


def test_missing_values_and_feature_names():
    X, y = make_classification(500, 5, random_state=0)
    X[::7, 2] = np.nan
    frame = pd.DataFrame(X, columns=list("abcde"))
    forest = RandomForestClassifier(10, random_state=0).fit(frame, y)
    assert list(forest.feature_names_in_) == list("abcde")
    assert forest.score(frame, y) > 0.9
    with pytest.warns(UserWarning, match="feature names"):
        forest.predict(X)
    # Members carry the forest's names (a member predicts on the frame without a warning and
    # exports name its features); scikit-learn's members have only n_features_in_.
    for member in forest.estimators_:
        assert list(member.feature_names_in_) == list("abcde")
        assert member.n_features_in_ == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        forest.estimators_[0].predict(frame)


def test_every_split_rule_and_costs_reach_the_trees():
    X, y = make_classification(300, 4, random_state=0)
    costs = [1.0, 2.0, 5.0, 10.0]
    forest = RandomForestClassifier(5, split_rule="cost_benefit", feature_costs=costs,
                                    cost_model="per_feature", criterion="entropy",
                                    random_state=0).fit(X, y)
    assert all(m.split_rule_.name == "cost_benefit" for m in forest.estimators_)
    assert np.array_equal(forest.feature_costs_, costs)
    # expected cost of a forest: per example, the union of the features on its paths
    per_example = metrics.path_costs(forest, X)
    used = np.zeros((X.shape[0], 4), dtype=bool)
    for member in forest.estimators_:
        paths = member.decision_path(X).toarray().astype(bool)
        internal = member.tree_.children_left != -1
        for node in np.flatnonzero(internal):
            used[paths[:, node], member.tree_.feature[node]] = True
    assert np.allclose(per_example, used @ np.asarray(costs))


def test_feature_importances_sum_to_one():
    X, y = make_classification(300, 6, n_informative=2, n_redundant=0, shuffle=False,
                               random_state=0)
    forest = RandomForestClassifier(20, random_state=0).fit(X, y)
    assert forest.feature_importances_.sum() == pytest.approx(1.0)
    assert set(np.argsort(forest.feature_importances_)[-2:]) == {0, 1}
    assert forest.apply(X).shape == (300, 20)
    indicator, n_nodes_ptr = forest.decision_path(X)
    assert indicator.shape == (300, n_nodes_ptr[-1])


@pytest.mark.parametrize("params, message", [
    ({"n_estimators": 0}, "n_estimators"),
    ({"oob_score": True, "bootstrap": False}, "oob_score"),
    ({"max_samples": 0.0}, "max_samples"),
    ({"max_samples": 10, "bootstrap": False}, "max_samples"),
    ({"n_jobs": 0}, "n_jobs"),
    ({"max_features": "all"}, "max_features"),
    ({"class_weight": "some"}, "class_weight"),
])
def test_bad_parameters_are_named(params, message):
    X, y = make_classification(50, 4, random_state=0)
    with pytest.raises(ValueError, match=message):
        RandomForestClassifier(**{"n_estimators": 3, **params}).fit(X, y)


FORESTS = [RandomForestClassifier, RandomForestRegressor, treesmith.ExtraTreesClassifier,
           treesmith.ExtraTreesRegressor]


@pytest.mark.parametrize("Forest", FORESTS)
@pytest.mark.parametrize("params, message", [
    # the trees' parameters are checked as the single tree checks them (its table), not
    # converted with float() or int(): these were accepted and changed meaning
    ({"min_impurity_decrease": -1}, r"min_impurity_decrease must be a float >= 0.0, got -1"),
    ({"min_impurity_decrease": float("nan")}, r"min_impurity_decrease must be .*got nan"),
    ({"min_impurity_decrease": "3"}, r"min_impurity_decrease must be .*got '3'"),
    ({"min_impurity_decrease": True}, r"min_impurity_decrease must be .*got True"),
    ({"min_impurity_decrease": np.array(0.5)}, r"min_impurity_decrease must be"),
    ({"cost_model": None}, r"cost_model must be one of"),
    ({"random_state": True}, r"random_state must be None, an int"),
    # max_samples=True was one draw per tree
    ({"max_samples": True}, r"max_samples must be None, an int in \[1, 9007199254740992\] "
                            r"or a float > 0.0, got True"),
    ({"max_samples": float("inf")}, r"max_samples must be .* a float > 0.0, got inf"),
    # beyond int64 the multinomial draw raised OverflowError after the data were binned
    ({"max_samples": 2**63}, r"max_samples must be None, an int in \[1, 9007199254740992\]"),
    ({"max_samples": np.uint64(2**63)}, r"max_samples must be"),
    ({"bootstrap": 1}, r"bootstrap must be a bool, got 1"),
    ({"warm_start": "yes"}, r"warm_start must be a bool"),
    ({"n_estimators": 2.0}, r"n_estimators must be an int >= 1, got 2.0"),
])
def test_forest_parameters_are_checked_before_the_data(Forest, params, message):
    """Every parameter is checked against the forest's table (the trees' own for the
    parameters passed to each tree) at the start of fit: X and y are not even looked at."""
    with pytest.raises(ValueError, match=message):
        Forest(**{"n_estimators": 3, **params}).fit(None, None)


@pytest.mark.parametrize("Forest", FORESTS)
def test_every_forest_parameter_is_declared(Forest):
    """As for the single tree (test_validation): only the names resolved elsewhere (rules,
    costs) are missing from the table, and the trees' parameters have the trees' domain."""
    from treesmith.estimators import TREE_PARAMETER_CONSTRAINTS

    forest = Forest()
    declared = set(type(forest)._parameter_table)
    assert set(forest.get_params()) - declared == {"split_rule", "feature_costs", "cost_groups"}
    for name in set(TREE_PARAMETER_CONSTRAINTS) & declared:
        assert type(forest)._parameter_table[name] == TREE_PARAMETER_CONSTRAINTS[name], name


@pytest.mark.parametrize("Forest", FORESTS)
@pytest.mark.parametrize("n_estimators", [2**31, 10**12, np.uint64(2**63)])
def test_a_forest_too_large_for_memory_is_refused_before_allocating(Forest, n_estimators):
    """The seeds of 10**12 trees were 7 TiB of int64 (MemoryError from numpy, or 'Maximum
    allowed dimension exceeded'); a tree takes kilobytes, so the forest is refused first."""
    X, y = make_classification(30, 3, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match=rf"n_estimators={int(n_estimators)} trees need at "
                                         r"least .* more than the .* of memory available"):
        Forest(n_estimators=n_estimators).fit(X, y)


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_a_huge_int_ccp_alpha_prunes_every_tree_to_its_root(Forest):
    """ccp_alpha=10**30 (an int) reached np.isfinite / np.isnan as an object and raised a
    TypeError; it is the same as the float 1e30."""
    X, y = make_classification(40, 3, n_redundant=0, random_state=0)
    forest = Forest(n_estimators=2, ccp_alpha=10**30, random_state=0).fit(X, y)
    assert all(member.get_n_leaves() == 1 for member in forest.estimators_)


@pytest.mark.parametrize("Forest", [RandomForestRegressor, treesmith.ExtraTreesRegressor])
def test_a_target_whose_squares_overflow_is_named_as_by_the_single_tree(Forest):
    """y near 1e200: w * y**2 overflows float64. The single tree says so; the forests grew
    one-leaf trees (every impurity inf or NaN) and predicted a constant, silently."""
    X, y = make_classification(60, 3, n_redundant=0, random_state=0)
    target = (X[:, 0] + 0.1 * X[:, 1]) * 1e200
    with pytest.raises(ValueError, match=r"y is too large for float64 sums"):
        DecisionTreeRegressor().fit(X, target)
    with pytest.raises(ValueError, match=r"y is too large for float64 sums"):
        Forest(n_estimators=3, random_state=0).fit(X, target)
    scaled = Forest(n_estimators=3, random_state=0).fit(X, target / 1e200)
    assert all(member.get_n_leaves() > 1 for member in scaled.estimators_)


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
@pytest.mark.parametrize("seed", range(4))
def test_huge_finite_weights_times_bootstrap_counts_stay_finite(Forest, seed):
    """sample_weight 1e308 on a row drawn twice was inf in the tree's weights: the classifier's
    Gini failed (CriterionFailure) or the regressor's leaf values were NaN, depending on the
    seed. A tree's weights are scaled by a power of two when their sum overflows, as the
    single tree's are (exact: the tree is the one of the unscaled weights)."""
    X, y = make_classification(60, 3, n_redundant=0, random_state=0)
    target = y if Forest is RandomForestClassifier else X[:, 0]
    weight = np.r_[1e308, np.full(59, 1e-300)]
    forest = Forest(n_estimators=4, random_state=seed).fit(X, target, sample_weight=weight)
    output = forest.predict_proba(X) if Forest is RandomForestClassifier else forest.predict(X)
    assert np.all(np.isfinite(output))
    big = Forest(n_estimators=4, random_state=seed).fit(X, target, sample_weight=np.full(60, 1e307))
    unit = Forest(n_estimators=4, random_state=seed).fit(X, target)
    assert trees_equal(big, unit)


def test_infinity_is_named_by_column():
    X, y = make_classification(50, 4, random_state=0)
    X[3, 2] = np.inf
    with pytest.raises(ValueError, match="column 2"):
        RandomForestClassifier(3).fit(X, y)


# -- warm_start and class_weight="balanced_subsample", as scikit-learn's forests -------------
def trees_equal(first, second):
    return len(first.estimators_) == len(second.estimators_) and all(np.array_equal(a.tree_.feature, b.tree_.feature)
               and np.array_equal(a.tree_.threshold, b.tree_.threshold, equal_nan=True)
               and np.allclose(a.tree_.value, b.tree_.value)
               for a, b in zip(first.estimators_, second.estimators_))


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_warm_start_adds_trees_and_equals_one_fit_with_an_int_seed(Forest):
    X, y = make_classification(300, 6, random_state=0)
    once = Forest(8, oob_score=True, random_state=3).fit(X, y)
    warm = Forest(3, oob_score=True, warm_start=True, random_state=3).fit(X, y)
    first_trees = list(warm.estimators_)
    warm.set_params(n_estimators=8).fit(X, y)
    assert len(warm.estimators_) == 8
    assert warm.estimators_[:3] == first_trees  # the old trees are kept, not regrown
    assert trees_equal(once, warm)
    assert once.oob_score_ == pytest.approx(warm.oob_score_)
    np.testing.assert_allclose(once.predict(X), warm.predict(X))


def test_warm_start_without_more_trees_warns_and_fewer_raises():
    X, y = make_classification(200, 5, random_state=0)
    forest = RandomForestClassifier(4, warm_start=True, random_state=0).fit(X, y)
    before = list(forest.estimators_)
    with pytest.warns(UserWarning, match="without increasing n_estimators"):
        forest.fit(X, y)
    assert forest.estimators_ == before
    with pytest.raises(ValueError, match="n_estimators=2 must be larger or equal to "
                                         r"len\(estimators_\)=4"):
        forest.set_params(n_estimators=2).fit(X, y)
    cold = RandomForestClassifier(4, random_state=0).fit(X, y)
    assert forest.set_params(warm_start=False, n_estimators=4).fit(X, y).estimators_ != before
    assert trees_equal(cold, forest)


def test_warm_start_keeps_the_categories_its_kept_trees_split_on():
    """The kept trees' category sets are codes in the first fit's categories: a warm start on
    data with a new category (or without one) must not renumber them. The new category is
    warned about and takes the missing side, as at prediction; the kept trees predict as
    before (they predicted 0.51 accuracy instead of 1.0 when the codes shifted)."""
    from treesmith.datasets import UnseenLevelWarning

    rng = np.random.default_rng(0)
    city = rng.choice(list("BCDE"), 400)
    y = np.isin(city, ["B", "D"]).astype(int)
    X = pd.DataFrame({"city": city, "x": rng.normal(size=400)})
    forest = RandomForestClassifier(5, warm_start=True, random_state=0).fit(X, y)
    before = forest.predict_proba(X)
    X_more = pd.concat([X, pd.DataFrame({"city": ["A"] * 20, "x": 0.0})], ignore_index=True)
    with pytest.warns(UnseenLevelWarning, match="'A'"):
        forest.set_params(n_estimators=10).fit(X_more, np.r_[y, np.ones(20, dtype=int)])
    assert list(forest.categories_[0]) == list("BCDE")
    kept = np.mean([tree.predict_proba(X) for tree in forest.estimators_[:5]], axis=0)
    np.testing.assert_array_equal(kept, before)
    assert forest.score(X, y) == 1.0
    with pytest.raises(ValueError, match="'city'.*warm_start"):
        forest.set_params(n_estimators=12).fit(X.assign(city=X.city.map(ord)), y)
    with pytest.raises(ValueError, match="X has 3 features, but the trees warm_start keeps"):
        forest.fit(X.assign(z=1.0), y)
    assert list(forest.categories_[0]) == list("BCDE") and len(forest.estimators_) == 10


def test_balanced_subsample_weighs_each_bootstrap_by_its_own_class_counts():
    """Each tree's root weights equal n_draws / n_classes per class: the class weights are
    n_draws / (n_classes * drawn rows of the class), computed on that tree's bootstrap
    (scikit-learn's compute_sample_weight("balanced", y, indices=drawn))."""
    from sklearn.utils import compute_sample_weight

    X, y = make_classification(400, 5, weights=[0.8, 0.2], random_state=0)
    forest = RandomForestClassifier(5, class_weight="balanced_subsample",
                                    random_state=0).fit(X, y)
    for member in forest.estimators_:
        counts = bootstrap_counts(member.random_state, 400, 400)
        drawn = np.repeat(np.arange(400), counts.astype(int))
        expected = counts * compute_sample_weight("balanced", y, indices=drawn)
        root = member.tree_.value[0] * member.tree_.weighted_n_node_samples[0]
        np.testing.assert_allclose(root, [expected[y == 0].sum(), expected[y == 1].sum()])
        np.testing.assert_allclose(root, [200.0, 200.0])
    # without bootstrap it is "balanced" on all rows, as in scikit-learn
    plain = RandomForestClassifier(2, bootstrap=False, class_weight="balanced_subsample",
                                   random_state=0).fit(X, y)
    balanced = RandomForestClassifier(2, bootstrap=False, class_weight="balanced",
                                      random_state=0).fit(X, y)
    assert trees_equal(plain, balanced)


def test_balanced_subsample_accuracy_close_to_scikit_learn(cancer):
    X_train, X_test, y_train, y_test = cancer
    ours = RandomForestClassifier(60, class_weight="balanced_subsample", random_state=0).fit(
        X_train, y_train).score(X_test, y_test)
    theirs = SklearnForest(60, class_weight="balanced_subsample", random_state=0).fit(
        X_train, y_train).score(X_test, y_test)
    assert ours >= theirs - 0.03


def test_bootstrap_counts_draw_in_chunks_what_one_draw_would():
    """Chunked draws give the counts of one randint call (scikit-learn's bootstrap)."""
    for n_samples, n_draws in [(7, 3_000_001), (1000, forest_module.BOOTSTRAP_CHUNK + 1)]:
        expected = np.bincount(np.random.RandomState(5).randint(0, n_samples, n_draws),
                               minlength=n_samples)
        np.testing.assert_array_equal(bootstrap_counts(5, n_samples, n_draws), expected)


def test_a_huge_int_max_samples_does_not_allocate_one_index_per_draw():
    """max_samples=10**8 on 20 rows: 10**8 draws would be 800 MB of indices at once."""
    import tracemalloc

    tracemalloc.start()
    counts = bootstrap_counts(0, 20, 10**8)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert counts.sum() == 10**8
    assert peak < 64 * 2**20


def test_beyond_multinomial_draws_the_counts_come_from_their_distribution():
    """max_samples=10**12 on 50 rows: 10**12 draws one by one would run for hours. Beyond
    MULTINOMIAL_DRAWS the counts are one Multinomial(n_draws, 1/n each) draw of the seed's
    RandomState, so every count is near n_draws / n and they sum to n_draws exactly."""
    n_samples, n_draws = 50, 10**12
    counts = bootstrap_counts(7, n_samples, n_draws)
    expected = np.random.RandomState(7).multinomial(n_draws, np.full(n_samples, 1 / n_samples))
    np.testing.assert_array_equal(counts, expected)
    assert counts.sum() == n_draws
    mean = n_draws / n_samples
    assert np.all(np.abs(counts - mean) < 6 * np.sqrt(mean))
    # at the boundary the draws are still scikit-learn's, one by one
    small = forest_module.MULTINOMIAL_DRAWS
    assert bootstrap_counts(7, 3, small).sum() == small
    X, y = make_classification(50, 4, random_state=0)
    forest = RandomForestClassifier(2, max_samples=n_draws, random_state=0).fit(X, y)
    for member in forest.estimators_:
        weights = bootstrap_counts(member.random_state, n_samples, n_draws)
        alone = DecisionTreeClassifier(max_features="sqrt", random_state=member.random_state)
        alone.fit(X, y, sample_weight=weights)
        np.testing.assert_array_equal(member.tree_.threshold, alone.tree_.threshold)


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_ccp_alpha_prunes_every_tree_as_the_single_tree_does(Forest):
    """scikit-learn's forests take ccp_alpha: each tree is grown, then pruned by minimal
    cost-complexity on its own (bootstrap-weighted) impurities."""
    from treesmith.pruning import prune_tree_ccp

    X, y = make_classification(300, 6, random_state=0)
    grown = Forest(4, random_state=0).fit(X, y)
    pruned = Forest(4, ccp_alpha=0.01, random_state=0).fit(X, y)
    for full, small in zip(grown.estimators_, pruned.estimators_):
        expected = prune_tree_ccp(full.tree_, 0.01)
        assert small.tree_.node_count == expected.node_count < full.tree_.node_count
        np.testing.assert_array_equal(small.tree_.feature, expected.feature)
        assert small.ccp_alpha == 0.01
    with pytest.raises(ValueError, match="ccp_alpha"):
        Forest(2, ccp_alpha=-1.0).fit(X, y)


@pytest.mark.parametrize("max_samples", [None, 0.2])
def test_weight_fractions_are_of_each_trees_bootstrap_weight(max_samples):
    """min_weight_fraction_leaf is a fraction of the tree's own (bootstrap-weighted) total, as
    for the single tree fitted with its bootstrap counts and in scikit-learn's forests: with
    max_samples=0.2 the leaves must reach 0.01 x 400 draws, not 0.01 x 2000 rows. Exact bins:
    the forest bins all rows, a single tree its drawn rows only."""
    X, y = make_classification(2000, 6, flip_y=0.3, random_state=0)
    forest = RandomForestClassifier(3, max_samples=max_samples, min_weight_fraction_leaf=0.01,
                                    max_bins=None, random_state=0).fit(X, y)
    n_draws = 2000 if max_samples is None else 400
    for member in forest.estimators_:
        counts = bootstrap_counts(member.random_state, 2000, n_draws)
        single = DecisionTreeClassifier(max_features="sqrt", min_weight_fraction_leaf=0.01,
                                        max_bins=None, random_state=member.random_state).fit(
            X, y, sample_weight=counts)
        assert member.tree_.node_count == single.tree_.node_count
        assert np.array_equal(member.tree_.feature, single.tree_.feature)


def test_min_weight_fraction_split_reaches_the_trees_as_ecart_theta():
    """The single tree's min_weight_fraction_split (θ: nodes with p(S) <= θ stay leaves, and
    ECART's truncation) is a forest parameter too, a fraction of each tree's own weight."""
    X, y = make_classification(1000, 6, flip_y=0.2, random_state=0)
    forest = RandomForestClassifier(2, split_rule="ecart", min_weight_fraction_split=0.05,
                                    max_samples=0.5, max_bins=None, max_features=1.0,
                                    random_state=0).fit(X, y)
    for member in forest.estimators_:
        counts = bootstrap_counts(member.random_state, 1000, 500)
        single = DecisionTreeClassifier(split_rule="ecart", min_weight_fraction_split=0.05,
                                        max_bins=None, random_state=member.random_state).fit(
            X, y, sample_weight=counts)
        assert member.min_weight_fraction_split == 0.05
        assert member.tree_.node_count == single.tree_.node_count
        assert np.array_equal(member.tree_.feature, single.tree_.feature)


def test_oob_score_may_be_a_metric_as_in_scikit_learn(cancer):
    """oob_score=callable: oob_score_ is metric(y_true, out-of-bag prediction)."""
    from sklearn.metrics import balanced_accuracy_score, mean_absolute_error

    X_train, _, y_train, _ = cancer
    forest = RandomForestClassifier(20, oob_score=balanced_accuracy_score,
                                    random_state=0).fit(X_train, y_train)
    votes = forest.oob_decision_function_
    seen = ~np.isnan(votes).any(axis=1)
    assert forest.oob_score_ == pytest.approx(balanced_accuracy_score(
        y_train[seen], forest.classes_[np.argmax(votes[seen], axis=1)]))
    X, y = load_diabetes(return_X_y=True)
    regressor = RandomForestRegressor(20, oob_score=mean_absolute_error, random_state=0).fit(X, y)
    seen = ~np.isnan(regressor.oob_prediction_)
    assert regressor.oob_score_ == pytest.approx(mean_absolute_error(
        y[seen], regressor.oob_prediction_[seen]))
    with pytest.raises(ValueError, match="oob_score"):
        RandomForestClassifier(2, oob_score="yes").fit(X_train, y_train)


def test_members_are_clones_of_the_template_with_their_seed():
    from sklearn.base import clone

    from treesmith.criteria import Entropy

    X, y = load_breast_cancer(return_X_y=True)
    costs = {0: 2.0, 3: 5.0}
    forest = RandomForestClassifier(3, criterion=Entropy(), feature_costs=costs,
                                    random_state=0).fit(X[:100], y[:100])
    for member, seed in zip(forest.estimators_, forest._seeds):
        expected = clone(forest.estimator_).set_params(random_state=int(seed)).get_params()
        assert repr(member.get_params()) == repr(expected)
        # mutable parameters are each member's own, as clone makes them
        assert member.feature_costs == costs and member.feature_costs is not costs
        assert member.criterion is not forest.estimator_.criterion
    assert forest.estimators_[0].feature_costs is not forest.estimators_[1].feature_costs


@pytest.mark.parametrize("forest", ["RandomForestClassifier", "RandomForestRegressor",
                                    "ExtraTreesClassifier"])
def test_a_bootstrap_sample_without_positive_weight_is_a_clear_error(forest):
    """One positive weight among 120 rows: most bootstrap samples draw only rows of weight 0,
    and the growth kernel failed with numpy's 'negative dimensions not allowed'."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 3)), np.arange(120) % 2
    weight = np.zeros(120)
    weight[0] = 1.0
    model = getattr(treesmith, forest)(n_estimators=10, bootstrap=True, random_state=0)
    with pytest.raises(ValueError, match=r"holds no row of positive weight: only 1 of the 120 "
                                         r"rows have a positive sample_weight"):
        model.fit(X, y, sample_weight=weight)
    weight[:60] = 1.0  # zeros among enough positive rows are fine
    model.fit(X, y, sample_weight=weight)


@pytest.mark.parametrize("Forest", [RandomForestRegressor, treesmith.ExtraTreesRegressor])
def test_regressor_score_checks_the_weights_as_fit_does(Forest):
    """RegressorMixin.score (scikit-learn's r2_score) averaged with negative weights: score(X,
    y, -ones) was a number."""
    X, y = make_classification(60, 3, n_redundant=0, random_state=0)
    forest = Forest(n_estimators=3, random_state=0).fit(X, X[:, 0])
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        forest.score(X, X[:, 0], sample_weight=-np.ones(60))
    assert forest.score(X, X[:, 0], sample_weight=2.0) == forest.score(X, X[:, 0])


def test_a_float_max_samples_above_one_is_a_multiple_of_the_rows():
    """scikit-learn >= 1.9 takes max_samples in (0, inf): 2.5 draws 2.5 n rows per tree; the
    forests refused floats above 1 while they took ints above n."""
    X, y = make_classification(40, 3, n_redundant=0, random_state=0)
    forest = RandomForestClassifier(3, max_samples=2.5, random_state=0).fit(X, y)
    assert all(len(rows) == 100 for rows in forest.estimators_samples_)
    same = RandomForestClassifier(3, max_samples=100, random_state=0).fit(X, y)
    assert trees_equal(forest, same)
    for huge in (1e300, 1e308):  # 1e308 x 40 is inf: round() raised OverflowError
        with pytest.raises(ValueError, match=r"max_samples=1e\+30\d x 40 rows is .* draws per "
                                             r"tree, more than 2\*\*53"):
            RandomForestClassifier(3, max_samples=huge).fit(X, y)
