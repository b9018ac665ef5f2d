"""Split rules in the kernels (docs/methods.md §4, §5): the only kernel module that knows them.

A rule is two things here:

* its **numerator**, computed for every candidate split by the per-feature scan
  (``splitting.scan_feature``) from the children's statistics rows: one function per rule,
  dispatched by ``rule_numerator`` on the rule's code;
* its **ranking** of a node's best split (``split_ranking``): rules that divide by the test
  cost rank free tests with a positive numerator first, then numerator / cost; gain ratio ranks
  by gain / split information. ``select_split`` compares the node's features by it (gain ratio
  only among the features whose gain is at least the average), and best-first growth the
  nodes, so that a node is expanded in the order its rule prefers (docs/methods.md §4).

The Python side of a rule (name, parameters, ECART's q groups) is ``treesmith.rules``; adding
a rule is described in docs/adding_a_split_rule.md.
"""

import numpy as np
from numba import njit

from .decorators import internal_kernel
from .records import SplitRule, ThresholdDraw
from .set_functions import set_function_of_sum
from .stats import group_column, pairs_of, stats_weight

#: Rule codes, as ``records.SplitRule.code`` carries them (the Python rule objects of
#: ``treesmith.rules`` name theirs with these constants).
RULE_GAIN = 0  # p(S) * Delta_h
RULE_GAIN_RATIO = 1  # C4.5: gain / split info among features with at least average gain
RULE_COST_BENEFIT = 2  # gain / c
RULE_ECART = 3  # (B + E + lambda * D) / c; lambda = 0 is ASR
RULE_IMPURE_PAIRS = 4  # (phi(S) - sum_v phi(S_v)) / c
RULE_BALANCED = 5  # maximise -|p(left) - p(right)|
# 6 is the code of the worked example of docs/adding_a_split_rule.md (twoing)
RULE_MINIMAX = 7  # min_v (F(S) - F(S_v)) / c, F an admissible set function (BudgetRF)

#: Relative margin by which a candidate must beat the incumbent: scores that are equal in exact
#: arithmetic can differ by rounding, and the tie rule (lowest feature, lowest threshold) must
#: not depend on that.
TIE_TOLERANCE = 1e-12

#: Bin threshold of "no valid split". A numpy integer, not a Python int: Numba types a Python
#: int global as a literal, and every kernel called with it would be compiled twice.
NO_SPLIT = np.int64(-1)


@internal_kernel
def beats(score, best, scale):
    """``score`` is better than ``best`` by more than rounding noise.

    ``scale`` is the magnitude of the terms a score is computed from (e.g. p(S) h(S) for a
    gain), which is what the rounding error of a difference of such terms is relative to.
    """
    if best == -np.inf:
        return score > best
    return score > best + TIE_TOLERANCE * max(abs(best), scale)


@internal_kernel(reference_counted=False)
def tie_scale(rule, weighted_parent_impurity, node_weight, node_pairs, total_weight):
    """Magnitude of the terms of a node's numerators, for ``beats``: phi(S) for impure pairs,
    (|w(S) h(S)| + w(S)) / w(root) for the others."""
    if rule.code == RULE_IMPURE_PAIRS:
        return node_pairs
    return (abs(weighted_parent_impurity) + node_weight) / total_weight


@internal_kernel(reference_counted=False)
def node_tie_scale(node):
    """``tie_scale`` of the node a ``records.NodeScan`` describes (for the scans that compare
    candidates they scored through the numeric scan: categorical, randomized)."""
    n_classes = node.n_classes
    return tie_scale(node.rule, node.weighted_parent_impurity,
                     stats_weight(node.totals, n_classes),
                     pairs_of(node.totals, n_classes) if n_classes > 0 else 0.0,
                     node.total_weight)


@njit(cache=True, nogil=True)
def gain_rule():
    """The plain gain rule (the permutation test of S-pruning scores gains only)."""
    return SplitRule(np.int64(RULE_GAIN), np.zeros(1), np.zeros(1), np.int64(0),
                     np.bool_(False), np.bool_(False),
                     ThresholdDraw(np.int64(0), np.zeros((0, 0))))


