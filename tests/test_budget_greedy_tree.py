"""GreedyTree (treesmith.ensemble.greedy_tree): the minimax split rule against a brute-force
oracle, the paper's Figure 1 example, the max-cost bound of Theorem 2.2 on exhaustive small
cases, costs and missing values."""

import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sklearn.utils.estimator_checks import parametrize_with_checks

from treesmith import metrics
from treesmith.ensemble import GreedyTreeClassifier, Powers, ThresholdPairs


def figure1_data(swap=False):
    """Nan et al. (2015) Figure 1: 30 circles (class 0), 30 triangles (class 1).
    t1 isolates 20 triangles; t2 halves both classes (15/15 on each side)."""
    y = np.array([0] * 30 + [1] * 30)
    t1 = np.zeros(60)
    t1[40:] = 1  # the last 20 triangles
    t2 = np.r_[np.zeros(15), np.ones(15), np.zeros(15), np.ones(15)]
    X = np.c_[t2, t1] if swap else np.c_[t1, t2]
    return X, y


@pytest.mark.parametrize("swap", [False, True])
def test_figure1_alpha_0_picks_the_balanced_t2(swap):
    """R(t1) = 1/600, R(t2) = 1/675: α = 0 prefers the balanced split t2."""
    X, y = figure1_data(swap)
    tree = GreedyTreeClassifier(ThresholdPairs(0), candidates="all").fit(X, y).tree_
    assert tree.feature[0] == (0 if swap else 1)
    assert tree.impurity[0] == 900


@pytest.mark.parametrize("swap", [False, True])
def test_figure1_alpha_8_ties_and_the_lowest_feature_wins(swap):
    """With eq. 11's −α² term, F_8(G) = 420 and every child of t1 and t2 has F_8 = 0: both
    risks are 1/420 and the tie rule (lowest feature index) decides. Without the term (the
    appendix's 484, 44, 49) t1 would win outright; with t1 first it is picked either way."""
    X, y = figure1_data(swap)
    tree = GreedyTreeClassifier(ThresholdPairs(8), candidates="all").fit(X, y).tree_
    assert tree.impurity[0] == 420
    assert tree.feature[0] == 0
    assert tree.node_count == 3  # both children are leaves (F_8 = 0)


def minimax_reference(X_node, y_node, n_classes, function, costs, free=()):
    """Brute force over every feature and every threshold between distinct values:
    (R, min ΔF, feature, threshold value) of the best stump (no missing values)."""
    def F(rows):
        return function(np.bincount(y_node[rows], minlength=n_classes))

    everything = np.ones(len(y_node), dtype=bool)
    f_node = F(everything)
    best = (math.inf, 0.0, -1, None)
    for j in range(X_node.shape[1]):
        values = np.unique(X_node[:, j])
        cost = 0.0 if j in free else costs[j]
        for v in values[:-1]:
            left = X_node[:, j] <= v
            reduction = min(f_node - F(left), f_node - F(~left))
            if reduction <= 0:
                continue
            key = (cost / reduction, -reduction, j, v)
            if key < (best[0], -best[1], best[2], best[3] if best[3] is not None else math.inf):
                best = (cost / reduction, reduction, j, v)
    return best


@pytest.mark.parametrize("seed", range(12))
def test_root_split_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, m, k = int(rng.integers(8, 40)), int(rng.integers(1, 5)), int(rng.integers(2, 4))
    X = rng.integers(0, 6, size=(n, m)).astype(float)
    y = rng.integers(0, k, size=n)
    costs = rng.integers(1, 5, size=m).astype(float)
    function = [ThresholdPairs(0), ThresholdPairs(1.5), Powers(2), Powers(3)][seed % 4]
    model = GreedyTreeClassifier(function, feature_costs=costs, candidates="all",
                                 max_bins=None).fit(X, y)
    tree = model.tree_
    k_seen = len(np.unique(y))
    risk, reduction, j, value = minimax_reference(X, np.unique(y, return_inverse=True)[1],
                                                  k_seen, function, costs)
    if j < 0:
        assert tree.node_count == 1
        return
    assert tree.feature[0] == j
    left = X[:, j] <= tree.threshold[0]
    assert np.array_equal(left, X[:, j] <= value)


