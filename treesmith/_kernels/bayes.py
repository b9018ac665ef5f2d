"""Compiled Metropolis–Hastings sampler over binary trees on binned data (Bayesian CART).

Model (Chipman, George & McCulloch, "Bayesian CART model search", JASA 1998; the sigma-phi
family of Balcan & Sharma, "Learning accurate and interpretable decision trees", 2024, §3.1;
``docs/methods.md §7``):

* Prior p(T). A node at depth d splits with probability p_split(d) = sigma (1 + d)^(-phi)
  when it has a usable split (some feature takes two distinct values in the node) and
  d < max_depth; otherwise with probability 0. A split draws its feature uniformly among
  the n_usable usable features, then its rule uniformly among the n_rules rules of that
  feature available in the node: for a numeric feature with m distinct bins in the node, a
  threshold among the m - 1 that leave both children non-empty; for a categorical one, a
  partition of its m distinct bins (categories present in the node, and the missing bin when
  missing or unseen values are there) into two non-empty sets, 2^(m-1) - 1 of them. A
  tree's prior is the product over internal nodes of p_split(d) / (n_usable n_rules) and over
  leaves of 1 - p_split(d), restricted to trees with at most ``max_leaves`` leaves.
* Categorical rules. CGM98 draw a categorical rule uniformly among the 2^m - 2 non-empty
  proper subsets of the available categories, a subset and its complement giving the same
  split with the children swapped; the induced prior on partitions is uniform, which is what
  this module samples with one representative per partition: the set S sent left never holds
  the node's largest present bin. So each split is one tree (a mirrored pair would be two
  states with equal posterior), the missing bin, the largest, always goes right, and a rule
  is *available* in a node when every category of S is present there and the largest present
  bin is not in S (else, after a change or swap moved data, the tree has prior 0). A
  category absent from the node, and at prediction a category unseen in training, goes
  right, as missing values do. S is a 256-bit set (``Nodes.categories``) with bin
  ``CATEGORICAL_SPLIT``; it is drawn by a fair coin per present bin but the largest, an
  empty draw drawn again: uniform over the 2^(m-1) - 1 sets.
* Likelihood, integrated exactly over the leaf parameters (sample weights act as frequency
  weights in every count and sum):
  - classification: leaf class counts n_k with a Dirichlet(a_1..a_K) prior on the leaf's
    class probabilities, log p(y | T) = sum over leaves of lgamma(A) - sum_k lgamma(a_k)
    + sum_k lgamma(n_k + a_k) - lgamma(n + A), with A = sum_k a_k and n = sum_k n_k;
  - regression, CGM98's mean-shift model: y ~ N(mu_i, s^2) in leaf i, mu_i ~ N(mu_bar,
    s^2 / a), s^2 ~ InvGamma(nu / 2, nu lam / 2). With n_i, ybar_i the weight and mean of
    leaf i, n the total weight, q_i = sum_leaf (y - ybar_i)^2 + n_i a / (n_i + a)
    (ybar_i - mu_bar)^2 = sum_leaf (y - mu_bar)^2 - (sum_leaf (y - mu_bar))^2 / (n_i + a):
      log p(y | T) = -n/2 log(2 pi) + nu/2 log(nu lam / 2) - lgamma(nu / 2)
                     + sum_i [1/2 log a - 1/2 log(n_i + a)]
                     + lgamma((n + nu) / 2) - (n + nu) / 2 log((sum_i q_i + nu lam) / 2).
    Not a sum over leaves: each leaf caches its separable term and q_i, the chain the sum
    of the q_i, so a move still costs only the leaves it changes.
* Target pi(T) proportional to p(T) p(y | T)^power (power = 1 is the posterior; 0 the prior,
  which the tests use to check the sampler against the prior's exact size distribution).

Moves, chosen with fixed probabilities (CGM98: grow 0.25, prune 0.25, change 0.40, swap 0.10);
a move that is impossible in the current tree is a rejected proposal. The Hastings ratios are
derived and written next to each move; in each, n_rules is the number of rules of the
node's feature (a log, ``log_n_rules``: 2^(m-1) - 1 overflows for m > 64). A bin split sends
bins <= b left; the missing-value bin is the largest bin, so missing values always go right.

Every node owns a contiguous slice ``samples[start:end]`` of the sample permutation; a grow
partitions a leaf's slice, a prune merges two adjacent slices (no data pass), and change and
swap re-partition only the subtree below the changed node, in a scratch copy that is written
back on acceptance. Leaves cache their statistics, likelihood terms and prior factor,
internal nodes their prior factor, so every move costs the data of the nodes it touches.
Leaf statistics are the per-class weights (classification) or (sum w, sum w y', sum w y'^2)
of the centred labels y' = y - mu_bar (regression).

Randomness comes from one xorshift64* stream per chain (``_kernels.random``), seeded from the
chain's seed alone: a chain's result does not depend on threads or on the other chains.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .._dtypes import CLASSIFICATION, REGRESSION, TREE_LEAF as LEAF  # noqa: F401
from .decorators import internal_kernel
from .categorical import BITSET_WORDS, CATEGORICAL_SPLIT, has_category, partition_categorical
from .random import initial_state, next_below
from .splitting import partition

#: Move codes, in the order of the ``move_probabilities`` vector and the acceptance counts.
GROW = 0
PRUNE = 1
CHANGE = 2
SWAP = 3
N_MOVES = 4
MOVE_NAMES = ("grow", "prune", "change", "swap")
#: CGM98's move probabilities: grow, prune, change, swap.
DEFAULT_MOVE_PROBABILITIES = np.array([0.25, 0.25, 0.40, 0.10])

#: Rows of ``NodeSets.members``: the leaves, the prunable nodes (internal nodes whose two
#: children are leaves) and the internal nodes, each an index set with O(1) add/remove/draw.
LEAVES = 0
PRUNABLE = 1
INTERNAL = 2


class BinnedData(NamedTuple):
    """The training data as the sampler sees it."""

    X_binned: np.ndarray  # (n_samples, n_features) uint8/uint16, Fortran-ordered
    sample_idx: np.ndarray  # int64, rows with positive weight (the others are ignored)
    y_code: np.ndarray  # int64 class index per row (classification)
    y_value: np.ndarray  # float64 label minus mu_bar per row (regression)
    sample_weight: np.ndarray  # float64, frequency weight per row
    n_bins: int  # bins per feature, the missing-value bin (the largest) included
    missing_bin: int  # index of the missing-value bin
    is_categorical: np.ndarray  # bool (n_features,): split by sets of category codes


class TreePrior(NamedTuple):
    """Prior and likelihood settings (module docstring)."""

    sigma: float  # in (0, 1]
    phi: float  # >= 0
    model: int  # CLASSIFICATION or REGRESSION (treesmith._dtypes)
    leaf_parameters: np.ndarray  # float64: Dirichlet a_k per class; regression [a, nu, lam, n]
    max_depth: int  # -1: unlimited
    max_leaves: int  # >= 1
    likelihood_power: float  # 1: posterior, 0: prior only


class SamplerSettings(NamedTuple):
    """How long and how one chain runs."""

    n_iter: int  # >= 1
    burn_in: int  # iterations before the posterior sample is recorded
    move_probabilities: np.ndarray  # float64 (4,): grow, prune, change, swap; sums to 1
    start_from_prior: bool  # start from a draw of the prior instead of the root alone
    record_sample: bool  # keep the post-burn-in trees (for posterior averaging)
    #: nodes the recorded trees may hold (< 0: as many as n_iter - burn_in trees of
    #: 2 max_leaves - 1 nodes); a chain that would pass it stops recording and says so
    max_sample_nodes: int = -1


class Nodes(NamedTuple):
    """Node arrays of the current tree (ids reused through a free list)."""

    left: np.ndarray  # int64, LEAF for leaves
    right: np.ndarray  # int64
    parent: np.ndarray  # int64, -1 for the root
    feature: np.ndarray  # int64
    bin_threshold: np.ndarray  # int64, bins <= bin_threshold go left (CATEGORICAL_SPLIT: a set)
    next_bin: np.ndarray  # int64, smallest bin of the node's data above bin_threshold
    depth: np.ndarray  # int64
    start: np.ndarray  # int64, slice of ``samples`` the node owns
    end: np.ndarray  # int64
    n_usable: np.ndarray  # int64, internal: features with two distinct bins in the node
    log_n_rules: np.ndarray  # float64, internal: log of its feature's rules available there
    categories: np.ndarray  # uint64 (n_nodes, BITSET_WORDS), internal: the set sent left
    splittable: np.ndarray  # bool, leaf: has a usable feature
    log_prior: np.ndarray  # float64, the node's factor of log p(T)
    log_likelihood: np.ndarray  # float64, leaf: its separable log likelihood term
    residual: np.ndarray  # float64, leaf: q_i of the regression likelihood (0 otherwise)
    residual_total: np.ndarray  # float64 (1,): sum of the leaves' q_i
    stats: np.ndarray  # float64 (n_nodes, n_stats), leaf: its statistics
    samples: np.ndarray  # int64 permutation of the sample rows
    sets: np.ndarray  # int64 (3, n_nodes): LEAVES / PRUNABLE / INTERNAL members
    position: np.ndarray  # int64 (3, n_nodes): index of a node in each set, -1 if absent
    sizes: np.ndarray  # int64 (4,): sizes of the three sets, then of the free list
    free: np.ndarray  # int64 stack of unused node ids


class Scratch(NamedTuple):
    """Work arrays of one chain (proposals are evaluated here before they are accepted)."""

    samples: np.ndarray  # int64, re-partitioned copy of a subtree's slice
    buffer: np.ndarray  # int64, partition buffer
    usable: np.ndarray  # int64 (n_features,), usable features of a node
    present: np.ndarray  # bool (n_bins,), bins present in a node
    stack: np.ndarray  # int64
    visited: np.ndarray  # int64, nodes of the evaluated subtree
    start: np.ndarray  # int64 per node: proposed slices
    end: np.ndarray
    next_bin: np.ndarray
    n_usable: np.ndarray
    log_n_rules: np.ndarray
    splittable: np.ndarray
    log_prior: np.ndarray
    log_likelihood: np.ndarray
    residual: np.ndarray
    stats: np.ndarray  # (n_nodes, n_stats)
    left_stats: np.ndarray  # (n_stats,)
    right_stats: np.ndarray  # (n_stats,)
    rule_sets: np.ndarray  # uint64 (2, BITSET_WORDS): a drawn category set, a saved one


# -- random numbers ------------------------------------------------------------------------
@internal_kernel(reference_counted=False)
def uniform(state):
    """A float in [0, 1) with 53 random bits, from two draws of the chain's stream."""
    high = next_below(state, np.int64(1) << 26)
    low = next_below(state, np.int64(1) << 27)
    return (high * 134217728.0 + low) / 9007199254740992.0


