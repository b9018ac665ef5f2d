"""Monotonic constraints (``monotonic_cst``, docs/methods.md §4): the split scan against a
brute-force enumeration of admissible splits, monotone predictions on grids for every criterion
family, split rule, growth mode, pruning method and the forests, agreement with scikit-learn
where both search the same splits, and the errors."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn import tree as sklearn_tree
from sklearn.base import clone

import treesmith
from treesmith import DecisionTreeClassifier, DecisionTreeRegressor
from treesmith._kernels.monotonic import child_bounds, is_admissible, node_value
from treesmith._kernels.pointers import impurity_pointer
from treesmith._kernels.records import (
    SPLIT_DTYPE,
    Impurity,
    Monotonicity,
    NodeScan,
    SplitRule,
)
from treesmith._kernels.split_rules import NO_SPLIT, RULE_GAIN
from treesmith._kernels.splitting import scan_feature, scan_workspace
from treesmith.criteria import Gini, registered
from treesmith.ensemble import RandomForestClassifier, RandomForestRegressor
from treesmith.monotonic import restore_monotonicity, value_bounds

CLASSIFICATION_CRITERIA = sorted(name for name, cls in registered().items()
                                 if cls.task == "classification")
REGRESSION_CRITERIA = ["squared_error", "poisson", treesmith.criteria.Tweedie(power=0.5)]


# -- data and checks ----------------------------------------------------------------------------
def make_data(seed, n=300, n_features=3, task="classification", missing=0.0):
    """Labels increasing in feature 0, decreasing in feature 1, noisy in feature 2; a wiggle
    in feature 0 so that unconstrained trees are not monotone."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, n_features))
    signal = 3 * X[:, 0] + np.sin(12 * X[:, 0])
    if n_features > 1:
        signal -= 2 * X[:, 1]
    y = signal + rng.normal(0, 0.5, n)
    if missing:
        X[rng.random((n, n_features)) < missing] = np.nan
    if task == "classification":
        return X, (y > np.median(y)).astype(int)
    if task == "counts":
        return X, rng.poisson(np.exp(signal / 2))
    return X, y


def predicted_value(model, X):
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)[:, 1]
    return model.predict(X)


def assert_monotone_on_grids(model, n_features, constraints, n_points=25, seed=0):
    """Vary each constrained feature over a fine grid (beyond the training range) with the
    other features fixed at ``n_points`` random points: predictions must follow the
    direction."""
    rng = np.random.default_rng(seed)
    grid = np.linspace(-0.2, 1.2, 301)
    for feature, direction in enumerate(constraints):
        if direction == 0:
            continue
        X = np.repeat(rng.random((n_points, n_features)), grid.size, axis=0)
        X[:, feature] = np.tile(grid, n_points)
        values = predicted_value(model, X).reshape(n_points, grid.size)
        steps = np.diff(values, axis=1) * direction
        assert steps.min() >= 0.0, (
            f"feature {feature} (direction {direction}): a step of {steps.min()!r}")


def assert_monotone_structure(tree, constraints):
    """Every split on a constrained feature has all leaf values of one side below all leaf
    values of the other (what the bounds guarantee), in the constraint's direction."""
    column = 1 if tree.value.shape[1] == 2 else 0
    values = tree.value[:, column]

    def leaf_values(node):
        if tree.children_left[node] < 0:
            return [values[node]]
        return leaf_values(tree.children_left[node]) + leaf_values(tree.children_right[node])

    for node in np.flatnonzero(tree.children_left >= 0):
        direction = constraints[tree.feature[node]]
        if direction == 0:
            continue
        left = leaf_values(tree.children_left[node])
        right = leaf_values(tree.children_right[node])
        if direction > 0:
            assert max(left) <= min(right), node
        else:
            assert min(left) >= max(right), node


def check_model(model, X, constraints):
    assert_monotone_on_grids(model, X.shape[1], constraints)
    trees = getattr(model, "estimators_", [model])
    for member in trees:
        assert_monotone_structure(member.tree_, constraints)


