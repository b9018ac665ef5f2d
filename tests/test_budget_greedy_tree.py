"""GreedyTree (treesmith.ensemble.greedy_tree): the minimax split rule against a brute-force
oracle, the paper's Figure 1 example, the max-cost bound of Theorem 2.2 on exhaustive small
cases, costs and missing values."""

import functools
import itertools
import math

import numpy as np
import pytest

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


@parametrize_with_checks([GreedyTreeClassifier(ThresholdPairs(0), random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_a_numpy_generator_as_random_state_is_refused_by_name():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="random_state must be None, an int or a numpy "
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