# -- prior and likelihood terms ------------------------------------------------------------
@internal_kernel(reference_counted=False)
def split_probability(prior, depth):
    """p_split(d) = sigma (1 + d)^(-phi), 0 at or below ``max_depth``."""
    if prior.max_depth >= 0 and depth >= prior.max_depth:
        return 0.0
    return prior.sigma * (1.0 + depth) ** (-prior.phi)


@internal_kernel(reference_counted=False)
def leaf_log_prior(prior, depth, splittable):
    """log(1 - p_split(d)) for a leaf with a usable split, 0 for a leaf without one."""
    if not splittable:
        return 0.0
    p = split_probability(prior, depth)
    if p >= 1.0:
        return -np.inf
    return math.log1p(-p)


@internal_kernel(reference_counted=False)
def internal_log_prior(prior, depth, n_usable, log_n_rules):
    """log p_split(d) - log n_usable - log n_rules: split, then draw its feature and rule."""
    p = split_probability(prior, depth)
    if p <= 0.0:
        return -np.inf
    return math.log(p) - math.log(n_usable) - log_n_rules


@internal_kernel(reference_counted=False)
def log_n_partitions(n_distinct):
    """log(2^(m-1) - 1): the rules of a categorical feature with m distinct bins in a node,
    one per partition of them into two non-empty sets."""
    k = n_distinct - 1
    return k * math.log(2.0) + math.log1p(-(0.5 ** k))


@internal_kernel(reference_counted=False)
def n_stats(prior):
    """Width of a leaf's statistics: n_classes, or 3 for regression."""
    return prior.leaf_parameters.shape[0] if prior.model == CLASSIFICATION else 3


@internal_kernel(reference_counted=False)
def dirichlet_log_marginal(class_weight, dirichlet):
    """Dirichlet-multinomial log marginal likelihood of a leaf's class counts (module doc)."""
    total_a = 0.0
    total_n = 0.0
    value = 0.0
    for k in range(dirichlet.shape[0]):
        a = dirichlet[k]
        total_a += a
        total_n += class_weight[k]
        value += math.lgamma(class_weight[k] + a) - math.lgamma(a)
    return value + math.lgamma(total_a) - math.lgamma(total_n + total_a)


@internal_kernel(reference_counted=False)
def leaf_terms(stats, prior):
    """(separable log likelihood term, q_i) of a leaf with these statistics (module doc)."""
    if prior.model == CLASSIFICATION:
        return dirichlet_log_marginal(stats, prior.leaf_parameters), 0.0
    a = prior.leaf_parameters[0]
    weight, total, squares = stats[0], stats[1], stats[2]
    residual = max(squares - total * total / (weight + a), 0.0)
    return 0.5 * math.log(a) - 0.5 * math.log(weight + a), residual


@internal_kernel(reference_counted=False)
def shared_log_likelihood(prior, residual_total):
    """The part of the regression log likelihood shared by all leaves (0 for classification):
    -n/2 log(2 pi) + nu/2 log(nu lam / 2) - lgamma(nu / 2) + lgamma((n + nu) / 2)
    - (n + nu) / 2 log((sum_i q_i + nu lam) / 2)."""
    if prior.model == CLASSIFICATION:
        return 0.0
    nu, lam, n = prior.leaf_parameters[1], prior.leaf_parameters[2], prior.leaf_parameters[3]
    half = 0.5 * (n + nu)
    return (-0.5 * n * math.log(2.0 * math.pi) + 0.5 * nu * math.log(0.5 * nu * lam)
            - math.lgamma(0.5 * nu) + math.lgamma(half)
            - half * math.log(0.5 * (residual_total + nu * lam)))


@internal_kernel(reference_counted=False)
def likelihood_change(prior, nodes, d_separable, d_residual):
    """Change of log p(y | T) when the leaves' separable terms change by ``d_separable`` and
    their q_i sum by ``d_residual``."""
    if prior.model == CLASSIFICATION:
        return d_separable
    total = nodes.residual_total[0]
    return (d_separable + shared_log_likelihood(prior, total + d_residual)
            - shared_log_likelihood(prior, total))


# -- data of a node slice ------------------------------------------------------------------
@internal_kernel(reference_counted=False)
def feature_varies(X, samples, start, end, f):
    """Whether feature f takes two distinct bins in ``samples[start:end]`` (stops early)."""
    first = X[samples[start], f]
    for i in range(start + 1, end):
        if X[samples[i], f] != first:
            return True
    return False