# -- the kernel ---------------------------------------------------------------------------------
def gini(proportions):
    return 1.0 - np.sum(proportions ** 2)


def admissible_best_by_brute_force(hist_f, n_bins, missing_bin, direction, lower, upper):
    """Naive reference: enumerate every cut and missing side, keep the admissible ones
    (children's class-1 proportions ordered by ``direction`` and within [lower, upper]) and
    return the best gain with the candidates reaching it.

    As in scikit-learn, the split of the missing values from all others sends them right:
    "missing values alone on the left" is not a candidate (under a constraint the side
    matters, since the check orders the children's values)."""
    totals = hist_f.sum(axis=0)
    total_weight = totals[:2].sum()

    def weighted_h(stats):
        weight = stats[:2].sum()
        return 0.0 if weight <= 0 else weight * gini(stats[:2] / weight)

    parent = weighted_h(totals)
    missing = hist_f[missing_bin]
    candidates = []
    for b in range(n_bins):
        left = hist_f[: b + 1].sum(axis=0)
        right = hist_f[b + 1: n_bins].sum(axis=0)
        for missing_left in (False, True):
            if not missing[2:].sum() and missing_left:
                continue
            if missing_left and not left[2:].sum():
                continue
            children = (left + missing, right) if missing_left else (left, right + missing)
            if min(children[0][2:].sum(), children[1][2:].sum()) < 1:
                continue
            values = [child[1] / child[:2].sum() for child in children]
            if not (all(lower <= v <= upper for v in values)
                    and (values[0] - values[1]) * direction <= 0):
                continue
            gain = (parent - weighted_h(children[0]) - weighted_h(children[1])) / total_weight
            candidates.append((gain, b if b < n_bins - 1 else n_bins - 1, missing_left))
    if not candidates:
        return -np.inf, []
    best = max(c[0] for c in candidates)
    return best, [c for c in candidates if c[0] >= best - 1e-12]


def scan(hist_f, n_bins, missing_bin, direction, lower, upper, skip):
    totals = hist_f.sum(axis=0)
    weight = totals[:2].sum()
    criterion = Gini()
    node = NodeScan(
        2, Impurity(impurity_pointer(criterion.impurity_function()), criterion.parameters()),
        SplitRule(RULE_GAIN, np.zeros(1), np.zeros(1), 0, False, skip), 1, 0.0,
        weight * gini(totals[:2] / weight), weight, np.ascontiguousarray(totals),
        Monotonicity(np.array([direction], dtype=np.int64), lower, upper))
    results = np.zeros(1, dtype=SPLIT_DTYPE)
    scan_feature(np.ascontiguousarray(hist_f), n_bins, missing_bin, node,
                 scan_workspace(1, 4, 2)[0], results, 0)
    return results[0]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), direction=st.sampled_from([-1, 1]),
       bounds=st.sampled_from([(-np.inf, np.inf), (0.2, 0.8), (0.0, 0.5), (0.45, 1.0)]),
       skip=st.booleans(), with_missing=st.booleans())
