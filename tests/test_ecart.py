"""ECART / EC4.5 (Zhang & Gionis 2023 §4, docs/methods.md §4): hand-computed B, E, D, Z and the compiled kernel.

The hand computations are written out with exact fractions; the reference
(``treesmith.rules.reference``) must match them to 1e-12, and the engine must match the
reference (root splits over every threshold, every internal node of grown trees).
"""

from fractions import Fraction as F

import numpy as np
import pytest

from treesmith.rules import ECART
from treesmith.rules.reference import entropy, gini, split_terms

TOL = 1e-12


def close(value, exact):
    return abs(value - float(exact)) <= TOL


# -- example 1: three classes, uniform weights, the root ----------------------------------
def test_multiclass_root_example():
    """Six objects, classes 0,0,1,1,2,2, p = 1/6 each, θ = 0; S = X (the root).

    Test: objects {0,1,2} (classes 0,0,1) left, {3,4,5} (1,2,2) right.
    φ(S) = φ(X) = 2·2 + 2·2 + 2·2 = 12; φ(left) = φ(right) = 2·1 = 2.
    B: both children hold 3 objects, the tie goes left: B = 1 − 1/2 = 1/2.
    E: before, p(S) = 1 so f̄^p = 0 and f^φ = 0, f̃ = 0. After, every child has p = 1/2:
       f̄^p = (1 − 1/2)/(1 − 1/6) = 3/5, f^φ = (12 − 2)/12 = 5/6,
       f̃ = 1 − (2/5)(1/6) = 14/15; E = Σ (1/6)·14/15 = 14/15.
    D (entropy, bits): h(S) = log₂3; each child (2/3, 1/3): h = log₂3 − 2/3; D = 1·2/3.
    Z with λ = 2, c = 3: (1/2 + 14/15 + 2·2/3) / 3 = 83/90.
    IP = 12 − 2 − 2 = 8.
    """
    y = np.array([0, 0, 1, 1, 2, 2])
    p = np.full(6, 1 / 6)
    left = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    terms = split_terms(y, p, left, impurity=entropy, theta=0.0)
    assert close(terms.B, F(1, 2))
    assert close(terms.E, F(14, 15))
    assert close(terms.D, F(2, 3))
    assert close(terms.score(ECART(lam=2.0), cost=3.0), F(83, 90))
    assert terms.impure_pairs == 8
    assert close(terms.score("impure_pairs", cost=4.0), F(2))
    assert close(terms.score("cost_benefit", cost=2.0), F(1, 3))
    assert close(terms.score("balanced"), 0)


# -- example 2: unequal weights, some q_i = p(x_i) > θ, a node below the root -------------
def test_unequal_weights_example():
    """Node S of five objects, p = (.3, .1, .1, .05, .05) (p(S) = .6), classes (0,1,0,1,1),
    θ = .08, φ(X) = 20. q_i = max(p_i, θ) = (.3, .1, .1, .08, .08): three objects have q_i > θ.

    Test: objects {0,1} left (p = .4, classes 0,1), {2,3,4} right (p = .2, classes 0,1,1).
    φ(S) = 2·3 = 6, φ(left) = 1, φ(right) = 2.
    B: the right child has more objects (3 > 2): B = .6 − .2 = 2/5.
    E: before, f^φ = (20 − 6)/20 = 7/10 and f̄^p = .4/(1 − q_i):
       1 − f̃ = (1 − f̄^p)(3/10) = 9/70 (obj 0), 1/6 (obj 1, 2), 39/230 (obj 3, 4).
       After, 1 − f̃ = (1 − f̄^p_child)(1 − f^φ_child):
       obj 0: f̄^p = .6/.7 = 6/7, f^φ = 19/20 -> 1/140; share 1 − (1/140)/(9/70) = 17/18
       obj 1: f̄^p = .6/.9 = 2/3, f^φ = 19/20 -> 1/60;  share 1 − (1/60)/(1/6) = 9/10
       obj 2: f̄^p = .8/.9 = 8/9, f^φ = 9/10  -> 1/90;  share 1 − (1/90)/(1/6) = 14/15
       obj 3, 4: f̄^p = .8/.92 = 20/23, f^φ = 9/10 -> 3/230; share 1 − 3/39 = 12/13
       E = .3·17/18 + .1·9/10 + .1·14/15 + 2·.05·12/13 = 109/195.
    D (gini): S has class weights (.4, .2): gini 4/9; left (.3, .1): 3/8; right (.1, .1): 1/2;
       Δ = 4/9 − (2/3·3/8 + 1/3·1/2) = 1/36; D = .6/36 = 1/60.
    Z with λ = 1, c = 2: (2/5 + 109/195 + 1/60) / 2.
    """
    y = np.array([0, 1, 0, 1, 1])
    p = np.array([0.3, 0.1, 0.1, 0.05, 0.05])
    left = np.array([1, 1, 0, 0, 0], dtype=bool)
    terms = split_terms(y, p, left, impurity=gini, theta=0.08, phi_root=20)
    assert (terms.n_left, terms.n_right) == (2, 3)
    assert close(terms.B, F(2, 5))
    assert close(terms.E, F(17, 60) + F(9, 100) + F(7, 75) + F(6, 65))
    assert close(terms.E, F(109, 195))
    assert close(terms.D, F(1, 60))
    assert close(terms.score(ECART(lam=1.0), cost=2.0), (F(2, 5) + F(109, 195) + F(1, 60)) / 2)
    # With θ = 0 the q_i are the p_i: objects 3 and 4 see different denominators.
    untruncated = split_terms(y, p, left, impurity=gini, theta=0.0, phi_root=20)
    assert not close(untruncated.E, F(109, 195))