# -- numerators: one function per rule ------------------------------------------------------
@njit(cache=True, nogil=True)
def _efficiency(child, n_classes, rule, weight_child, weight_node, pairs_child, pairs_node,
                total_weight):
    """One child's share of ECART's E term (docs/methods.md §4), in probability units.

    sum over the child's objects of p(x_i) * [1 - (p(child) - q_i)_+ / (p(S) - q_i)
    * phi(child) / phi(S)], objects with p(S) <= q_i contributing 0. Objects are grouped by their
    distinct q_i: with one group the child's weight stands for the group's weight, otherwise the
    child's row holds the weight of each group (``stats.group_column``).
    """
    p_child = weight_child / total_weight
    p_node = weight_node / total_weight
    pair_ratio = pairs_child / pairs_node if pairs_node > 0.0 else 0.0
    total = 0.0
    for g in range(max(rule.n_groups, 1)):
        q = rule.group_q[g]
        if p_node <= q:
            continue
        group_weight = child[group_column(n_classes, g)] if rule.n_groups > 0 else weight_child
        covered = p_child - q
        covered = max(covered, 0.0)
        total += group_weight / total_weight * (1.0 - covered / (p_node - q) * pair_ratio)
    return total


@njit(cache=True, nogil=True)
def ecart_numerator(rule, gain, left, right, count_left, count_right, weight_left,
                    weight_right, node_weight, node_pairs, total_weight, n_classes):
    """B + E + lambda * D (docs/methods.md §4); lambda = parameters[0], 0 for ASR.

    B is the weight outside the child with most objects (ties: left is that child).
    """
    if count_left >= count_right:
        balance = (node_weight - weight_left) / total_weight
    else:
        balance = (node_weight - weight_right) / total_weight
    efficiency = (
        _efficiency(left, n_classes, rule, weight_left, node_weight, pairs_of(left, n_classes),
                    node_pairs, total_weight)
        + _efficiency(right, n_classes, rule, weight_right, node_weight,
                      pairs_of(right, n_classes), node_pairs, total_weight))
    return balance + efficiency + rule.parameters[0] * gain


@njit(cache=True, nogil=True)
def impure_pairs_numerator(left, right, node_pairs, n_classes):
    """phi(S) - phi(L) - phi(R): pairs of objects with different classes that the test
    separates (Golovin et al. 2010), unweighted counts."""
    return node_pairs - pairs_of(left, n_classes) - pairs_of(right, n_classes)


@njit(cache=True, nogil=True)
def balanced_numerator(weight_left, weight_right, total_weight):
    """-|p(L) - p(R)|: the most even split."""
    return -abs(weight_left - weight_right) / total_weight


@njit(cache=True, nogil=True)
def minimax_numerator(rule, left, right, n_classes):
    """min over the children v of F(S) − F(S_v), F the admissible set function of the class
    weights (code ``parameters[0]``, parameter ``parameters[1]``; docs/methods.md §4, §11).

    Nan, Wang & Saligrama (2015), Algorithm 1: the risk of a test is max_v c / (F(S) − F(S_v)),
    and ``select_split`` maximises numerator / c, i.e. minimises that risk. A test that leaves
    some child with F(S_v) = F(S) has infinite risk: −inf here, so it is never chosen and a
    node where no test decreases F (F(S) = 0 among them) stays a leaf.
    """
    code = np.int64(rule.parameters[0])
    parameter = rule.parameters[1]
    # class weights are the first n_classes columns of a row (``stats.weight_column``)
    node = set_function_of_sum(code, left, right, 1.0, n_classes, parameter)
    smallest = min(node - set_function_of_sum(code, left, right, 0.0, n_classes, parameter),
                   node - set_function_of_sum(code, right, left, 0.0, n_classes, parameter))
    if not smallest > 1e-12 * node:
        return -np.inf
    return smallest


@njit(cache=True, nogil=True)
def numerator_is_gain(code):
    """True when ``rule_numerator`` of rule ``code`` is the gain itself (gain, gain ratio,
    cost-benefit; any other rule, a new one included, gets its own numerator). The scan tests
    this once per feature and calls ``rule_numerator`` only otherwise: the inlined call still
    takes references to the rule's arrays and the children's rows, an NRT incref/decref pair
    each per candidate."""
    return code == RULE_GAIN or code == RULE_GAIN_RATIO or code == RULE_COST_BENEFIT


@njit(cache=True, nogil=True)
def numerator_is_symmetric(code):
    """True when ``rule_numerator`` of rule ``code`` is the same with the two children swapped:
    every rule's but ECART's (ASR is ECART with lambda 0), whose B(d) is taken at the child
    with more objects, ties to the left. A set of categories can go either way, so the
    categorical scan scores each set both ways round for a rule that is not symmetric."""
    return code != RULE_ECART