@example(seed=942604, direction=1, bounds=(-np.inf, np.inf), skip=False, with_missing=True)
@example(seed=1169, direction=1, bounds=(-np.inf, np.inf), skip=False, with_missing=True)
def test_scan_finds_the_best_admissible_split(seed, direction, bounds, skip, with_missing):
    """The scan's split is the best admissible one of the brute-force enumeration (even where
    the same-class-run shortcut would skip it), and NO_SPLIT when none is admissible."""
    rng = np.random.default_rng(seed)
    n_bins = int(rng.integers(2, 9))
    missing_bin = n_bins
    hist_f = np.zeros((n_bins + 1, 4))
    for b in range(n_bins + (1 if with_missing else 0)):
        counts = rng.integers(0, 4, size=2) * (rng.random(2) < 0.7)
        hist_f[b, 2:] = counts
        hist_f[b, :2] = counts * rng.uniform(0.5, 2.0, size=2)
    if hist_f[:, 2:].sum() < 2:
        hist_f[0, [0, 2]] = 1.0
        hist_f[n_bins - 1, [1, 3]] = 1.0
    lower, upper = bounds
    best, winners = admissible_best_by_brute_force(hist_f, n_bins, missing_bin, direction,
                                                   lower, upper)
    split = scan(hist_f, n_bins, missing_bin, direction, lower, upper, skip)
    if not winners:
        assert split["bin_threshold"] == NO_SPLIT
        return
    assert split["bin_threshold"] != NO_SPLIT
    assert split["gain"] == pytest.approx(best, rel=1e-9, abs=1e-12)


def test_value_admissibility_and_child_bounds_by_hand():
    # classification row [w0, w1, n0, n1]: class-1 proportion 3 / 4
    assert node_value(np.array([1.0, 3.0, 1.0, 3.0]), 2) == 0.75
    # class 1 absent (count 0): proportion exactly 0 even with a residual weight
    assert node_value(np.array([2.0, 1e-17, 2.0, 0.0]), 2) == 0.0
    # regression row [n, w, wy, wyy]: mean 6 / 3
    assert node_value(np.array([3.0, 3.0, 6.0, 14.0]), 0) == 2.0
    assert is_admissible(0.2, 0.6, 1, 0.0, 1.0)
    assert not is_admissible(0.6, 0.2, 1, 0.0, 1.0)
    assert is_admissible(0.6, 0.2, -1, 0.0, 1.0)
    assert not is_admissible(0.2, 0.6, 1, 0.3, 1.0)  # left child below the node's lower bound
    assert is_admissible(0.4, 0.4, 1, 0.4, 0.4)  # equal values satisfy both directions
    assert child_bounds(1, 0.0, 1.0, 0.2, 0.6) == (0.0, 0.4, 0.4, 1.0)
    assert child_bounds(-1, 0.1, 0.9, 0.6, 0.2) == (0.4, 0.9, 0.1, 0.4)
    assert child_bounds(0, 0.1, 0.9, 0.6, 0.2) == (0.1, 0.9, 0.1, 0.9)


# -- monotone predictions -----------------------------------------------------------------------
@pytest.mark.parametrize("criterion", CLASSIFICATION_CRITERIA)
def test_classifier_is_monotone_for_every_criterion(criterion):
    X, y = make_data(1)
    for constraints in ([1, -1, 0], [-1, 1, 0]):
        model = DecisionTreeClassifier(criterion=criterion, monotonic_cst=constraints,
                                       random_state=0).fit(X, y)
        check_model(model, X, constraints)


@pytest.mark.parametrize("criterion", REGRESSION_CRITERIA, ids=str)
def test_regressor_is_monotone_for_every_criterion(criterion):
    X, y = make_data(2, task="counts")
    for constraints in ([1, -1, 0], [-1, 1, 0], [1, 1, 1]):
        model = DecisionTreeRegressor(criterion=criterion, monotonic_cst=constraints,
                                      random_state=0).fit(X, y)
        check_model(model, X, constraints)


def test_unconstrained_trees_of_this_data_are_not_monotone():
    """The data of these tests need the constraints (else the checks prove nothing)."""
    X, y = make_data(2, task="regression")
    free = DecisionTreeRegressor(random_state=0).fit(X, y)
    with pytest.raises(AssertionError):
        assert_monotone_on_grids(free, 3, [1, -1, 0])
    X, y = make_data(1)
    free = DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(AssertionError):
        assert_monotone_on_grids(free, 3, [1, -1, 0])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6),
       constraints=st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3),
       max_depth=st.sampled_from([None, 2, 5]), min_samples_leaf=st.sampled_from([1, 7]),
       missing=st.sampled_from([0.0, 0.15]), task=st.sampled_from(["classification",
                                                                     "regression"]))
