"""Pure-numpy reference of the split scores of docs/methods.md §4, computed from their definitions.

This is the test oracle for the compiled split kernel. It works object by object, exactly as
Zhang & Gionis 2023 §3–4 writes the terms, and deliberately does **not** use the histogram algebra the
kernel relies on:

* B(d) = p(S) − p(S_d^{v*}), v* = the child with most objects (unweighted count; tie → left).
* E(d) = Σ_{x_i∈S} p(x_i)·(f̃_i(after) − f̃_i(before)) / (1 − f̃_i(before)), where for object
  x_i in node N (N = S before the test, its child after)
  f̃_i = 1 − (1 − f̄^p_i)(1 − f^φ_i), f̄^p_i = min{(1 − p(N)) / (1 − max(p(x_i), θ)), 1},
  f^φ_i = (φ(X) − φ(N)) / φ(X); an object with f̃_i(before) = 1 is covered and adds 0.
* D(d) = p(S)·Δ_h(S, d), Δ_h(S, d) = h(S) − Σ_v p(S_v)/p(S)·h(S_v) for any impurity h.
* IP(d) = φ(S) − Σ_v φ(S_v) (unweighted pairs of objects with different classes).
* BAL(d) = −|p(S_left) − p(S_right)|.

``p`` is the objects' probability (sample weights normalised over the *training set*), so
p(S) < 1 below the root. Scores of cost-dividing rules follow docs/methods.md §4/§5: score = numerator /
c(d); a free test (c = 0) with a positive numerator ranks ahead of every paid test, free tests
among themselves by numerator (see :func:`ranking_key`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._base import ECART, Balanced, CostBenefit, Gain, GainRatio, ImpurePairs, Rule, resolve_rule


def entropy(proportions) -> float:
    """−Σ π_k log₂ π_k (bits, 0·log 0 = 0)."""
    pi = np.asarray(proportions, dtype=np.float64)
    pi = pi[pi > 0]
    return float(-(pi * np.log2(pi)).sum())


def gini(proportions) -> float:
    """1 − Σ π_k²."""
    pi = np.asarray(proportions, dtype=np.float64)
    return float(1.0 - (pi * pi).sum())


def impure_pairs(labels) -> float:
    """φ(S): number of unordered pairs of objects with different labels, Σ_{k<l} n_k n_l."""
    labels = np.asarray(labels)
    n = labels.shape[0]
    same = sum(int(c) * (int(c) - 1) // 2 for c in np.unique(labels, return_counts=True)[1])
    return float(n * (n - 1) // 2 - same)


def _proportions(y, p, n_classes):
    total = p.sum()
    weights = np.bincount(y, weights=p, minlength=n_classes)
    return weights / total if total > 0 else weights


def _coverage(p_node, phi_node, p_object, theta, phi_root) -> float:
    """f̃_i for an object of probability ``p_object`` in a node N (p(N), φ(N)); Zhang & Gionis 2023 §4."""
    q = max(p_object, theta)
    f_p = 1.0 if q >= 1.0 else min((1.0 - p_node) / (1.0 - q), 1.0)
    f_phi = (phi_root - phi_node) / phi_root
    return 1.0 - (1.0 - f_p) * (1.0 - f_phi)


@dataclass(frozen=True)
class SplitTerms:
    """Every term of every rule for one node S and one binary test (left mask)."""

    p_node: float        # p(S)
    p_left: float        # p(S_left)
    p_right: float       # p(S_right)
    n_left: int          # objects going left (unweighted)
    n_right: int
    B: float             # balance
    E: float             # efficiency
    D: float             # discrimination, p(S)·Δ_h
    delta_h: float       # Δ_h(S, d)
    split_info: float    # −Σ_v (p_v/p(S)) log₂(p_v/p(S))
    impure_pairs: float  # φ(S) − φ(S_left) − φ(S_right)
    balance_gap: float   # |p(S_left) − p(S_right)|

    def numerator(self, rule: Rule) -> float:
        """The rule's score before division by the test's cost."""
        if isinstance(rule, ECART):
            return self.B + self.E + float(rule.lam) * self.D
        if isinstance(rule, (Gain, CostBenefit)):
            return self.D
        if isinstance(rule, GainRatio):
            return self.delta_h / self.split_info if self.split_info > 0 else 0.0
        if isinstance(rule, ImpurePairs):
            return self.impure_pairs
        if isinstance(rule, Balanced):
            return -self.balance_gap
        raise ValueError(f"split_rule {rule!r} has no reference score.")

    def score(self, rule, cost: float = 1.0) -> float:
        """Z(d): the numerator divided by c(d) for cost-dividing rules (inf when c = 0 and the
        numerator is positive, 0 when both are 0)."""
        rule = resolve_rule(rule)
        value = self.numerator(rule)
        if not rule.divides_by_cost:
            return value
        if cost > 0:
            return value / cost
        return np.inf if value > 0 else 0.0


def split_terms(y, p, left, *, impurity=entropy, theta=0.0, phi_root=None,
                n_classes=None) -> SplitTerms:
    """B, E, D (and the other rules' terms) of the test sending ``left`` objects of S left.

    Parameters:
        y: int class labels of the node's objects (0..n_classes-1).
        p: their probabilities p(x), already normalised over the training set.
        left: boolean mask, True for the objects the test sends left.
        impurity: h(proportion vector) -> float (a function or a treesmith criterion object).
        theta: the θ of docs/methods.md §4 (``min_weight_fraction_split``), the truncation of f̄^p.
        phi_root: φ(X) of the training set (default: φ of this node, i.e. S is the root).
        n_classes: length of the proportion vectors (default: max(y) + 1).
    """
    y = np.asarray(y, dtype=np.int64)
    p = np.asarray(p, dtype=np.float64)
    left = np.asarray(left, dtype=bool)
    if not (y.shape == p.shape == left.shape and y.ndim == 1):
        raise ValueError("y, p and left must be 1-D arrays of the same length.")
    n_classes = int(y.max()) + 1 if n_classes is None else int(n_classes)
    phi_node = impure_pairs(y)
    phi_root = phi_node if phi_root is None else float(phi_root)
    children = [left, ~left]

    p_node = float(p.sum())
    p_child = [float(p[mask].sum()) for mask in children]
    n_child = [int(mask.sum()) for mask in children]
    phi_child = [impure_pairs(y[mask]) for mask in children]

    largest = 0 if n_child[0] >= n_child[1] else 1
    balance = p_node - p_child[largest]

    efficiency = 0.0
    if phi_root > 0:
        for side, mask in enumerate(children):
            for p_i in p[mask]:
                before = _coverage(p_node, phi_node, p_i, theta, phi_root)
                if before >= 1.0:
                    continue
                after = _coverage(p_child[side], phi_child[side], p_i, theta, phi_root)
                efficiency += p_i * (after - before) / (1.0 - before)

    h_node = impurity(_proportions(y, p, n_classes))
    h_children = sum(
        (p_child[side] / p_node) * impurity(_proportions(y[mask], p[mask], n_classes))
        for side, mask in enumerate(children) if p_child[side] > 0
    )
    delta_h = float(h_node - h_children)
    fractions = np.asarray([pc / p_node for pc in p_child if pc > 0])
    split_info = float(-(fractions * np.log2(fractions)).sum())

    return SplitTerms(
        p_node=p_node, p_left=p_child[0], p_right=p_child[1],
        n_left=n_child[0], n_right=n_child[1],
        B=float(balance), E=float(efficiency), D=p_node * delta_h, delta_h=delta_h,
        split_info=split_info,
        impure_pairs=float(phi_node - phi_child[0] - phi_child[1]),
        balance_gap=abs(p_child[0] - p_child[1]),
    )


def ranking_key(score: float, numerator: float, cost: float, divides_by_cost: bool):
    """Sort key (larger is better) putting free tests with a positive numerator first."""
    if divides_by_cost and cost == 0 and numerator > 0:
        return (1, numerator)
    return (0, score)


@dataclass(frozen=True)
class Candidate:
    """One candidate test of :func:`best_split`: a feature, its threshold and the terms."""

    feature: int
    threshold: float
    left: np.ndarray
    terms: SplitTerms
    score: float


def candidate_splits(X, y, p, *, impurity=entropy, theta=0.0, phi_root=None, n_classes=None,
                     rule="gain", feature_costs=None) -> list[Candidate]:
    """Every test ``X[:, j] <= t`` (t = each distinct value but the largest), in feature then
    threshold order, with its terms and its score under ``rule``."""
    rule = resolve_rule(rule)
    X = np.asarray(X, dtype=np.float64)
    costs = np.ones(X.shape[1]) if feature_costs is None else np.asarray(feature_costs, float)
    out = []
    for j in range(X.shape[1]):
        for t in np.unique(X[:, j])[:-1]:
            left = X[:, j] <= t
            terms = split_terms(y, p, left, impurity=impurity, theta=theta, phi_root=phi_root,
                                n_classes=n_classes)
            out.append(Candidate(j, float(t), left, terms, terms.score(rule, costs[j])))
    return out


def ranked_candidates(X, y, p, rule, *, impurity=entropy, theta=0.0, phi_root=None,
                      n_classes=None, feature_costs=None) -> list[tuple[Candidate, tuple]]:
    """The tests eligible under ``rule`` with their ranking keys (larger is better), in
    feature then threshold order. For gain_ratio only C4.5's eligible tests are listed
    (see :func:`best_split`)."""
    rule = resolve_rule(rule)
    candidates = candidate_splits(X, y, p, impurity=impurity, theta=theta, phi_root=phi_root,
                                  n_classes=n_classes, rule=rule, feature_costs=feature_costs)
    if isinstance(rule, GainRatio) and candidates:
        candidates = _c45_candidates(candidates)
    costs = (np.ones(np.asarray(X).shape[1]) if feature_costs is None
             else np.asarray(feature_costs, float))
    return [(c, ranking_key(c.score, c.terms.numerator(rule), costs[c.feature],
                            rule.divides_by_cost)) for c in candidates]


def best_split(X, y, p, rule, *, impurity=entropy, theta=0.0, phi_root=None, n_classes=None,
               feature_costs=None) -> Candidate | None:
    """The test a node should take under ``rule`` (None when no test separates the node).

    Ties go to the lowest feature index, then the lowest threshold (docs/methods.md §4). For gain_ratio
    (C4.5, Quinlan 1993 §2 and release 8's continuous attributes): each feature offers its
    largest-gain threshold; among the features whose gain is at least the average of those
    gains, the largest gain / split information wins.
    """
    best, best_key = None, None
    for candidate, key in ranked_candidates(X, y, p, rule, impurity=impurity, theta=theta,
                                            phi_root=phi_root, n_classes=n_classes,
                                            feature_costs=feature_costs):
        if best is None or key > best_key:  # strict: the first of equal keys stays
            best, best_key = candidate, key
    return best


def _c45_candidates(candidates: list[Candidate]) -> list[Candidate]:
    """C4.5's eligible tests: each feature's largest-gain test (lowest threshold on ties),
    kept when its gain is at least the average over the features (1e-12 relative slack)."""
    per_feature: dict[int, Candidate] = {}
    for c in candidates:
        if c.feature not in per_feature or c.terms.D > per_feature[c.feature].terms.D:
            per_feature[c.feature] = c
    average = float(np.mean([c.terms.D for c in per_feature.values()]))
    return [c for c in per_feature.values() if c.terms.D >= average - 1e-12 * abs(average)]