# -- example 3: the θ truncation decides which test wins ----------------------------------
def test_theta_truncation_decides():
    """Node S of four objects, p = .05 each (p(S) = .2), classes (0,1,0,1), φ(X) = 10, gini,
    λ = 2.4, unit costs. φ(S) = 4.

    Test A: {0,1} | {2,3} (balanced, not discriminative): φ = 1 | 1, D = 0, B = .1 (tie → left).
    Test C: {0} | {1,2,3}: φ = 0 | 2, B = .2 − .15 = .05,
            D = .2·(1/2 − 3/4·4/9) = 1/30.

    θ = 0 (q_i = .05): before 1 − f̃ = (1 − .8/.95)(1 − .6) = 6/95.
      A: each child p = .1: 1 − f̃ = (1 − .9/.95)(1 − .9) = 1/190 -> E = .2·(1 − 1/12) = 11/60.
      C: left p = .05 = q: f̃ = 1, share 1; right: (1 − .85/.95)(1 − .8) = 2/95, share 2/3:
         E = .05 + .15·2/3 = 3/20.
      Z_A = 1/10 + 11/60 = 17/60 > Z_C = 1/20 + 3/20 + 2.4/30 = 7/25: A wins.
    θ = .12 (q_i = .12): before 1 − f̃ = (1 − .8/.88)(.4) = 2/55.
      A: children p = .1 < q: f̄^p = min(.9/.88, 1) = 1 (truncated): E = .2, Z_A = 3/10.
      C: left truncated too (share 1); right p = .15 > q: (1 − .85/.88)(.2) = 3/440,
         share 1 − (3/440)/(2/55) = 13/16: E = .05 + .15·13/16 = 11/64.
      Z_C = 1/20 + 11/64 + 2.4/30 = 483/1600 > 3/10: C wins.
    """
    y = np.array([0, 1, 0, 1])
    p = np.full(4, 0.05)
    test_a = np.array([1, 1, 0, 0], dtype=bool)
    test_c = np.array([1, 0, 0, 0], dtype=bool)
    rule = ECART(lam=2.4)

    def terms(mask, theta):
        return split_terms(y, p, mask, impurity=gini, theta=theta, phi_root=10)

    a0, c0 = terms(test_a, 0.0), terms(test_c, 0.0)
    assert close(a0.B, F(1, 10)) and close(c0.B, F(1, 20))
    assert close(a0.D, 0) and close(c0.D, F(1, 30))
    assert close(a0.E, F(11, 60)) and close(c0.E, F(3, 20))
    assert close(a0.score(rule), F(17, 60)) and close(c0.score(rule), F(7, 25))
    assert a0.score(rule) > c0.score(rule)

    a1, c1 = terms(test_a, 0.12), terms(test_c, 0.12)
    assert close(a1.E, F(1, 5)) and close(c1.E, F(11, 64))
    assert close(a1.score(rule), F(3, 10)) and close(c1.score(rule), F(483, 1600))
    assert c1.score(rule) > a1.score(rule)


