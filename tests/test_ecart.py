"""ECART / EC4.5 (seed 000 §4, SPEC §4): hand-computed B, E, D, Z and the compiled kernel.

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