def test_monotone_on_random_problems(seed, constraints, max_depth, min_samples_leaf, missing,
                                     task):
    X, y = make_data(seed, n=150, task=task, missing=missing)
    estimator = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    model = estimator(monotonic_cst=constraints, max_depth=max_depth,
                      min_samples_leaf=min_samples_leaf, random_state=0).fit(X, y)
    check_model(model, X, constraints)


@pytest.mark.parametrize("split_rule", ["gain", "gain_ratio", "cost_benefit", "ecart", "asr",
                                        "impure_pairs", "balanced", "minimax"])
def test_every_split_rule_chooses_among_admissible_splits(split_rule):
    X, y = make_data(3)
    constraints = [1, -1, 0]
    model = DecisionTreeClassifier(split_rule=split_rule, monotonic_cst=constraints,
                                   feature_costs=[1.0, 2.0, 0.5], min_weight_fraction_split=0.01,
                                   random_state=0).fit(X, y)
    check_model(model, X, constraints)


@pytest.mark.parametrize("split_rule", ["gain", "cost_benefit", "balanced"])
def test_regression_split_rules(split_rule):
    X, y = make_data(3, task="regression")
    model = DecisionTreeRegressor(split_rule=split_rule, monotonic_cst=[1, -1, 0],
                                  feature_costs=[1.0, 2.0, 0.5]).fit(X, y)
    check_model(model, X, [1, -1, 0])


@pytest.mark.parametrize("params", [
    {"max_leaf_nodes": 12}, {"max_features": 1, "random_state": 3},
    {"max_features": "sqrt", "max_leaf_nodes": 20, "random_state": 0},
    {"min_weight_fraction_leaf": 0.02}, {"class_weight": "balanced"},
    {"significance": 0.2, "n_permutations": 50, "random_state": 0},
    {"cost_model": "per_feature", "feature_costs": [3.0, 1.0, 1.0]},
], ids=str)
def test_growth_settings(params):
    X, y = make_data(4, missing=0.1)
    constraints = [1, -1, 0]
    model = DecisionTreeClassifier(monotonic_cst=constraints, **params).fit(X, y)
    check_model(model, X, constraints)


@pytest.mark.parametrize("pruning", [
    {"ccp_alpha": 0.002}, {"pruning": "rep", "random_state": 0}, {"pruning": "tdp"},
    {"pruning": "c45"}, {"pruning": {"method": "c45", "subtree_raising": True}},
    {"pruning": "bup"}, {"pruning": {"method": "ccp", "ccp_alpha": 0.003}},
    {"significance": 0.05, "n_permutations": 99, "random_state": 0},
], ids=str)
def test_pruning_keeps_predictions_monotone(pruning):
    """A pruned node becomes a leaf with its own value, which lies within its bounds; C4.5's
    subtree raising recomputes values and clips them again."""
    X, y = make_data(5, n=400)
    constraints = [1, -1, 0]
    grown = DecisionTreeClassifier(monotonic_cst=constraints, random_state=0).fit(X, y)
    model = DecisionTreeClassifier(monotonic_cst=constraints, **pruning).fit(X, y)
    assert model.get_n_leaves() < grown.get_n_leaves()
    check_model(model, X, constraints)


@pytest.mark.parametrize("pruning", [{"ccp_alpha": 0.01}, {"pruning": "rep"}], ids=str)
def test_regression_pruning_keeps_predictions_monotone(pruning):
    X, y = make_data(5, n=400, task="regression")
    model = DecisionTreeRegressor(monotonic_cst=[1, -1, 0], random_state=0, **pruning).fit(X, y)
    check_model(model, X, [1, -1, 0])