def test_covered_objects_contribute_nothing():
    """An object whose q_i ≥ p(S) is already covered (f̄^p(before) = 1): it adds 0 to E.

    Node S = {a (p = .5, class 0), b (p = 0, class 1)}, θ = 0, φ(X) = 1: for a, q = .5 = p(S).
    For b, q = 0: its share is weighted by p(b) = 0. So E = 0 whatever the split.
    """
    terms = split_terms([0, 1], [0.5, 0.0], np.array([True, False]), impurity=gini,
                        phi_root=1)
    assert terms.E == 0.0
    assert close(terms.B, 0)  # tie in counts -> left (p = .5) is v*: B = .5 − .5


@pytest.mark.parametrize("seed", range(5))
def test_large_lambda_ranks_like_cost_benefit(seed):
    """Z(d)·c(d)/λ → D(d) as λ → ∞: the ECART ranking of tests becomes cost_benefit's."""
    from treesmith.rules.reference import candidate_splits

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(40, 3)).astype(float)
    y = (X[:, 0] + rng.integers(0, 2, 40) > 2).astype(int)
    p = np.full(40, 1 / 40)
    costs = rng.integers(1, 5, 3).astype(float)
    cb = candidate_splits(X, y, p, rule="cost_benefit", feature_costs=costs)
    ec = candidate_splits(X, y, p, rule=ECART(lam=1e9), feature_costs=costs)
    best_cb = max(range(len(cb)), key=lambda i: (cb[i].score, -i))
    best_ec = max(range(len(ec)), key=lambda i: (ec[i].score, -i))
    assert best_cb == best_ec


# == the engine against the reference ====================================================
import treesmith
from treesmith.rules.reference import impure_pairs, ranked_candidates

ALL_RULES = ["gain", "gain_ratio", "cost_benefit", ECART(lam=0.5), ECART(lam=10.0), "asr",
             "impure_pairs", "balanced"]
RELATIVE_TIE = 1e-9


def _key_close(a, b):
    return a[0] == b[0] and abs(a[1] - b[1]) <= RELATIVE_TIE * max(1.0, abs(a[1]), abs(b[1]))


def _node_costs(estimator, node, parents):
    """Cost of each feature at ``node``: per_feature makes groups tested above it free."""
    costs = np.asarray(estimator.feature_costs_, dtype=float).copy()
    if estimator.cost_model_ == "per_feature":
        groups = np.asarray(estimator.cost_groups_)
        ancestor = parents[node]
        while ancestor >= 0:
            costs[groups == groups[estimator.tree_.feature[ancestor]]] = 0.0
            ancestor = parents[ancestor]
    return costs


def check_tree_against_reference(estimator, X, y, sample_weight=None):
    """Every split of the fitted tree is an optimal test of the reference at its node, and
    every leaf that could have been split has no test. Returns (nodes, exact matches)."""
    tree = estimator.tree_
    y_code = np.searchsorted(estimator.classes_, y)
    weight = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    p = weight / weight.sum()
    theta = estimator.min_weight_fraction_split
    phi_root = impure_pairs(y_code)
    paths = estimator.decision_path(X).toarray().astype(bool)
    parents = tree.parent()
    rule = estimator.split_rule_
    n_exact = n_checked = 0
    for node in range(tree.node_count):
        rows = paths[:, node]
        ranked = ranked_candidates(
            X[rows], y_code[rows], p[rows], rule, impurity=estimator.criterion_, theta=theta,
            phi_root=phi_root, n_classes=len(estimator.classes_),
            feature_costs=_node_costs(estimator, node, parents))
        if tree.children_left[node] == -1:
            depth_left = estimator.max_depth is None or tree.depth[node] < estimator.max_depth
            splittable = impure_pairs(y_code[rows]) > 0 and p[rows].sum() > theta and depth_left
            assert not (splittable and ranked), f"leaf {node} has candidate tests"
            continue
        f, t = tree.feature[node], tree.threshold[node]
        kernel_left = X[rows, f] <= t
        best, best_key = None, None
        for candidate, key in ranked:
            if best is None or key > best_key:
                best, best_key = candidate, key
        chosen = [key for c, key in ranked
                  if c.feature == f and np.array_equal(c.left, kernel_left)]
        assert chosen, f"node {node}: the engine's test (x{f} <= {t}) is not an eligible test"
        assert _key_close(chosen[0], best_key), (
            f"node {node}: engine x{f} <= {t} scores {chosen[0]}, reference best "
            f"x{best.feature} <= {best.threshold} scores {best_key}")
        n_checked += 1
        n_exact += best.feature == f and np.array_equal(best.left, kernel_left)
    return n_checked, n_exact