@njit(cache=True, nogil=True, inline="always")
def rule_numerator(rule, gain, left, right, count_left, count_right, weight_left, weight_right,
                   node_weight, node_pairs, total_weight, n_classes):
    """The numerator of ``rule`` for one candidate (``left``/``right``: the children's rows;
    ``gain`` = p(S) Delta_h already computed); the registration point of the rules.

    Inlined into the scan (Numba IR inlining): called for every candidate, a call that passes
    the rule record (which holds arrays) cost 9% of a depth-8 fit.
    """
    if rule.code == RULE_ECART:
        return ecart_numerator(rule, gain, left, right, count_left, count_right, weight_left,
                               weight_right, node_weight, node_pairs, total_weight, n_classes)
    if rule.code == RULE_IMPURE_PAIRS:
        return impure_pairs_numerator(left, right, node_pairs, n_classes)
    if rule.code == RULE_BALANCED:
        return balanced_numerator(weight_left, weight_right, total_weight)
    if rule.code == RULE_MINIMAX:
        return minimax_numerator(rule, left, right, n_classes)
    return gain  # gain, gain ratio, cost-benefit


@njit(cache=True, nogil=True, inline="always")
def gain_numerator(rule, gain, left, right, count_left, count_right, weight_left, weight_right,
                   node_weight, node_pairs, total_weight, n_classes):
    """``rule_numerator`` of the rules whose numerator is the gain (``numerator_is_gain``).
    The per-feature scan of a fit with one of these rules is compiled with it in place of
    ``rule_numerator``, which the scan then never calls (``pointers.scan_pointer``), so that
    the first fit does not compile the other rules' numerators."""
    return gain


# -- selection across features --------------------------------------------------------------
@internal_kernel
def _split_information(weight_left, node_weight):
    """-sum_v p_v log2 p_v over the two children (C4.5's split information)."""
    left = weight_left / node_weight
    right = 1.0 - left
    split_info = 0.0
    if left > 0.0:
        split_info -= left * np.log2(left)
    if right > 0.0:
        split_info -= right * np.log2(right)
    return split_info


@internal_kernel
def _mean_valid_gain(results, features):
    mean_gain = 0.0
    n_valid = 0
    for i in range(features.shape[0]):
        split = results[features[i]]
        if split["bin_threshold"] != NO_SPLIT:
            mean_gain += split["gain"]
            n_valid += 1
    return mean_gain / n_valid if n_valid > 0 else mean_gain


@internal_kernel(reference_counted=False)
def split_ranking(split, cost, rule, node_weight, scale):
    """How ``rule`` ranks the split ``split`` (a ``records.SPLIT_DTYPE`` record) of a node of
    weight ``node_weight`` whose test costs ``cost`` there: ``(tier, value, value_scale)``, a
    higher tier first, then a larger value (``beats``, rounding relative to ``value_scale``).

    The gain-type rules' value is the numerator itself, tier 0. Cost-divided rules rank free
    tests (cost 0) with a positive numerator in tier 1 by their numerator, ahead of paid ones,
    ranked by numerator / cost (docs/methods.md §5); a free test whose numerator is zero (0/0)
    counts as no benefit. Gain ratio ranks by gain / split information. ``select_split``
    compares a node's features by it, best-first growth its nodes (docs/methods.md §4).
    """
    numerator = split["score"]
    if rule.code == RULE_GAIN_RATIO:
        split_info = _split_information(split["weight_left"], node_weight)
        if split_info > 0.0:
            return 0, numerator / split_info, scale / split_info
        return 0, -np.inf, scale
    if rule.divides_by_cost:
        if cost <= 0.0:
            if numerator > TIE_TOLERANCE * scale:
                return 1, numerator, scale
            return 0, 0.0, scale  # 0 / 0: a free test that brings nothing
        return 0, numerator / cost, scale / cost
    return 0, numerator, scale


@internal_kernel(reference_counted=False)
def select_split(results, features, costs, rule, node_weight, scale):
    """The feature whose best split wins under ``rule`` (-1 when none is valid): the largest
    ``split_ranking``. Gain ratio is C4.5's: it ranks only the features whose gain is at least
    the average gain of the valid features. Ties (up to rounding relative to ``scale``, see
    ``beats``) go to the lowest feature index.
    """
    mean_gain = 0.0
    if rule.code == RULE_GAIN_RATIO:
        mean_gain = _mean_valid_gain(results, features)
    best = -1
    best_tier = -1
    best_value = -np.inf
    for i in range(features.shape[0]):
        f = features[i]
        split = results[f]
        if split["bin_threshold"] == NO_SPLIT:
            continue
        if (rule.code == RULE_GAIN_RATIO
                and split["gain"] < mean_gain - 1e-12 * abs(mean_gain)):
            continue
        tier, value, value_scale = split_ranking(split, costs[f], rule, node_weight, scale)
        if tier > best_tier or (tier == best_tier and beats(value, best_value, value_scale)):
            best, best_tier, best_value = f, tier, value
    return best