def test_restore_monotonicity_makes_any_tree_monotone():
    """The clipping pass used after subtree raising, on an unconstrained tree: values within
    the bounds derived from the tree, predictions monotone, an unconstrained feature free."""
    X, y = make_data(6, task="regression")
    free = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    constraints = np.array([1, -1, 0])
    model = clone(free)
    model.fit(X, y)
    model.tree_ = restore_monotonicity(free.tree_, constraints)
    check_model(model, X, constraints)
    lower, upper = value_bounds(free.tree_, constraints)
    assert np.all((lower <= model.tree_.value[:, 0]) & (model.tree_.value[:, 0] <= upper))
    unchanged = restore_monotonicity(free.tree_, np.zeros(3, dtype=int))
    np.testing.assert_array_equal(unchanged.value, free.tree_.value)


# -- growth paths -------------------------------------------------------------------------------
def test_all_zero_constraints_grow_the_unconstrained_tree():
    X, y = make_data(7, task="regression")
    free = DecisionTreeRegressor(random_state=0).fit(X, y)
    zero = DecisionTreeRegressor(monotonic_cst=[0, 0, 0], random_state=0).fit(X, y)
    np.testing.assert_array_equal(free.tree_.threshold, zero.tree_.threshold)
    np.testing.assert_array_equal(free.tree_.value, zero.tree_.value)


def test_subtrees_grown_apart_start_from_their_roots_bounds(monkeypatch):
    """A fit large enough to grow its top and its subtrees apart (on two threads) gives the
    tree grown in one piece: each subtree starts from its root's bounds."""
    from treesmith import grower

    X, y = make_data(8, n=30_000, n_features=20, task="regression")
    constraints = [1, -1] + [0] * 18
    kwargs = dict(monotonic_cst=constraints, min_samples_leaf=20, random_state=0)
    apart = DecisionTreeRegressor(n_jobs=2, **kwargs).fit(X, y)
    monkeypatch.setattr(grower, "SUBTREE_MIN_WORK", np.iinfo(np.int64).max)
    whole = DecisionTreeRegressor(n_jobs=1, **kwargs).fit(X, y)
    np.testing.assert_array_equal(apart.tree_.feature, whole.tree_.feature)
    np.testing.assert_array_equal(apart.tree_.threshold, whole.tree_.threshold)
    np.testing.assert_array_equal(apart.tree_.value, whole.tree_.value)
    check_model(apart, X, constraints)


def test_subtree_growth_is_used_by_the_large_fit(monkeypatch):
    """The large fit above does take the subtree path (else its test proves nothing)."""
    from treesmith import grower

    calls = []
    original = grower.TreeGrower._grow_subtrees

    def spy(self, *args, **kwargs):
        calls.append(args[1][0].shape[0])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(grower.TreeGrower, "_grow_subtrees", spy)
    X, y = make_data(8, n=30_000, n_features=20, task="regression")
    DecisionTreeRegressor(monotonic_cst=[1, -1] + [0] * 18, max_depth=12,
                          min_samples_leaf=20).fit(X, y)
    assert calls and calls[0] > 1


def test_wide_small_nodes_scanned_on_several_threads():
    """A small root wide enough for the threaded small-node scan (features cut into chunks,
    each rebuilding the node's record with its bounds) grows the one-thread tree."""
    import numba

    from treesmith._kernels.growth import SMALL_NODE_PARALLEL_WORK
    from treesmith.binning import BinMapper
    from treesmith.criteria import MSE
    from treesmith.grower import StoppingRules, TreeGrower

    X, y = make_data(14, n=240, n_features=300, task="regression")
    assert X.shape[0] * X.shape[1] >= SMALL_NODE_PARALLEL_WORK
    constraints = np.zeros(300, dtype=np.int64)
    constraints[:2] = [1, -1]
    mapper = BinMapper(max_bins=255, random_state=0)
    X_binned = mapper.fit_transform(X)
    weight = np.ones(X.shape[0])
    stats = MSE().sample_statistics(y, weight)
    trees = []
    previous = numba.get_num_threads()
    for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(threads)
        try:
            grower = TreeGrower(mapper, MSE(), 0, StoppingRules(min_samples_leaf=3),
                                monotonic_cst=constraints)
            trees.append(grower.grow(X_binned, np.zeros(X.shape[0], dtype=np.int64), weight,
                                     stats))
        finally:
            numba.set_num_threads(previous)
    np.testing.assert_array_equal(trees[0].feature, trees[1].feature)
    np.testing.assert_array_equal(trees[0].value, trees[1].value)
    assert np.isin([0, 1], trees[1].feature).all()
    assert_monotone_structure(trees[1], constraints)