def _small_problem(seed, n=48, d=4, n_classes=2, weighted=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d)).astype(float)
    signal = X[:, 0] + (X[:, 1] > 1) + rng.integers(0, 3, n)
    y = np.minimum((signal * n_classes) // 6, n_classes - 1).astype(int)
    weight = rng.integers(1, 4, n).astype(float) if weighted else None
    return X, y, weight


@pytest.mark.parametrize("rule", ALL_RULES, ids=str)
@pytest.mark.parametrize("seed, n_classes, weighted, theta, unit_costs", [
    (0, 2, False, 0.0, True),
    (1, 3, True, 0.05, False),
    (2, 2, True, 0.2, False),
])
def test_root_split_is_the_reference_optimum(rule, seed, n_classes, weighted, theta, unit_costs):
    """Depth-1 trees: the engine's root test maximises the reference score over every
    threshold of every feature (exact binning, so both see the same candidate tests)."""
    X, y, weight = _small_problem(seed, n_classes=n_classes, weighted=weighted)
    costs = None if unit_costs else [3.0, 1.0, 2.0, 5.0]
    tree = treesmith.DecisionTreeClassifier(
        criterion="entropy", split_rule=rule, max_depth=1, max_bins=None,
        min_weight_fraction_split=theta, feature_costs=costs).fit(X, y, sample_weight=weight)
    assert tree.tree_.node_count == 3
    checked, exact = check_tree_against_reference(tree, X, y, weight)
    assert checked == 1 and exact in (0, 1)


@pytest.mark.parametrize("rule", ALL_RULES, ids=str)
@pytest.mark.parametrize("criterion, cost_model", [("gini", "per_test"),
                                                   ("entropy", "per_feature")])
def test_every_split_of_a_grown_tree_is_the_reference_optimum(rule, criterion, cost_model):
    """Below the root p(S) < 1 and φ(S) < φ(X): B, E and D use the training-set
    normalisation, q_i = max(p(x_i), θ) with unequal weights, and per_feature costs."""
    X, y, weight = _small_problem(10, n=60, d=4, n_classes=3, weighted=True)
    tree = treesmith.DecisionTreeClassifier(
        criterion=criterion, split_rule=rule, max_depth=4, max_bins=None,
        min_weight_fraction_split=0.08, feature_costs=[2.0, 1.0, 2.0, 4.0],
        cost_groups=[[0, 2]], cost_model=cost_model).fit(X, y, sample_weight=weight)
    checked, exact = check_tree_against_reference(tree, X, y, weight)
    assert checked >= 3
    assert exact >= checked - 2  # near-ties aside, the very same tests


def test_free_tests_rank_first():
    """docs/methods.md §5: with cost 0 a test is ranked by its numerator ahead of all paid tests."""
    X, y, _ = _small_problem(3)
    for rule in ("cost_benefit", ECART(lam=1.0), "impure_pairs"):
        tree = treesmith.DecisionTreeClassifier(
            split_rule=rule, max_depth=1, max_bins=None,
            feature_costs=[1.0, 1.0, 1.0, 0.0]).fit(X, y)
        assert tree.tree_.feature[0] == 3
        check_tree_against_reference(tree, X, y)


def test_free_test_without_benefit_does_not_win():
    """A free test whose numerator is 0 (here: zero gain, the class mix is the same on both
    sides) brings nothing; 0/0 is no benefit, so the paid perfect test x0 must win. (Ranking
    every free test ahead regardless of its numerator would split on x1 first and grow a
    larger tree at the same cost.)"""
    X = np.array([[0, 0], [0, 0], [1, 0], [1, 0], [0, 1], [0, 1], [1, 1], [1, 1]], float)
    y = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    tree = treesmith.DecisionTreeClassifier(
        criterion="entropy", split_rule="cost_benefit", max_depth=1,
        feature_costs=[1.0, 0.0]).fit(X, y)
    assert tree.tree_.feature[0] == 0
    check_tree_against_reference(tree, X, y)


def test_large_lambda_ecart_grows_the_cost_benefit_tree():
    """λ → ∞: Z·c/λ → D, so ECART takes the same tests as cost_benefit (Zhang & Gionis 2023 §6)."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    costs = np.random.default_rng(0).integers(1, 11, X.shape[1]).astype(float)
    params = dict(criterion="entropy", max_depth=5, max_bins=16, feature_costs=costs,
                  min_weight_fraction_split=0.005)
    cb = treesmith.DecisionTreeClassifier(split_rule="cost_benefit", **params).fit(X, y)
    ec = treesmith.DecisionTreeClassifier(split_rule=ECART(lam=1e9), **params).fit(X, y)
    assert cb.tree_.node_count == ec.tree_.node_count > 7
    assert np.array_equal(cb.tree_.feature, ec.tree_.feature)
    assert np.array_equal(cb.tree_.threshold, ec.tree_.threshold, equal_nan=True)
    small = treesmith.DecisionTreeClassifier(split_rule=ECART(lam=0.1), **params).fit(X, y)
    assert not np.array_equal(cb.tree_.feature[:3], small.tree_.feature[:3])


def _appendix_a_like(m=20, k=8):
    """Two classes of m objects. x0: a balanced test independent of the class (half of each
    class on each side). x1: isolates k < m/2 objects of class 0 (pure, discriminative)."""
    y = np.r_[np.zeros(m, int), np.ones(m, int)]
    x0 = np.r_[np.arange(m) % 2, np.arange(m) % 2].astype(float)
    x1 = np.r_[np.ones(k), np.zeros(2 * m - k)]
    return np.c_[x0, x1], y


def test_appendix_a_impure_pairs_prefers_the_balanced_random_test():
    """Seed 000 §6 / Appendix A: IP counts cut pairs, m²/2 = 200 for the random balanced test
    against k·m = 160 for the discriminative one, so IP (and BAL, and ASR = ECART at λ = 0)
    split on the useless x0. Gain-based rules and ECART with λ above λ* ≈ 2.37 (where
    λ·D closes the B + E gap, computed by the reference) take x1."""
    X, y = _appendix_a_like()
    p = np.full(len(y), 1 / len(y))
    random_test = split_terms(y, p, X[:, 0] <= 0, impurity=entropy)
    good_test = split_terms(y, p, X[:, 1] <= 0, impurity=entropy)
    assert (random_test.impure_pairs, good_test.impure_pairs) == (200, 160)
    assert random_test.D == pytest.approx(0, abs=1e-15) and good_test.D > 0.2
    lam_star = (random_test.B + random_test.E - good_test.B - good_test.E) / good_test.D
    assert 2.3 < lam_star < 2.4

    def root_feature(rule):
        tree = treesmith.DecisionTreeClassifier(criterion="entropy", split_rule=rule,
                                                max_depth=1).fit(X, y)
        return tree.tree_.feature[0]

    for rule in ("impure_pairs", "balanced", "asr", ECART(lam=1.0)):
        assert root_feature(rule) == 0, rule
    for rule in ("gain", "cost_benefit", "gain_ratio", ECART(lam=3.0), ECART(lam=10.0)):
        assert root_feature(rule) == 1, rule


def test_ecart_counts_the_coalesced_objects():
    """B's largest child is the one with most *objects*: on coalesced data an object of
    weight k counts once. Both representations match the reference on the objects the tree
    was given, and their root tests differ (so the count really is the coalesced one)."""
    from treesmith.preprocessing import coalesce

    rng = np.random.default_rng(5)
    base = np.unique(rng.integers(0, 3, size=(30, 3)).astype(float), axis=0)
    labels = (base[:, 0] + rng.integers(0, 2, len(base)) > 1).astype(int)
    copies = np.where(base[:, 1] == 2, 8, 1)  # few heavy objects on one side of x1
    X_dup, y_dup = np.repeat(base, copies, axis=0), np.repeat(labels, copies)
    X_u, y_u, w_u, counts = coalesce(X_dup, y_dup)
    assert np.array_equal(np.sort(counts), np.sort(copies))
    params = dict(criterion="entropy", split_rule=ECART(lam=0.5), max_depth=1, max_bins=None)
    on_dup = treesmith.DecisionTreeClassifier(**params).fit(X_dup, y_dup)
    on_coalesced = treesmith.DecisionTreeClassifier(**params).fit(X_u, y_u, sample_weight=w_u)
    check_tree_against_reference(on_dup, X_dup, y_dup)
    check_tree_against_reference(on_coalesced, X_u, y_u, w_u)
    assert (on_dup.tree_.feature[0], on_dup.tree_.threshold[0]) != (
        on_coalesced.tree_.feature[0], on_coalesced.tree_.threshold[0])