def optimal_max_cost(X, y, n_classes, function, costs):
    """OPT(S): the smallest max-cost of a tree whose leaves all have F = 0 (binary features,
    each used at most once per path), by exhaustive recursion."""
    @functools.lru_cache(maxsize=None)
    def opt(rows, used):
        rows_array = np.array(rows)
        if function(np.bincount(y[rows_array], minlength=n_classes)) == 0:
            return 0.0
        best = math.inf
        for j in range(X.shape[1]):
            if j in used:
                continue
            left = X[rows_array, j] == 0
            if left.all() or not left.any():
                continue
            cost = costs[j] + max(opt(tuple(rows_array[left]), used | {j}),
                                  opt(tuple(rows_array[~left]), used | {j}))
            best = min(best, cost)
        return best

    return opt(tuple(range(len(y))), frozenset())


@pytest.mark.parametrize("seed", range(15))
def test_max_cost_within_the_theorem_bound(seed):
    """Theorem 2.2 with exact greedy choices (λ = 1, candidates="all"):
    Cost(GreedyTree) ≤ OPT · (ln(F(S) / F_min) + 1), F_min the smallest non-zero value of F."""
    rng = np.random.default_rng(100 + seed)
    m = 5
    X = np.unique(rng.integers(0, 2, size=(int(rng.integers(6, 14)), m)), axis=0)
    y = rng.integers(0, 2 + seed % 2, size=X.shape[0])
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[1]
    y = np.unique(y, return_inverse=True)[1]
    k = int(y.max()) + 1
    costs = rng.integers(1, 6, size=m).astype(float)
    function = ThresholdPairs(0) if seed % 3 else Powers(2)
    model = GreedyTreeClassifier(function, feature_costs=costs, candidates="all",
                                 max_bins=None).fit(X, y)
    greedy = metrics.max_cost(model)
    opt = optimal_max_cost(X, y, k, function, costs)
    counts = np.bincount(y, minlength=k)
    f_min = min(v for v in (function(c) for c in itertools.product(
        *[range(n + 1) for n in counts])) if v > 0)
    assert greedy <= opt * (math.log(function(counts) / f_min) + 1) + 1e-9
    # every leaf is pure under F (the data are complete: distinct rows)
    leaves = model.tree_.children_left == -1
    assert np.all(model.tree_.impurity[leaves] == 0)


def test_free_reuse_ranks_a_paid_feature_first():
    """free_reuse=True: once x0 is tested, further tests on it cost 0 and win over the paid
    noise feature x1, so every test is on x0 and the max cost is c(x0)."""
    rng = np.random.default_rng(0)
    x0 = rng.uniform(size=400)
    x1 = rng.uniform(size=400)
    y = ((x0 > 0.3) & (x0 < 0.7)).astype(int)  # needs two cuts on x0
    X = np.c_[x0, x1]
    model = GreedyTreeClassifier(ThresholdPairs(0), feature_costs=[1.0, 10.0], free_reuse=True,
                                 candidates="all").fit(X, y)
    internal = model.tree_.children_left != -1
    assert set(model.tree_.feature[internal]) == {0}
    assert metrics.max_cost(model) == 1.0
    assert metrics.max_cost(model, cost_model="per_test") == model.get_depth()


def test_missing_values_go_to_a_learned_side():
    X = np.array([[0.0], [1.0], [np.nan], [np.nan], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1, 1, 1])
    model = GreedyTreeClassifier(candidates="all").fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.predict([[np.nan]])[0] == 1


def test_sampled_candidates_are_reproducible_and_seeded():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 6))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    a = GreedyTreeClassifier(ThresholdPairs(4), random_state=3).fit(X, y).tree_
    b = GreedyTreeClassifier(ThresholdPairs(4), random_state=3).fit(X, y).tree_
    c = GreedyTreeClassifier(ThresholdPairs(4), random_state=4).fit(X, y).tree_
    assert np.array_equal(a.threshold, b.threshold, equal_nan=True)
    assert a.node_count != c.node_count or not np.array_equal(a.threshold, c.threshold,
                                                              equal_nan=True)