def test_forests_pass_the_constraints_to_every_tree():
    X, y = make_data(9)
    constraints = [1, -1, 0]
    forest = RandomForestClassifier(n_estimators=8, monotonic_cst=constraints,
                                    random_state=0).fit(X, y)
    assert all(list(member.monotonic_cst) == constraints for member in forest.estimators_)
    check_model(forest, X, constraints)
    X, y = make_data(9, task="regression")
    forest = RandomForestRegressor(n_estimators=8, monotonic_cst=constraints, max_features=0.7,
                                   random_state=0, n_jobs=2).fit(X, y)
    check_model(forest, X, constraints)


def test_pandas_names_and_dict_constraints():
    pd = pytest.importorskip("pandas")
    X, y = make_data(10, task="regression")
    frame = pd.DataFrame(X, columns=["size", "age", "noise"])
    by_name = DecisionTreeRegressor(monotonic_cst={"size": 1, "age": -1},
                                    random_state=0).fit(frame, y)
    by_list = DecisionTreeRegressor(monotonic_cst=[1, -1, 0], random_state=0).fit(frame, y)
    np.testing.assert_array_equal(by_name.tree_.value, by_list.tree_.value)
    by_index = DecisionTreeRegressor(monotonic_cst={0: 1, 1: -1}, random_state=0).fit(X, y)
    np.testing.assert_array_equal(by_index.tree_.value, by_list.tree_.value)


def test_model_file_round_trip(tmp_path):
    X, y = make_data(11)
    model = DecisionTreeClassifier(monotonic_cst=np.array([1, -1, 0]), random_state=0).fit(X, y)
    path = tmp_path / "model.json"
    treesmith.save(model, path)
    loaded = treesmith.load(path)
    assert list(loaded.monotonic_cst) == [1, -1, 0]
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_to_sklearn_keeps_predictions_and_constraints():
    pd = pytest.importorskip("pandas")
    X, y = make_data(15)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = DecisionTreeClassifier(monotonic_cst={"a": 1, "b": -1}, random_state=0).fit(frame, y)
    converted = model.to_sklearn()
    assert list(converted.monotonic_cst) == [1, -1, 0]
    np.testing.assert_allclose(converted.predict_proba(frame), model.predict_proba(frame))


# -- agreement with scikit-learn ----------------------------------------------------------------
@pytest.mark.parametrize("direction", [1, -1])
@pytest.mark.parametrize("params", [{}, {"min_samples_leaf": 5}, {"max_depth": 4},
                                    {"max_leaf_nodes": 8}], ids=str)
def test_one_feature_matches_sklearn(direction, params):
    """One feature (no ties between features, whose order scikit-learn draws at random) and
    exact thresholds: the same predictions, missing values included."""
    grid = np.r_[np.linspace(-0.1, 1.1, 2000), np.nan][:, None]
    for seed in range(4):
        X, y = make_data(seed, n_features=1, task="regression")
        X_missing = X.copy()
        X_missing[np.random.default_rng(seed).random(X.shape[0]) < 0.1] = np.nan
        ours = DecisionTreeRegressor(monotonic_cst=[direction], max_bins=None, **params)
        theirs = sklearn_tree.DecisionTreeRegressor(monotonic_cst=[direction], random_state=0,
                                                    **params)
        np.testing.assert_allclose(ours.fit(X_missing, y).predict(grid),
                                   theirs.fit(X_missing, y).predict(grid), rtol=0, atol=1e-12)
        labels = (y + np.random.default_rng(seed).normal(0, 0.7, y.size) > 1.5).astype(int)
        ours = DecisionTreeClassifier(monotonic_cst=[direction], max_bins=None, **params)
        theirs = sklearn_tree.DecisionTreeClassifier(monotonic_cst=[direction],
                                                     random_state=0, **params)
        np.testing.assert_allclose(ours.fit(X, labels).predict_proba(grid[:-1]),
                                   theirs.fit(X, labels).predict_proba(grid[:-1]), atol=1e-12)