@internal_kernel(reference_counted=False)
def has_usable_feature(X, samples, start, end):
    for f in range(X.shape[1]):
        if feature_varies(X, samples, start, end, f):
            return True
    return False


@internal_kernel(reference_counted=False)
def collect_usable_features(X, samples, start, end, usable):
    """Write the usable features of the slice into ``usable``; return how many there are."""
    n_usable = 0
    for f in range(X.shape[1]):
        if feature_varies(X, samples, start, end, f):
            usable[n_usable] = f
            n_usable += 1
    return n_usable


@internal_kernel(reference_counted=False)
def mark_present_bins(X, samples, start, end, f, present):
    """Set ``present[b]`` for every bin of feature f in the slice; return the number of distinct
    bins. ``present`` must be all False on entry (see ``clear_present_bins``)."""
    n_distinct = 0
    for i in range(start, end):
        b = X[samples[i], f]
        if not present[b]:
            present[b] = True
            n_distinct += 1
    return n_distinct


@internal_kernel(reference_counted=False)
def clear_present_bins(X, samples, start, end, f, present):
    for i in range(start, end):
        present[X[samples[i], f]] = False


@internal_kernel(reference_counted=False)
def present_bin_of_rank(present, rank):
    """The ``rank``-th (0-based) present bin in increasing order."""
    seen = -1
    for b in range(present.shape[0]):
        if present[b]:
            seen += 1
            if seen == rank:
                return np.int64(b)
    return np.int64(-1)


@internal_kernel(reference_counted=False)
def next_present_bin(present, b):
    """The smallest present bin above b (-1 if none)."""
    for c in range(b + 1, present.shape[0]):
        if present[c]:
            return np.int64(c)
    return np.int64(-1)


@internal_kernel(reference_counted=False)
def rule_values(X, samples, start, end, f, b, present):
    """For the rule ``x_f <= b`` on a slice: (n_values, next_bin), with n_values = distinct
    bins - 1, or n_values = 0 when the rule is not available (b is not a bin of the slice or
    is its largest, which would leave a child empty)."""
    n_distinct = mark_present_bins(X, samples, start, end, f, present)
    available = present[b]
    following = next_present_bin(present, b)
    clear_present_bins(X, samples, start, end, f, present)
    if not available or following < 0:
        return np.int64(0), np.int64(-1)
    return np.int64(n_distinct - 1), following


@internal_kernel(reference_counted=False)
def in_set(bits, b):
    """Whether bin ``b`` is in the category bitset ``bits`` (a bin >= 256, the missing bin
    of ``max_bins`` > 255, never is)."""
    return b < 64 * BITSET_WORDS and has_category(bits, b)