def test_larger_alpha_grows_smaller_trees():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(1000, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=1000) > 0).astype(int)
    sizes = [GreedyTreeClassifier(ThresholdPairs(a), random_state=0).fit(X, y).tree_.node_count
             for a in (0, 5, 20, 80)]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] > sizes[-1]


def test_bad_parameters_are_named():
    X, y = figure1_data()
    with pytest.raises(ValueError, match="candidates"):
        GreedyTreeClassifier(candidates="some").fit(X, y)
    with pytest.raises(ValueError, match="cost_model"):
        GreedyTreeClassifier(cost_model="per_row").fit(X, y)
    with pytest.raises(ValueError, match="impurity"):
        GreedyTreeClassifier(impurity="gini").fit(X, y)
    with pytest.raises(ValueError, match="feature_costs"):
        GreedyTreeClassifier(feature_costs=[1.0]).fit(X, y)


@pytest.mark.parametrize("params, message", [
    # never checked: n_jobs took any value, random_state=True was the seed 1
    ({"n_jobs": "bogus"}, r"GreedyTreeClassifier: n_jobs must be an int or None, got 'bogus'"),
    ({"n_jobs": 2.5}, r"n_jobs must be"),
    ({"random_state": True}, r"random_state must be None, an int in \[0, 2\*\*32 - 1\]"),
    # an array met ``==`` and ``in``: numpy's "truth value of an array is ambiguous"
    ({"candidates": np.array([1.0, 2.0])}, r"candidates must be one of 'all', 'sampled'"),
    ({"cost_model": np.array([1.0, 2.0])}, r"cost_model must be one of 'per_feature'"),
    ({"free_reuse": 1}, r"free_reuse must be a bool, got 1"),
    ({"max_depth": 2.0}, r"max_depth must be an int >= 1 or None, got 2.0"),
    ({"max_bins": 10**12}, r"max_bins must be an int in \[2, 65535\] or None"),
])
def test_parameters_are_checked_before_the_data(params, message):
    with pytest.raises(ValueError, match=message):
        GreedyTreeClassifier(**params).fit(None, None)


@pytest.mark.parametrize("max_depth", [2**63, np.uint64(2**63), 10**30])
def test_a_depth_beyond_int64_is_no_limit(max_depth):
    """max_depth=2**63 raised OverflowError converting it for the kernel."""
    X, y = figure1_data()
    deep = GreedyTreeClassifier(max_depth=max_depth, random_state=0).fit(X, y)
    free = GreedyTreeClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(deep.tree_.feature, free.tree_.feature)