@pytest.mark.parametrize("constraints", [[1, -1, 0], [-1, 1, 0], [1, 0, 1]])
def test_regression_matches_sklearn(constraints):
    """Several features, continuous labels (no tied gains): the same trees."""
    X_test = np.random.default_rng(99).random((3000, 3))
    for seed in range(5):
        X, y = make_data(seed, n=400, task="regression")
        for params in ({"min_samples_leaf": 15}, {"max_leaf_nodes": 10, "min_samples_leaf": 10}):
            ours = DecisionTreeRegressor(monotonic_cst=constraints, max_bins=None, **params)
            theirs = sklearn_tree.DecisionTreeRegressor(monotonic_cst=constraints,
                                                        random_state=0, **params)
            np.testing.assert_allclose(ours.fit(X, y).predict(X_test),
                                       theirs.fit(X, y).predict(X_test), atol=1e-12)


def test_regression_with_missing_values_and_weights_matches_sklearn():
    """Several features with missing values (scikit-learn >= 1.4 learns their side under the
    constraints too) and sample weights, integer-valued features binned exactly: the same
    trees on 20 random problems (the review's sweep found 60 of 60)."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(30, 300))
        X = rng.integers(0, int(rng.integers(3, 30)), size=(n, 3)).astype(float)
        X[rng.random(X.shape) < 0.1] = np.nan
        constraints = rng.integers(-1, 2, 3)
        y = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) + rng.normal(size=n) * 3
        weight = rng.random(n) * 2 if seed % 2 else None
        params = dict(min_samples_leaf=int(rng.integers(1, 6)), max_depth=int(rng.integers(2, 8)))
        ours = DecisionTreeRegressor(monotonic_cst=constraints, **params)
        theirs = sklearn_tree.DecisionTreeRegressor(monotonic_cst=constraints, random_state=0,
                                                    **params)
        ours.fit(X, y, sample_weight=weight)
        theirs.fit(X, y, sample_weight=weight)
        assert ours.tree_.node_count == theirs.tree_.node_count
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=1e-9)


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, message", [
    ([1, 0], "monotonic_cst has shape \\(2,\\) but X has 3 features"),
    ([[1, 0, 1]], "monotonic_cst has shape \\(1, 3\\)"),
    ([1, 2, 0], "monotonic_cst must hold only -1 .* got \\[2\\]"),
    ([1, 0.5, 0], "got \\[0.5\\]"),
    ([1, np.nan, 0], "got \\[nan\\]"),
    (["1", "0", "0"], "monotonic_cst must hold only"),
    ("increasing", "monotonic_cst must be None, an array-like"),
    (1, "monotonic_cst must be None, an array-like"),
    ({"size": 1}, "monotonic_cst keys must be an int index"),
    ({5: 1}, "monotonic_cst keys must be an int index .* in \\[0, 3\\)"),
    ({0: 2}, "monotonic_cst\\[0\\] must be -1, 0 or 1"),
])
def test_invalid_constraints_name_the_parameter(value, message):
    X, y = make_data(12)
    for estimator in (DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier):
        with pytest.raises(ValueError, match=message):
            estimator(monotonic_cst=value).fit(X, y)


def test_unknown_feature_name():
    pd = pytest.importorskip("pandas")
    X, y = make_data(12)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    with pytest.raises(ValueError, match="monotonic_cst names the unknown feature 'd'"):
        DecisionTreeClassifier(monotonic_cst={"d": 1}).fit(frame, y)


def test_multiclass_and_multioutput_are_refused():
    X, y = make_data(13)
    three = np.arange(y.size) % 3
    for estimator in (DecisionTreeClassifier, RandomForestClassifier):
        with pytest.raises(ValueError, match="not supported with multiclass classification"):
            estimator(monotonic_cst=[1, 0, 0]).fit(X, three)
    with pytest.raises(ValueError, match="multi-output"):
        DecisionTreeRegressor(monotonic_cst=[1, 0, 0]).fit(X, np.c_[y, y].astype(float))
    # multiclass without constraints, and a single class with them, still fit
    DecisionTreeClassifier().fit(X, three)
    single = DecisionTreeClassifier(monotonic_cst=[1, 0, 0]).fit(X, np.zeros(y.size, int))
    assert single.get_n_leaves() == 1


def test_a_constraint_on_a_categorical_feature_is_refused():
    """Categories have no order: a constraint on a categorical column names it."""
    import pandas as pd

    X = pd.DataFrame({"city": pd.Categorical(["Nice", "Lyon", "Paris", "Nice"] * 10),
                      "size": np.arange(40.0)})
    y = np.arange(40.0)
    with pytest.raises(ValueError, match="'city', which is categorical"):
        DecisionTreeRegressor(monotonic_cst=[1, 0]).fit(X, y)
    with pytest.raises(ValueError, match="'city', which is categorical"):
        RandomForestRegressor(n_estimators=2, monotonic_cst=[1, 0]).fit(X, y)
    DecisionTreeRegressor(monotonic_cst=[0, 1]).fit(X, y)  # the numeric column may be


@pytest.mark.parametrize("frame", ["pandas bool", "pandas boolean with NA", "polars Boolean"])
def test_a_constrained_bool_column_stays_numeric_as_in_scikit_learn(frame):
    """A bool column is categorical under "from_dtype", so monotonic_cst=[1, 0] on it was
    refused where scikit-learn accepts it (False < True); an explicit categorical_features
    naming it is still refused."""
    import pandas as pd

    rng = np.random.default_rng(0)
    b, x = rng.random(400) < 0.5, rng.normal(size=400)
    y = ((x + 2 * b + rng.normal(size=400)) > 1).astype(int)
    if frame == "polars Boolean":
        pl = pytest.importorskip("polars")
        X = pl.DataFrame({"b": b, "x": x})
    else:
        column = b if frame == "pandas bool" else pd.array(
            np.where(rng.random(400) < 0.1, None, b), dtype="boolean")
        X = pd.DataFrame({"b": column, "x": x})
    for cst, Model in (([-1, 0], DecisionTreeClassifier), ({"b": 1}, DecisionTreeClassifier),
                       ([1, 0], lambda **kw: RandomForestClassifier(n_estimators=3,
                                                                    random_state=0, **kw))):
        model = Model(monotonic_cst=cst).fit(X, y)
        np.testing.assert_array_equal(model.is_categorical_, [False, False])
        sign = -1 if isinstance(cst, list) and cst[0] == -1 else 1
        rows = pd.DataFrame({"b": [False, True] * 50, "x": np.repeat(np.linspace(-3, 3, 50), 2)})
        proba = model.predict_proba(rows)[:, 1].reshape(50, 2)
        assert np.all(sign * (proba[:, 1] - proba[:, 0]) >= 0)
    assert DecisionTreeClassifier(monotonic_cst=[0, 1]).fit(X, y).is_categorical_[0]
    with pytest.raises(ValueError, match="'b', which is categorical"):
        DecisionTreeClassifier(monotonic_cst=[1, 0], categorical_features=["b"]).fit(X, y)