@internal_kernel(reference_counted=False)
def draw_category_set(present, largest, bits, state):
    """Write into ``bits`` a set drawn uniformly among the 2^(m-1) - 1 non-empty subsets of
    the present bins below ``largest`` (the largest present bin, which stays right): each bin
    in with probability 1/2, 31 bits per draw, an empty draw drawn again."""
    while True:
        for w in range(BITSET_WORDS):
            bits[w] = np.uint64(0)
        empty = True
        word = np.int64(0)
        n_left_in_word = 0
        for b in range(largest):
            if not present[b]:
                continue
            if n_left_in_word == 0:
                word = next_below(state, np.int64(1) << 31)
                n_left_in_word = 31
            if word & 1:
                bits[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
                empty = False
            word >>= 1
            n_left_in_word -= 1
        if not empty:
            return


@internal_kernel(reference_counted=False)
def category_rule_log_count(X, samples, start, end, f, bits, present):
    """For the rule ``x_f in bits`` on a slice: log of the number of rules of feature f there
    (``log_n_partitions``), or -inf when the rule is not available: a category of the set
    absent from the slice, or the slice's largest bin in the set (the rule is then not in
    its canonical form, which keeps the largest present bin right)."""
    n_distinct = mark_present_bins(X, samples, start, end, f, present)
    largest = present_bin_of_rank(present, n_distinct - 1)
    available = not in_set(bits, largest)
    for w in range(BITSET_WORDS):
        word = bits[w]
        b = np.int64(64 * w)
        while word != np.uint64(0) and available:
            if word & np.uint64(1):
                available = b < present.shape[0] and present[b]
            word >>= np.uint64(1)
            b += 1
    clear_present_bins(X, samples, start, end, f, present)
    if not available:
        return -np.inf
    return log_n_partitions(n_distinct)


@internal_kernel(reference_counted=False)
def slice_stats(data, prior, samples, start, end, out):
    """Leaf statistics of ``samples[start:end]``: weight per class, or (sum w, sum w y',
    sum w y'^2) for regression."""
    out[:] = 0.0
    if prior.model == CLASSIFICATION:
        for i in range(start, end):
            row = samples[i]
            out[data.y_code[row]] += data.sample_weight[row]
    else:
        for i in range(start, end):
            row = samples[i]
            w = data.sample_weight[row]
            y = data.y_value[row]
            out[0] += w
            out[1] += w * y
            out[2] += w * y * y


# -- index sets ----------------------------------------------------------------------------
@internal_kernel(reference_counted=False)
def set_add(nodes, which, node):
    if nodes.position[which, node] >= 0:
        return
    size = nodes.sizes[which]
    nodes.sets[which, size] = node
    nodes.position[which, node] = size
    nodes.sizes[which] = size + 1


@internal_kernel(reference_counted=False)
def set_remove(nodes, which, node):
    at = nodes.position[which, node]
    if at < 0:
        return
    last = nodes.sets[which, nodes.sizes[which] - 1]
    nodes.sets[which, at] = last
    nodes.position[which, last] = at
    nodes.position[which, node] = -1
    nodes.sizes[which] -= 1


@internal_kernel(reference_counted=False)
def is_prunable(nodes, node):
    return (node >= 0 and nodes.left[node] != LEAF and nodes.left[nodes.left[node]] == LEAF
            and nodes.left[nodes.right[node]] == LEAF)


# -- state ---------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def new_state(data, prior):
    """A tree that is the root alone, over every positive-weight sample."""
    n_nodes = 2 * prior.max_leaves - 1
    width = n_stats(prior)
    n_samples = data.sample_idx.shape[0]
    samples = data.sample_idx.copy()
    nodes = Nodes(
        np.full(n_nodes, LEAF, dtype=np.int64), np.full(n_nodes, LEAF, dtype=np.int64),
        np.full(n_nodes, -1, dtype=np.int64), np.full(n_nodes, -2, dtype=np.int64),
        np.full(n_nodes, -1, dtype=np.int64), np.full(n_nodes, -1, dtype=np.int64),
        np.zeros(n_nodes, dtype=np.int64), np.zeros(n_nodes, dtype=np.int64),
        np.zeros(n_nodes, dtype=np.int64), np.zeros(n_nodes, dtype=np.int64),
        np.zeros(n_nodes), np.zeros((n_nodes, BITSET_WORDS), dtype=np.uint64),
        np.zeros(n_nodes, dtype=np.bool_),
        np.zeros(n_nodes), np.zeros(n_nodes), np.zeros(n_nodes), np.zeros(1),
        np.zeros((n_nodes, width)), samples,
        np.zeros((3, n_nodes), dtype=np.int64), np.full((3, n_nodes), -1, dtype=np.int64),
        np.zeros(4, dtype=np.int64), np.zeros(n_nodes, dtype=np.int64))
    scratch = Scratch(
        np.empty(n_samples, dtype=np.int64), np.empty(n_samples, dtype=np.int64),
        np.empty(data.X_binned.shape[1], dtype=np.int64),
        np.zeros(data.n_bins, dtype=np.bool_), np.empty(n_nodes, dtype=np.int64),
        np.empty(n_nodes, dtype=np.int64), np.zeros(n_nodes, dtype=np.int64),
        np.zeros(n_nodes, dtype=np.int64), np.zeros(n_nodes, dtype=np.int64),
        np.zeros(n_nodes, dtype=np.int64), np.zeros(n_nodes),
        np.zeros(n_nodes, dtype=np.bool_), np.zeros(n_nodes), np.zeros(n_nodes),
        np.zeros(n_nodes), np.zeros((n_nodes, width)), np.zeros(width), np.zeros(width),
        np.zeros((2, BITSET_WORDS), dtype=np.uint64))
    # node ids 1.. are free, the smallest on top of the stack
    for i in range(n_nodes - 1):
        nodes.free[i] = n_nodes - 1 - i
    nodes.sizes[3] = n_nodes - 1
    root = 0
    nodes.start[root] = 0
    nodes.end[root] = n_samples
    slice_stats(data, prior, samples, 0, n_samples, nodes.stats[root])
    nodes.splittable[root] = has_usable_feature(data.X_binned, samples, 0, n_samples)
    nodes.log_prior[root] = leaf_log_prior(prior, 0, nodes.splittable[root])
    nodes.log_likelihood[root], nodes.residual[root] = leaf_terms(nodes.stats[root], prior)
    nodes.residual_total[0] = nodes.residual[root]
    set_add(nodes, LEAVES, root)
    return nodes, scratch


@internal_kernel(reference_counted=False)
def draw_rule(data, nodes, scratch, node, state):
    """Draw a rule uniformly as the prior does at ``node``: a usable feature, then for a
    numeric one a threshold among the node's distinct bins but the largest, for a categorical
    one a non-empty set of its distinct bins but the largest (written to
    ``scratch.rule_sets[0]``; bin ``CATEGORICAL_SPLIT``). Returns
    (feature, bin, next_bin, n_usable, log n_rules)."""
    X = data.X_binned
    start, end = nodes.start[node], nodes.end[node]
    n_usable = collect_usable_features(X, nodes.samples, start, end, scratch.usable)
    f = scratch.usable[next_below(state, n_usable)]
    present = scratch.present
    n_distinct = mark_present_bins(X, nodes.samples, start, end, f, present)
    if data.is_categorical[f]:
        largest = present_bin_of_rank(present, n_distinct - 1)
        draw_category_set(present, largest, scratch.rule_sets[0], state)
        b = CATEGORICAL_SPLIT
        following = np.int64(-1)
        log_n_rules = log_n_partitions(n_distinct)
    else:
        b = present_bin_of_rank(present, next_below(state, n_distinct - 1))
        following = next_present_bin(present, b)
        log_n_rules = math.log(n_distinct - 1)
    clear_present_bins(X, nodes.samples, start, end, f, present)
    return f, b, following, n_usable, log_n_rules


@internal_kernel(reference_counted=False)
def partition_slice(data, samples, start, end, f, b, bits, buffer):
    """Stable partition of ``samples[start:end]`` by a rule, left rows first: ``x_f <= b``, or
    ``x_f in bits`` for a categorical rule; the missing bin goes right (a canonical set never
    holds it). Returns the position of the first right row."""
    if b == CATEGORICAL_SPLIT:
        return partition_categorical(samples, start, end, data.X_binned[:, f], bits,
                                     data.missing_bin, False, buffer)
    return partition(samples, start, end, data.X_binned[:, f], b, data.missing_bin, False,
                     buffer)


@internal_kernel(reference_counted=False)
def split_leaf(data, prior, nodes, scratch, node, f, b):
    """Partition a leaf's slice by ``x_f <= b`` (or ``x_f in scratch.rule_sets[0]`` when b is
    ``CATEGORICAL_SPLIT``) and summarise the two children in scratch (``left_stats``,
    ``right_stats``). Returns (middle, left splittable, right splittable). Harmless if the
    split is then rejected: a leaf's slice order does not matter."""
    start, end = nodes.start[node], nodes.end[node]
    middle = partition_slice(data, nodes.samples, start, end, f, b, scratch.rule_sets[0],
                             scratch.buffer)
    slice_stats(data, prior, nodes.samples, start, middle, scratch.left_stats)
    slice_stats(data, prior, nodes.samples, middle, end, scratch.right_stats)
    left_splittable = has_usable_feature(data.X_binned, nodes.samples, start, middle)
    right_splittable = has_usable_feature(data.X_binned, nodes.samples, middle, end)
    return middle, left_splittable, right_splittable


@internal_kernel(reference_counted=False)
def commit_grow(prior, nodes, scratch, node, f, b, following, n_usable, log_n_rules, middle,
                left_splittable, right_splittable):
    """Make the leaf ``node`` internal with two new leaf children (after ``split_leaf``; a
    categorical rule's set is ``scratch.rule_sets[0]``)."""
    depth = nodes.depth[node] + 1
    left_child = right_child = np.int64(-1)
    for side in range(2):
        nodes.sizes[3] -= 1
        child = nodes.free[nodes.sizes[3]]
        if side == 0:
            left_child = child
        else:
            right_child = child
        nodes.parent[child] = node
        nodes.depth[child] = depth
        nodes.left[child] = LEAF
        nodes.right[child] = LEAF
        nodes.feature[child] = -2
        nodes.bin_threshold[child] = -1
        for w in range(BITSET_WORDS):
            nodes.categories[child, w] = np.uint64(0)
        splittable = left_splittable if side == 0 else right_splittable
        stats = scratch.left_stats if side == 0 else scratch.right_stats
        nodes.start[child] = nodes.start[node] if side == 0 else middle
        nodes.end[child] = middle if side == 0 else nodes.end[node]
        nodes.splittable[child] = splittable
        nodes.log_prior[child] = leaf_log_prior(prior, depth, splittable)
        for k in range(stats.shape[0]):
            nodes.stats[child, k] = stats[k]
        nodes.log_likelihood[child], nodes.residual[child] = leaf_terms(stats, prior)
        nodes.residual_total[0] += nodes.residual[child]
        set_add(nodes, LEAVES, child)
    nodes.left[node] = left_child
    nodes.right[node] = right_child
    nodes.feature[node] = f
    nodes.bin_threshold[node] = b
    nodes.next_bin[node] = following
    for w in range(BITSET_WORDS):
        nodes.categories[node, w] = (scratch.rule_sets[0, w] if b == CATEGORICAL_SPLIT
                                     else np.uint64(0))
    nodes.n_usable[node] = n_usable
    nodes.log_n_rules[node] = log_n_rules
    nodes.log_prior[node] = internal_log_prior(prior, nodes.depth[node], n_usable, log_n_rules)
    nodes.log_likelihood[node] = 0.0
    nodes.residual_total[0] -= nodes.residual[node]
    nodes.residual[node] = 0.0
    set_remove(nodes, LEAVES, node)
    set_add(nodes, INTERNAL, node)
    set_add(nodes, PRUNABLE, node)
    if nodes.parent[node] >= 0:
        set_remove(nodes, PRUNABLE, nodes.parent[node])


@internal_kernel(reference_counted=False)
def commit_prune(prior, nodes, node):
    """Make the prunable ``node`` a leaf again (its slice is its children's, merged)."""
    left, right = nodes.left[node], nodes.right[node]
    for k in range(nodes.stats.shape[1]):
        nodes.stats[node, k] = nodes.stats[left, k] + nodes.stats[right, k]
    nodes.log_likelihood[node], nodes.residual[node] = leaf_terms(nodes.stats[node], prior)
    nodes.residual_total[0] += (nodes.residual[node] - nodes.residual[left]
                                - nodes.residual[right])
    nodes.splittable[node] = True  # it was split
    nodes.log_prior[node] = leaf_log_prior(prior, nodes.depth[node], True)
    for child in (left, right):
        set_remove(nodes, LEAVES, child)
        nodes.free[nodes.sizes[3]] = child
        nodes.sizes[3] += 1
    nodes.left[node] = LEAF
    nodes.right[node] = LEAF
    nodes.feature[node] = -2
    nodes.bin_threshold[node] = -1
    for w in range(BITSET_WORDS):
        nodes.categories[node, w] = np.uint64(0)
    set_remove(nodes, PRUNABLE, node)
    set_remove(nodes, INTERNAL, node)
    set_add(nodes, LEAVES, node)
    parent = nodes.parent[node]
    if is_prunable(nodes, parent):
        set_add(nodes, PRUNABLE, parent)


# -- moves ---------------------------------------------------------------------------------
@internal_kernel(reference_counted=False)
def accept(log_ratio, state):
    """Metropolis–Hastings acceptance: u < exp(log_ratio), u uniform in (0, 1]."""
    if log_ratio >= 0.0:
        return True
    if not log_ratio > -np.inf:  # -inf or NaN (both trees impossible)
        return False
    return math.log(1.0 - uniform(state)) < log_ratio


@internal_kernel(reference_counted=False)
def grow_move(data, prior, settings, nodes, scratch, state):
    """GROW: pick a leaf uniformly among the L leaves, draw its rule from the prior's rule
    distribution, split it. Returns (log prior change, log likelihood change) if accepted,
    else (nan, nan).

    Forward proposal q(T -> T*) = p_grow / (L n_usable n_rules); the reverse move prunes the
    new parent, one of the N*_prunable prunable nodes of T*: q(T* -> T) = p_prune /
    N*_prunable. The prior ratio is

        p(T*) / p(T) = p_split(d) / (n_usable n_rules) * (1 - p_split'(d+1, left))
                       * (1 - p_split'(d+1, right)) / (1 - p_split(d)),

    (p_split' = 0 for a child without a usable split), so the rule-draw factors cancel and

        alpha = min(1, [p_split(d) (1 - p_split'(left)) (1 - p_split'(right))
                        / (1 - p_split(d))] * [p(y|T*) / p(y|T)]^power
                       * p_prune L / (p_grow N*_prunable)).

    A leaf with no usable split, at ``max_depth``, or a tree at ``max_leaves`` leaves has no
    grow proposal of non-zero target: the proposal is rejected.
    """
    n_leaves = nodes.sizes[LEAVES]
    node = nodes.sets[LEAVES, next_below(state, n_leaves)]
    depth = nodes.depth[node]
    if (n_leaves >= prior.max_leaves or not nodes.splittable[node]
            or split_probability(prior, depth) <= 0.0):
        return np.nan, np.nan
    f, b, following, n_usable, log_n_rules = draw_rule(data, nodes, scratch, node, state)
    middle, left_splittable, right_splittable = split_leaf(data, prior, nodes, scratch, node,
                                                           f, b)
    new_prior = (internal_log_prior(prior, depth, n_usable, log_n_rules)
                 + leaf_log_prior(prior, depth + 1, left_splittable)
                 + leaf_log_prior(prior, depth + 1, right_splittable))
    d_prior = new_prior - nodes.log_prior[node]
    separable_left, residual_left = leaf_terms(scratch.left_stats, prior)
    separable_right, residual_right = leaf_terms(scratch.right_stats, prior)
    d_likelihood = likelihood_change(
        prior, nodes, separable_left + separable_right - nodes.log_likelihood[node],
        residual_left + residual_right - nodes.residual[node])
    n_prunable_after = nodes.sizes[PRUNABLE] + 1
    if is_prunable(nodes, nodes.parent[node]):
        n_prunable_after -= 1
    p = settings.move_probabilities
    log_ratio = (d_prior + prior.likelihood_power * d_likelihood
                 + math.log(p[PRUNE]) - math.log(n_prunable_after)
                 - math.log(p[GROW]) + math.log(n_leaves) + math.log(n_usable)
                 + log_n_rules)
    if not accept(log_ratio, state):
        return np.nan, np.nan
    commit_grow(prior, nodes, scratch, node, f, b, following, n_usable, log_n_rules, middle,
                left_splittable, right_splittable)
    return d_prior, d_likelihood


@internal_kernel(reference_counted=False)
def prune_move(data, prior, settings, nodes, scratch, state):
    """PRUNE: pick a prunable node uniformly among the N_prunable ones, make it a leaf.

    The exact reverse of GROW: q(T -> T*) = p_prune / N_prunable, q(T* -> T) = p_grow /
    ((L - 1) n_usable n_rules) with the node's cached n_usable, n_rules (its data does not
    change), so

        alpha = min(1, [(1 - p_split(d)) / (p_split(d) (1 - p_split'(left))
                        (1 - p_split'(right)))] * [p(y|T*) / p(y|T)]^power
                       * p_grow N_prunable / (p_prune (L - 1))).
    """
    n_prunable = nodes.sizes[PRUNABLE]
    if n_prunable == 0:
        return np.nan, np.nan
    node = nodes.sets[PRUNABLE, next_below(state, n_prunable)]
    left, right = nodes.left[node], nodes.right[node]
    merged = scratch.left_stats
    for k in range(merged.shape[0]):
        merged[k] = nodes.stats[left, k] + nodes.stats[right, k]
    d_prior = (leaf_log_prior(prior, nodes.depth[node], True) - nodes.log_prior[node]
               - nodes.log_prior[left] - nodes.log_prior[right])
    separable, residual = leaf_terms(merged, prior)
    d_likelihood = likelihood_change(
        prior, nodes, separable - nodes.log_likelihood[left] - nodes.log_likelihood[right],
        residual - nodes.residual[left] - nodes.residual[right])
    p = settings.move_probabilities
    log_ratio = (d_prior + prior.likelihood_power * d_likelihood
                 + math.log(p[GROW]) - math.log(nodes.sizes[LEAVES] - 1)
                 - math.log(nodes.n_usable[node]) - nodes.log_n_rules[node]
                 - math.log(p[PRUNE]) + math.log(n_prunable))
    if not accept(log_ratio, state):
        return np.nan, np.nan
    commit_prune(prior, nodes, node)
    return d_prior, d_likelihood


@internal_kernel(reference_counted=False)
def evaluate_subtree(data, prior, nodes, scratch, root):
    """Re-partition the data of ``root``'s subtree under the rules now stored in ``nodes``
    (some just changed) into scratch, and recompute every node's prior factor and every leaf's
    statistics and likelihood terms there. Returns (valid, log prior change, log likelihood
    change, number of visited nodes); ``valid`` is False when some rule is no longer available
    in its node's new data (the tree then has prior probability 0)."""
    X = data.X_binned
    start, end = nodes.start[root], nodes.end[root]
    for i in range(start, end):
        scratch.samples[i] = nodes.samples[i]
    scratch.start[root] = start
    scratch.end[root] = end
    scratch.stack[0] = root
    top = 1
    n_visited = 0
    d_prior = 0.0
    d_separable = 0.0
    d_residual = 0.0
    while top > 0:
        top -= 1
        node = scratch.stack[top]
        scratch.visited[n_visited] = node
        n_visited += 1
        s, e = scratch.start[node], scratch.end[node]
        depth = nodes.depth[node]
        if nodes.left[node] == LEAF:
            slice_stats(data, prior, scratch.samples, s, e, scratch.stats[node])
            splittable = has_usable_feature(X, scratch.samples, s, e)
            scratch.splittable[node] = splittable
            scratch.log_prior[node] = leaf_log_prior(prior, depth, splittable)
            separable, residual = leaf_terms(scratch.stats[node], prior)
            scratch.log_likelihood[node] = separable
            scratch.residual[node] = residual
            d_separable += separable - nodes.log_likelihood[node]
            d_residual += residual - nodes.residual[node]
        else:
            f, b = nodes.feature[node], nodes.bin_threshold[node]
            bits = nodes.categories[node]
            if b == CATEGORICAL_SPLIT:
                log_n_rules = category_rule_log_count(X, scratch.samples, s, e, f, bits,
                                                      scratch.present)
                following = np.int64(-1)
                if log_n_rules == -np.inf:
                    return False, 0.0, 0.0, n_visited
            else:
                n_values, following = rule_values(X, scratch.samples, s, e, f, b,
                                                  scratch.present)
                if n_values == 0:
                    return False, 0.0, 0.0, n_visited
                log_n_rules = math.log(n_values)
            n_usable = 0
            for g in range(X.shape[1]):
                if feature_varies(X, scratch.samples, s, e, g):
                    n_usable += 1
            scratch.n_usable[node] = n_usable
            scratch.log_n_rules[node] = log_n_rules
            scratch.next_bin[node] = following
            scratch.log_prior[node] = internal_log_prior(prior, depth, n_usable, log_n_rules)
            middle = partition_slice(data, scratch.samples, s, e, f, b, bits, scratch.buffer)
            left, right = nodes.left[node], nodes.right[node]
            scratch.start[left] = s
            scratch.end[left] = middle
            scratch.start[right] = middle
            scratch.end[right] = e
            scratch.stack[top] = right
            scratch.stack[top + 1] = left
            top += 2
        d_prior += scratch.log_prior[node] - nodes.log_prior[node]
    return True, d_prior, likelihood_change(prior, nodes, d_separable, d_residual), n_visited


@internal_kernel(reference_counted=False)
def commit_subtree(nodes, scratch, root, n_visited):
    """Write an accepted ``evaluate_subtree`` result into the tree."""
    for i in range(nodes.start[root], nodes.end[root]):
        nodes.samples[i] = scratch.samples[i]
    for v in range(n_visited):
        node = scratch.visited[v]
        nodes.start[node] = scratch.start[node]
        nodes.end[node] = scratch.end[node]
        nodes.log_prior[node] = scratch.log_prior[node]
        if nodes.left[node] == LEAF:
            nodes.splittable[node] = scratch.splittable[node]
            nodes.log_likelihood[node] = scratch.log_likelihood[node]
            nodes.residual_total[0] += scratch.residual[node] - nodes.residual[node]
            nodes.residual[node] = scratch.residual[node]
            for k in range(nodes.stats.shape[1]):
                nodes.stats[node, k] = scratch.stats[node, k]
        else:
            nodes.n_usable[node] = scratch.n_usable[node]
            nodes.log_n_rules[node] = scratch.log_n_rules[node]
            nodes.next_bin[node] = scratch.next_bin[node]


@internal_kernel(reference_counted=False)
def set_rule(nodes, node, f, b, bits):
    """Give ``node`` the rule (feature f, bin b, and for ``CATEGORICAL_SPLIT`` the set
    ``bits``; a numeric rule's set is empty)."""
    nodes.feature[node] = f
    nodes.bin_threshold[node] = b
    for w in range(BITSET_WORDS):
        nodes.categories[node, w] = bits[w] if b == CATEGORICAL_SPLIT else np.uint64(0)


@internal_kernel(reference_counted=False)
def same_rule(nodes, a, b):
    if nodes.feature[a] != nodes.feature[b] or nodes.bin_threshold[a] != nodes.bin_threshold[b]:
        return False
    for w in range(BITSET_WORDS):
        if nodes.categories[a, w] != nodes.categories[b, w]:
            return False
    return True


@internal_kernel(reference_counted=False)
def exchange_rules(nodes, a, b):
    """Swap the rules of nodes a and b."""
    f, t = nodes.feature[a], nodes.bin_threshold[a]
    nodes.feature[a] = nodes.feature[b]
    nodes.bin_threshold[a] = nodes.bin_threshold[b]
    nodes.feature[b] = f
    nodes.bin_threshold[b] = t
    for w in range(BITSET_WORDS):
        word = nodes.categories[a, w]
        nodes.categories[a, w] = nodes.categories[b, w]
        nodes.categories[b, w] = word


@internal_kernel(reference_counted=False)
def change_move(data, prior, settings, nodes, scratch, state):
    """CHANGE: pick an internal node uniformly among the N_internal ones and redraw its rule
    from the prior's rule distribution at that node.

    The node's data is unchanged, so n_usable is the same both ways:
    q(T -> T*) = p_change / (N_internal n_usable n*_rules), q(T* -> T) = p_change /
    (N_internal n_usable n_rules), with n_rules, n*_rules the rule counts of the old and the
    new feature at the node (distinct bins - 1 for a numeric one, 2^(m-1) - 1 for a
    categorical one with m distinct bins). The node's prior factor holds 1 / n_rules, so the
    proposal ratio cancels it and

        alpha = min(1, [p(T*) / p(T)]_below * [p(y|T*) / p(y|T)]^power),

    where the prior ratio is over the nodes below (their data moved: their n_usable, n_rules
    and whether leaves are splittable change), and is 0 when a rule below is no longer
    available. Returns (log prior change, log likelihood change, changed) or nan's.
    """
    n_internal = nodes.sizes[INTERNAL]
    if n_internal == 0:
        return np.nan, np.nan, False
    node = nodes.sets[INTERNAL, next_below(state, n_internal)]
    f, b, following, n_usable, log_n_rules = draw_rule(data, nodes, scratch, node, state)
    drawn, saved = scratch.rule_sets[0], scratch.rule_sets[1]
    old_f, old_b = nodes.feature[node], nodes.bin_threshold[node]
    same = f == old_f and b == old_b
    for w in range(BITSET_WORDS):
        saved[w] = nodes.categories[node, w]
        if b == CATEGORICAL_SPLIT and drawn[w] != saved[w]:
            same = False
    if same:
        return 0.0, 0.0, False  # T* = T: accepted, nothing changes
    old_log_n_rules = nodes.log_n_rules[node]
    set_rule(nodes, node, f, b, drawn)
    valid, d_prior, d_likelihood, n_visited = evaluate_subtree(data, prior, nodes, scratch,
                                                               node)
    if valid:
        log_ratio = (d_prior + prior.likelihood_power * d_likelihood
                     + log_n_rules - old_log_n_rules)
        if accept(log_ratio, state):
            commit_subtree(nodes, scratch, node, n_visited)
            return d_prior, d_likelihood, True
    set_rule(nodes, node, old_f, old_b, saved)
    return np.nan, np.nan, False


@internal_kernel(reference_counted=False)
def swap_move(data, prior, settings, nodes, scratch, state):
    """SWAP: pick uniformly one of the N_internal - 1 (parent, child) pairs of internal nodes
    (every internal node but the root has one internal parent) and exchange their rules; when
    the other child is internal with the same rule as the picked one, the parent's rule goes
    to both children (CGM98).

    The tree's shape is unchanged, so the reverse swap is proposed with the same probability
    (1 / (N_internal - 1), or 2 / (N_internal - 1) for the both-children case, from either
    child), and alpha = min(1, p(T*) / p(T) * [p(y|T*) / p(y|T)]^power), the prior ratio
    recomputed over the parent's subtree (0 if a rule is no longer available).
    """
    n_internal = nodes.sizes[INTERNAL]
    if n_internal < 2:
        return np.nan, np.nan
    root_at = nodes.position[INTERNAL, 0]  # the root is internal when any node is
    at = next_below(state, n_internal - 1)
    if at >= root_at:
        at += 1
    child = nodes.sets[INTERNAL, at]
    parent = nodes.parent[child]
    sibling = nodes.right[parent] if nodes.left[parent] == child else nodes.left[parent]
    both = nodes.left[sibling] != LEAF and same_rule(nodes, sibling, child)
    exchange_rules(nodes, parent, child)
    if both:  # the child now holds the parent's rule
        set_rule(nodes, sibling, nodes.feature[child], nodes.bin_threshold[child],
                 nodes.categories[child])
    valid, d_prior, d_likelihood, n_visited = evaluate_subtree(data, prior, nodes, scratch,
                                                               parent)
    if valid and accept(d_prior + prior.likelihood_power * d_likelihood, state):
        commit_subtree(nodes, scratch, parent, n_visited)
        return d_prior, d_likelihood
    exchange_rules(nodes, parent, child)
    if both:
        set_rule(nodes, sibling, nodes.feature[child], nodes.bin_threshold[child],
                 nodes.categories[child])
    return np.nan, np.nan


@internal_kernel(reference_counted=False)
def grow_from_prior(data, prior, nodes, scratch, state):
    """Replace the root-only tree by a draw of the prior's generating process (breadth
    first; a split that would pass ``max_leaves`` leaves is not made)."""
    queue = scratch.stack
    queue[0] = 0
    head = 0
    tail = 1
    while head < tail:
        node = queue[head]
        head += 1
        depth = nodes.depth[node]
        if not nodes.splittable[node] or nodes.sizes[LEAVES] >= prior.max_leaves:
            continue
        if uniform(state) >= split_probability(prior, depth):
            continue
        f, b, following, n_usable, log_n_rules = draw_rule(data, nodes, scratch, node, state)
        middle, left_splittable, right_splittable = split_leaf(data, prior, nodes, scratch,
                                                               node, f, b)
        commit_grow(prior, nodes, scratch, node, f, b, following, n_usable, log_n_rules,
                    middle, left_splittable, right_splittable)
        queue[tail] = nodes.left[node]
        queue[tail + 1] = nodes.right[node]
        tail += 2


# -- recording -----------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def grow_buffer_1d(array, size, limit):
    """``array`` with room for ``size`` rows: doubled, but not past ``limit`` rows."""
    if size <= array.shape[0]:
        return array
    out = np.empty(max(size, min(2 * array.shape[0], limit)), dtype=array.dtype)
    for i in range(array.shape[0]):
        out[i] = array[i]
    return out


@njit(cache=True, nogil=True)
def grow_buffer_2d(array, size, limit):
    """``grow_buffer_1d`` for a 2-D array (rows)."""
    if size <= array.shape[0]:
        return array
    out = np.empty((max(size, min(2 * array.shape[0], limit)), array.shape[1]),
                   dtype=array.dtype)
    for i in range(array.shape[0]):
        for k in range(array.shape[1]):
            out[i, k] = array[i, k]
    return out


@internal_kernel(reference_counted=False)
def write_compact(nodes, scratch, offset, feature, bin_threshold, next_bin, left, right,
                  stats, categories):
    """Write the tree from ``offset`` in preorder (parents before children, node 0 the root),
    children as indices relative to ``offset``; the arrays must have room. Returns the number
    of nodes written."""
    n_written = 0
    stack = scratch.stack
    stack[0] = 0
    top = 1
    new_id = scratch.visited  # node -> compact index
    while top > 0:
        top -= 1
        node = stack[top]
        new_id[node] = n_written
        at = offset + n_written
        n_written += 1
        parent = nodes.parent[node]
        if node != 0:
            if nodes.left[parent] == node:
                left[offset + new_id[parent]] = at - offset
            else:
                right[offset + new_id[parent]] = at - offset
        feature[at] = nodes.feature[node]
        bin_threshold[at] = nodes.bin_threshold[node]
        for w in range(BITSET_WORDS):
            categories[at, w] = nodes.categories[node, w]
        left[at] = LEAF
        right[at] = LEAF
        if nodes.left[node] == LEAF:
            next_bin[at] = -1
            for k in range(stats.shape[1]):
                stats[at, k] = nodes.stats[node, k]
        else:
            next_bin[at] = nodes.next_bin[node]
            for k in range(stats.shape[1]):
                stats[at, k] = 0.0
            stack[top] = nodes.right[node]
            stack[top + 1] = nodes.left[node]
            top += 2
    return n_written


@internal_kernel(reference_counted=False)
def total_log_prior(nodes):
    """log p(T) from the nodes' factors (unnormalised by the max_leaves conditioning)."""
    total = 0.0
    for which in (LEAVES, INTERNAL):
        for v in range(nodes.sizes[which]):
            total += nodes.log_prior[nodes.sets[which, v]]
    return total


@njit(cache=True, nogil=True)
def run_chain(data, prior, settings, seed):
    """Run one chain of ``settings.n_iter`` Metropolis–Hastings steps.

    Returns, as a tuple (see ``treesmith.bayes.ChainResult``): the log posterior (log prior +
    power * log likelihood), log likelihood and leaf count after every iteration; proposals
    and acceptances per move; the highest-target tree visited (compact preorder arrays) with
    its log prior and log likelihood; and, when ``record_sample``, the post-burn-in trees
    run-length encoded (a tree enters when the chain moves to it, its weight is the number of
    iterations it was the state); last, the category sets of the best tree's and of the
    recorded trees' nodes (uint64 (n_nodes, BITSET_WORDS), zero but for categorical rules),
    and whether the recording stopped at ``settings.max_sample_nodes``: the chain then stops
    too (its traces end at that iteration) and the sample is incomplete: the caller must not
    use it. The recording buffers double as they fill, up to that limit, so they hold at
    most twice the recorded nodes, and the limit's worth at most.
    """
    nodes, scratch = new_state(data, prior)
    width = n_stats(prior)
    state = np.empty(1, dtype=np.uint64)
    state[0] = initial_state(seed)
    if settings.start_from_prior:
        grow_from_prior(data, prior, nodes, scratch, state)
    log_prior = total_log_prior(nodes)
    log_likelihood = shared_log_likelihood(prior, nodes.residual_total[0])
    for v in range(nodes.sizes[LEAVES]):
        log_likelihood += nodes.log_likelihood[nodes.sets[LEAVES, v]]
    n_iter = settings.n_iter
    trace_log_posterior = np.empty(n_iter)
    trace_log_likelihood = np.empty(n_iter)
    trace_n_leaves = np.empty(n_iter, dtype=np.int64)
    n_proposed = np.zeros(N_MOVES, dtype=np.int64)
    n_accepted = np.zeros(N_MOVES, dtype=np.int64)
    capacity = 2 * prior.max_leaves - 1
    best_feature = np.empty(capacity, dtype=np.int64)
    best_bin = np.empty(capacity, dtype=np.int64)
    best_next_bin = np.empty(capacity, dtype=np.int64)
    best_left = np.empty(capacity, dtype=np.int64)
    best_right = np.empty(capacity, dtype=np.int64)
    best_stats = np.empty((capacity, width))
    best_categories = np.empty((capacity, BITSET_WORDS), dtype=np.uint64)
    best_n_nodes = write_compact(nodes, scratch, 0, best_feature, best_bin, best_next_bin,
                                 best_left, best_right, best_stats, best_categories)
    best_log_prior = log_prior
    best_log_likelihood = log_likelihood
    power = prior.likelihood_power
    best_target = log_prior + power * log_likelihood
    # post-burn-in sample, run-length encoded
    sample_offsets = np.zeros(1, dtype=np.int64)
    sample_weights = np.zeros(0, dtype=np.int64)
    sample_feature = np.empty(0, dtype=np.int64)
    sample_bin = np.empty(0, dtype=np.int64)
    sample_next_bin = np.empty(0, dtype=np.int64)
    sample_left = np.empty(0, dtype=np.int64)
    sample_right = np.empty(0, dtype=np.int64)
    sample_stats = np.empty((0, width))
    sample_categories = np.empty((0, BITSET_WORDS), dtype=np.uint64)
    n_states = 0
    n_sample_nodes = 0
    changed_since_recorded = True
    n_recorded = max(n_iter - settings.burn_in, 0)  # iterations, so trees at most
    node_limit = settings.max_sample_nodes
    if node_limit < 0:
        node_limit = n_recorded * capacity if n_recorded < (1 << 62) // capacity else 1 << 62
    sample_truncated = False
    n_run = n_iter  # iterations run: fewer when the recording stops at node_limit
    p = settings.move_probabilities
    for iteration in range(n_iter):
        u = uniform(state)
        changed = False
        if u < p[GROW]:
            move = GROW
            d_prior, d_likelihood = grow_move(data, prior, settings, nodes, scratch, state)
            changed = d_prior == d_prior
        elif u < p[GROW] + p[PRUNE]:
            move = PRUNE
            d_prior, d_likelihood = prune_move(data, prior, settings, nodes, scratch, state)
            changed = d_prior == d_prior
        elif u < p[GROW] + p[PRUNE] + p[CHANGE]:
            move = CHANGE
            d_prior, d_likelihood, changed = change_move(data, prior, settings, nodes,
                                                         scratch, state)
        else:
            move = SWAP
            d_prior, d_likelihood = swap_move(data, prior, settings, nodes, scratch, state)
            changed = d_prior == d_prior
        n_proposed[move] += 1
        if d_prior == d_prior:  # not NaN: accepted
            n_accepted[move] += 1
        if changed:
            log_prior += d_prior
            log_likelihood += d_likelihood
            if not (-np.inf < log_prior < np.inf):  # left a tree of prior 0 (sigma = 1)
                log_prior = total_log_prior(nodes)
            changed_since_recorded = True
        target = log_prior + power * log_likelihood
        trace_log_posterior[iteration] = target
        trace_log_likelihood[iteration] = log_likelihood
        trace_n_leaves[iteration] = nodes.sizes[LEAVES]
        if target > best_target:
            best_target = target
            best_log_prior = log_prior
            best_log_likelihood = log_likelihood
            best_n_nodes = write_compact(nodes, scratch, 0, best_feature, best_bin,
                                         best_next_bin, best_left, best_right, best_stats,
                                         best_categories)
        if settings.record_sample and iteration >= settings.burn_in:
            if changed_since_recorded:
                n_tree = nodes.sizes[INTERNAL] + nodes.sizes[LEAVES]
                needed = n_sample_nodes + n_tree
                if needed > node_limit:
                    # the caller refuses an incomplete sample: the chain's remaining
                    # iterations would be wasted
                    sample_truncated = True
                    n_run = iteration + 1
                    break
                sample_feature = grow_buffer_1d(sample_feature, needed, node_limit)
                sample_bin = grow_buffer_1d(sample_bin, needed, node_limit)
                sample_next_bin = grow_buffer_1d(sample_next_bin, needed, node_limit)
                sample_left = grow_buffer_1d(sample_left, needed, node_limit)
                sample_right = grow_buffer_1d(sample_right, needed, node_limit)
                sample_stats = grow_buffer_2d(sample_stats, needed, node_limit)
                sample_categories = grow_buffer_2d(sample_categories, needed, node_limit)
                n_sample_nodes += write_compact(nodes, scratch, n_sample_nodes, sample_feature,
                                                sample_bin, sample_next_bin, sample_left,
                                                sample_right, sample_stats, sample_categories)
                sample_offsets = grow_buffer_1d(sample_offsets, n_states + 2, n_recorded + 1)
                sample_weights = grow_buffer_1d(sample_weights, n_states + 1, n_recorded)
                sample_weights[n_states] = 1
                n_states += 1
                sample_offsets[n_states] = n_sample_nodes
                changed_since_recorded = False
            else:
                sample_weights[n_states - 1] += 1
    return (trace_log_posterior[:n_run], trace_log_likelihood[:n_run],
            trace_n_leaves[:n_run], n_proposed, n_accepted,
            best_feature[:best_n_nodes].copy(), best_bin[:best_n_nodes].copy(),
            best_next_bin[:best_n_nodes].copy(), best_left[:best_n_nodes].copy(),
            best_right[:best_n_nodes].copy(), best_stats[:best_n_nodes].copy(),
            best_log_prior, best_log_likelihood,
            sample_offsets[:n_states + 1].copy(), sample_weights[:n_states].copy(),
            sample_feature[:n_sample_nodes].copy(), sample_bin[:n_sample_nodes].copy(),
            sample_next_bin[:n_sample_nodes].copy(), sample_left[:n_sample_nodes].copy(),
            sample_right[:n_sample_nodes].copy(),
            sample_stats[:n_sample_nodes].copy(),
            best_categories[:best_n_nodes].copy(), sample_categories[:n_sample_nodes].copy(),
            sample_truncated)


@internal_kernel(reference_counted=False)
def predict_sample(X, offsets, weights, feature, bin_threshold, threshold, categories, left,
                   right, leaf_prediction, out):
    """Posterior-averaged predictions: out[i] = sum_t w_t p_t(x_i) / sum_t w_t over the
    recorded trees t, p_t the reached leaf's row of ``leaf_prediction`` (``offsets`` delimit
    them; children are relative to a tree's offset). A row goes left when ``x <= threshold``,
    or for a categorical rule (``bin_threshold`` CATEGORICAL_SPLIT) when its category code is
    in the node's set; NaN (missing or unseen) goes right."""
    out[:, :] = 0.0
    total = 0.0
    for t in range(weights.shape[0]):
        total += weights[t]
    for t in range(weights.shape[0]):
        base = offsets[t]
        w = weights[t] / total
        for i in range(X.shape[0]):
            node = 0
            while left[base + node] != LEAF:
                at = base + node
                value = X[i, feature[at]]
                if bin_threshold[at] == CATEGORICAL_SPLIT:
                    go_left = (value >= 0.0 and value < 64.0 * BITSET_WORDS
                               and in_set(categories[at], np.int64(value)))
                else:
                    go_left = value <= threshold[at]
                node = left[at] if go_left else right[at]
            for k in range(out.shape[1]):
                out[i, k] += w * leaf_prediction[base + node, k]
    return out


@internal_kernel(reference_counted=False)
def node_statistics(data, prior, feature, bin_threshold, categories, left, right, out):
    """Statistics of the training samples reaching every node of a compact tree (rows go
    left when ``bin <= bin_threshold`` or, for a categorical rule, when the bin is in the
    node's set of ``categories``): per-class weights then per-class counts
    (classification, 2 n_classes columns), or (count, sum w, sum w y', sum w y'^2)."""
    out[:, :] = 0.0
    n_classes = prior.leaf_parameters.shape[0]
    for i in range(data.sample_idx.shape[0]):
        row = data.sample_idx[i]
        w = data.sample_weight[row]
        node = 0
        while True:
            if prior.model == CLASSIFICATION:
                k = data.y_code[row]
                out[node, k] += w
                out[node, n_classes + k] += 1.0
            else:
                y = data.y_value[row]
                out[node, 0] += 1.0
                out[node, 1] += w
                out[node, 2] += w * y
                out[node, 3] += w * y * y
            if left[node] == LEAF:
                break
            b = np.int64(data.X_binned[row, feature[node]])
            if bin_threshold[node] == CATEGORICAL_SPLIT:
                go_left = in_set(categories[node], b)
            else:
                go_left = b <= bin_threshold[node]
            if go_left:
                node = left[node]
            else:
                node = right[node]