@parametrize_with_checks([GreedyTreeClassifier(ThresholdPairs(0), random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_a_numpy_generator_as_random_state_is_refused_by_name():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="random_state must be None, an int .*or a numpy "
                                         "RandomState"):
        GreedyTreeClassifier(random_state=np.random.default_rng(0)).fit(X, [0, 0, 1, 1])


@pytest.mark.parametrize("impurity", [ThresholdPairs(0), Powers(3)])
def test_weights_that_overflow_the_set_function_are_named(impurity):
    """F grows as a power of the summed weights: 1e200 per row overflows it. The error names
    sample_weight, not a failed criterion of the finished tree."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="sample_weight is too large"):
        GreedyTreeClassifier(impurity=impurity).fit(X, [0, 0, 1, 1],
                                                    sample_weight=np.full(4, 1e200))


def test_a_power_that_overflows_on_unit_weights_is_refused_not_a_silent_leaf():
    """Powers(200) on 100 rows: 100^200 overflows; the compiled F would be inf - inf -> 0,
    a 'pure' root, and the tree a single leaf without a word."""
    X = np.arange(100, dtype=float)[:, None]
    with pytest.raises(ValueError, match="smaller Powers power"):
        GreedyTreeClassifier(impurity=Powers(200)).fit(X, np.arange(100) % 2)


# -- categorical features ----------------------------------------------------------------------
def _set_function(function):
    """F of a class-count vector, in plain Python (treesmith.rules.set_functions)."""
    return lambda counts: function(np.asarray(counts, dtype=float))


def _left_codes(tree, node):
    return set(tree.categories_left(node).tolist())


@pytest.mark.parametrize("function, f_root, f_child, f_prefix", [
    (ThresholdPairs(0), 4.0, 1.0, 2.0),     # n0 n1
    (ThresholdPairs(0.5), 2.0, 0.0, 0.5),   # [(n0 - .5)+ (n1 - .5)+ - .25]+
    (Powers(2), 8.0, 2.0, 4.0),             # (n0 + n1)^2 - n0^2 - n1^2 = 2 n0 n1
    (Powers(3), 48.0, 6.0, 18.0),           # 3 n0 n1 (n0 + n1)
], ids=repr)
def test_hand_computed_node_where_the_class1_order_is_not_minimax_best(function, f_root,
                                                                        f_child, f_prefix):
    """Categories A (class counts 0/1), B (1/0), C (1/1); the node holds 2/2. The class-1
    order B, C, A has the prefixes {B} | {C, A} and {B, C} | {A}, each leaving a child with
    counts 1/2 (F = f_prefix), so R = c / (F(S) - f_prefix). The partition {A, B} | {C} leaves
    1/1 on both sides (F = f_child) and R = c / (F(S) - f_child), smaller: the minimax
    objective is not solved by an ordering, even for two classes, and the kernel tries every
    partition of few categories."""
    X = np.array([["A"], ["B"], ["C"], ["C"]], dtype=object)
    y = np.array([1, 0, 0, 1])
    model = GreedyTreeClassifier(function, categorical_features=[0], candidates="all").fit(X, y)
    tree = model.tree_
    assert list(model.categories_[0]) == ["A", "B", "C"]
    assert tree.impurity[0] == f_root
    assert _left_codes(tree, 0) == {0, 1}  # {A, B}: C, the last category, stays right
    left, right = tree.children_left[0], tree.children_right[0]
    assert tree.impurity[left] == f_child and tree.impurity[right] == f_child
    assert f_root - f_child > f_root - f_prefix > 0  # the partition beats every prefix
    # F = 0 below α = 0.5's split: both children are leaves
    assert (tree.node_count == 3) == (f_child == 0.0)


def brute_force_root(X_codes, is_categorical, y, n_classes, F, costs):
    """Every test of every feature on rows without weights: thresholds between distinct values
    (numeric) or every bipartition of the present categories plus "missing" (categorical),
    missing values on either side. Returns the smallest R = c / min_i (F(S) - F(S_i))."""
    f_node = F(np.bincount(y, minlength=n_classes))
    best = math.inf
    for j in range(X_codes.shape[1]):
        column = X_codes[:, j]
        missing = np.isnan(column)
        present = np.unique(column[~missing])
        if is_categorical[j]:
            groups = [column == c for c in present] + ([missing] if missing.any() else [])
            sides = []
            for mask in range(1, 2 ** len(groups) - 1):
                sides.append(np.any([g for i, g in enumerate(groups) if mask >> i & 1], axis=0))
        else:
            sides = []
            for v in present[:-1]:
                sides += [~missing & (column <= v), missing | (column <= v)]
            if missing.any() and present.size:
                sides.append(~missing)
        for left in sides:
            counts = [np.bincount(y[rows], minlength=n_classes) for rows in (left, ~left)]
            reduction = min(f_node - F(c) for c in counts)
            if reduction > 1e-12 * f_node:
                best = min(best, costs[j] / reduction)
    return best


def _root_risk(model, F, costs):
    tree = model.tree_
    counts = np.rint(tree.class_counts).astype(int)
    f_node = F(counts[0])
    children = (tree.children_left[0], tree.children_right[0])
    return costs[tree.feature[0]] / min(f_node - F(counts[c]) for c in children)


@pytest.mark.parametrize("seed", range(16))
def test_categorical_root_is_the_minimax_best_over_every_partition(seed):
    """Two categorical features (2 to 7 categories, some missing) and a numeric one, costs at
    random: the root test's R is the smallest over every bipartition of every categorical
    feature's categories and "missing", and every threshold of the numeric one."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(12, 60)), int(rng.integers(2, 4))
    X = np.c_[rng.integers(0, rng.integers(2, 8), n), rng.integers(0, rng.integers(2, 8), n),
              rng.integers(0, 5, n)].astype(float)
    X[rng.random((n, 3)) < (0.15 if seed % 2 else 0.0)] = np.nan
    y = rng.integers(0, k, n)
    costs = rng.integers(1, 5, 3).astype(float)
    function = [ThresholdPairs(0), ThresholdPairs(1.5), Powers(2), Powers(3)][seed % 4]
    F = _set_function(function)
    model = GreedyTreeClassifier(function, feature_costs=costs, candidates="all",
                                 categorical_features=[0, 1]).fit(X, y)
    # the codes are the sorted observed values: the categories themselves here
    assert all(np.array_equal(model.categories_[j], np.unique(X[~np.isnan(X[:, j]), j]))
               for j in (0, 1))
    expected = brute_force_root(X, [True, True, False], np.unique(y, return_inverse=True)[1],
                                model.n_classes_, F, costs)
    if math.isinf(expected):
        assert model.tree_.node_count == 1
        return
    assert _root_risk(model, F, costs) == pytest.approx(expected, rel=1e-12)


def prefix_reference(codes, y, n_classes, F):
    """The best prefix of the present categories sorted by (key, code), keys as the single
    tree's (``category_keys``: class-1 proportion, principal-component score for K > 2), no
    missing values: the largest min_i (F(S) - F(S_i))."""
    from treesmith._kernels.categorical import category_keys

    present = np.unique(codes)
    hist = np.zeros((int(codes.max()) + 2, 2 * n_classes))
    for c, label in zip(codes, y):
        hist[c, label] += 1.0
        hist[c, n_classes + label] += 1.0
    keys = category_keys(hist, present, n_classes)
    order = [b for _, b in sorted(zip(keys, present))]
    f_node = F(np.bincount(y, minlength=n_classes))
    best = 0.0
    for r in range(1, len(order)):
        left = np.isin(codes, order[:r])
        best = max(best, min(f_node - F(np.bincount(y[rows], minlength=n_classes))
                             for rows in (left, ~left)))
    return best


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_many_categories_take_the_best_prefix_of_the_single_tree_order(n_classes):
    """Above 10 categories the candidates are the prefixes of the single tree's order (a
    heuristic): the root's min ΔF is the best prefix's, recomputed in Python."""
    rng = np.random.default_rng(n_classes)
    codes = rng.integers(0, 40, 600)
    y = (codes * 7 % n_classes + (rng.random(600) < 0.3)) % n_classes
    F = _set_function(ThresholdPairs(0))
    model = GreedyTreeClassifier(ThresholdPairs(0), candidates="all",
                                 categorical_features=[0]).fit(codes[:, None].astype(float), y)
    assert _root_risk(model, F, [1.0]) == pytest.approx(
        1.0 / prefix_reference(codes, y, n_classes, F), rel=1e-12)


@pytest.mark.parametrize("candidates", ["all", "sampled"])
@pytest.mark.parametrize("seed", range(6))
def test_categorical_trees_are_the_single_tree_minimax_rule_trees(seed, candidates):
    """Per-test costs: GreedyTree's kernel and the engine's Minimax rule try the same category
    sets (every partition up to 10 categories, then the prefixes of the same order; with
    sampled candidates too: the sampling is of numeric thresholds) and grow the same tree,
    sets included."""
    import pandas as pd

    import treesmith
    from treesmith.rules import Minimax

    rng = np.random.default_rng(seed)
    n, k = 300, 2 + seed % 2
    X = pd.DataFrame({"a": pd.Categorical(rng.integers(0, 4 + 3 * seed, n)),
                      "b": pd.Categorical(rng.integers(0, 6, n)),
                      "x": rng.normal(size=n).round(1)})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    y = (X["a"].cat.codes.to_numpy() % k + (X["x"] > 0.5) + rng.integers(0, 2, n)) % k
    function = [ThresholdPairs(0), ThresholdPairs(2), Powers(2)][seed % 3]
    costs = rng.integers(1, 5, 3).astype(float)
    engine = treesmith.DecisionTreeClassifier(
        split_rule=Minimax(function, candidates=candidates), feature_costs=costs,
        random_state=seed).fit(X, y).tree_
    greedy = GreedyTreeClassifier(function, feature_costs=costs, cost_model="per_test",
                                  candidates=candidates, random_state=seed).fit(X, y).tree_
    assert greedy.is_categorical_split.any()
    for name in ("feature", "left_categories", "missing_go_left", "n_node_samples"):
        assert np.array_equal(getattr(engine, name), getattr(greedy, name)), name
    assert np.array_equal(engine.threshold, greedy.threshold, equal_nan=True)


def test_missing_and_unseen_categories_take_the_learned_missing_side():
    """Missing cells go to the side that lowers R; at prediction a category never seen in
    training is a missing value (with a warning), so it lands where NaN lands."""
    import pandas as pd

    from treesmith.datasets import UnseenLevelWarning

    city = np.array(["Lyon", "Nice", None, "Paris", "Brest"] * 8, dtype=object)
    y = np.array([0, 0, 1, 1, 1] * 8)
    X = pd.DataFrame({"city": city})
    model = GreedyTreeClassifier(candidates="all").fit(X, y)
    tree = model.tree_
    assert tree.is_categorical_split[0] and model.score(X, y) == 1.0
    missing_side = (tree.children_left if tree.missing_go_left[0] else tree.children_right)[0]
    assert np.all(model.apply(X[city == None]) == missing_side)  # noqa: E711
    with pytest.warns(UnseenLevelWarning, match="Rome"):
        unseen = model.predict_proba(pd.DataFrame({"city": ["Rome"]}))
    assert np.array_equal(unseen, model.predict_proba(pd.DataFrame({"city": [None]})))
    assert model.predict(pd.DataFrame({"city": [np.nan]}))[0] == 1


def test_export_text_names_the_category_sets():
    import pandas as pd

    from treesmith import export_text

    X = pd.DataFrame({"city": ["Nice", "Lyon", "Paris", "Brest"] * 5})
    y = np.array([1, 1, 0, 0] * 5)
    text = export_text(GreedyTreeClassifier().fit(X, y))
    assert "city in {Lyon, Nice}" in text and "city in {Brest, Paris}" in text


def test_a_categorical_feature_is_paid_once_per_path():
    """A categorical feature tested twice on a path costs its c(t) once (per feature) and
    twice per test: it is one feature, one cost group."""
    import pandas as pd

    X = pd.DataFrame({"c": list("ABCD") * 10, "x": np.arange(40.0)})
    y = np.tile([0, 1, 2, 3], 10)  # one class per category
    model = GreedyTreeClassifier(ThresholdPairs(0), feature_costs=[3.0, 100.0],
                                 candidates="all").fit(X, y)
    tree = model.tree_
    assert set(tree.feature[tree.children_left != -1]) == {0}
    # the balanced {A, B} | {C, D} (F = 100 on each side, against 300 for one category
    # alone), then one category each side
    assert _left_codes(tree, 0) == {0, 1}
    assert model.get_depth() == 2 and model.score(X, y) == 1.0
    assert metrics.max_cost(model) == 3.0
    assert metrics.max_cost(model, cost_model="per_test") == 6.0
    assert metrics.expected_cost(model, X) == pytest.approx(3.0)


def test_hostile_categorical_columns():
    """One category (no test on it), every cell missing (no category, no test), 255 categories
    (the prefixes of one order), 256 (refused, naming the column), more than max_bins."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 600
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"one": ["same"] * n, "none": pd.Series([None] * n, dtype=object),
                      "wide": [f"v{i}" for i in rng.integers(0, 255, n)],
                      "x": rng.normal(size=n)})
    X.loc[0:254, "wide"] = [f"v{i}" for i in range(255)]  # all 255 present
    model = GreedyTreeClassifier(categorical_features=["one", "none", "wide"],
                                 random_state=0).fit(X, y)
    tree = model.tree_
    assert len(model.categories_[2]) == 255 and len(model.categories_[0]) == 1
    tested = set(tree.feature[tree.children_left != -1])
    assert tested <= {2, 3} and 2 in tested
    assert np.all(tree.categories_left(0) < 255)
    assert model.predict(X.iloc[:5]).shape == (5,)
    X.loc[n - 1, "wide"] = "v255"  # rows 0..254 keep v0..v254
    with pytest.raises(ValueError, match="'wide' \\(column 2\\) has 256 categories"):
        GreedyTreeClassifier().fit(X, y)
    small = pd.DataFrame({"c": [f"v{i % 20}" for i in range(n)]})
    with pytest.raises(ValueError, match="max_bins"):
        GreedyTreeClassifier(max_bins=10).fit(small, y)


def test_integer_weights_are_repeated_rows_with_categories():
    """sample_weight is a multiplicity: weight 2 grows the tree of the row given twice
    (every candidate: the sampled draws count rows)."""
    rng = np.random.default_rng(5)
    X = np.c_[rng.integers(0, 6, 60), rng.normal(size=60)]
    X[rng.random(60) < 0.1, 0] = np.nan
    y = rng.integers(0, 3, 60)
    weight = rng.integers(1, 3, 60)
    model = GreedyTreeClassifier(Powers(2), candidates="all", categorical_features=[0])
    weighted = model.fit(X, y, sample_weight=weight).tree_
    repeated = model.fit(np.repeat(X, weight, axis=0), np.repeat(y, weight)).tree_
    for name in ("feature", "left_categories", "missing_go_left", "impurity",
                 "weighted_n_node_samples"):
        assert np.array_equal(getattr(weighted, name), getattr(repeated, name)), name


@settings(max_examples=40, deadline=None)
@given(counts=hnp.arrays(np.int64, st.tuples(st.integers(2, 7), st.integers(2, 3)),
                         elements=st.integers(0, 4)),
       permutation_seed=st.integers(0, 2**16), alpha=st.sampled_from([0.0, 1.0]))
def test_renaming_categories_keeps_the_minimax_risk(counts, permutation_seed, alpha):
    """Category names only label the sets: renaming them (another code order) gives a root of
    the same risk, and one that is minimax-best over every bipartition."""
    assume(counts.sum(axis=1).min() > 0)
    names = np.array([f"c{i}" for i in range(counts.shape[0])], dtype=object)
    rows = [(names[c], k) for c in range(counts.shape[0]) for k in range(counts.shape[1])
            for _ in range(counts[c, k])]
    X = np.array([[r[0]] for r in rows], dtype=object)
    y = np.array([r[1] for r in rows])
    renamed = np.random.default_rng(permutation_seed).permutation(names)
    X_renamed = np.array([[renamed[int(value[1:])]] for value, in X], dtype=object)
    function = ThresholdPairs(alpha)
    F = _set_function(function)
    risks = []
    for data in (X, X_renamed):
        model = GreedyTreeClassifier(function, candidates="all", categorical_features=[0])
        model.fit(data, y)
        risks.append(math.inf if model.tree_.node_count == 1
                     else _root_risk(model, F, [1.0]))
    codes = np.unique(X[:, 0], return_inverse=True)[1].astype(float)[:, None]
    labels = np.unique(y, return_inverse=True)[1]
    expected = brute_force_root(codes, [True], labels, labels.max() + 1, F, [1.0])
    assert risks[0] == pytest.approx(expected, rel=1e-12)
    assert risks[1] == pytest.approx(expected, rel=1e-12)


def test_score_checks_the_weights_as_fit_does():
    """ClassifierMixin.score (scikit-learn's accuracy_score) averaged with negative weights."""
    X, y = figure1_data()
    model = GreedyTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        model.score(X, y, sample_weight=-np.ones(60))
    assert model.score(X, y, sample_weight=2.0) == model.score(X, y)
