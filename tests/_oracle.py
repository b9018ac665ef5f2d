"""Brute-force references for the engine tests: every candidate split of a node, scored naively.

Gain of a test d at node S (docs/methods.md §2, §4, rule "gain"):

    gain(d) = p(S) h(S) - p(L) h(L) - p(R) h(R),     p(.) = weight / total training weight,

where h is evaluated on the class-proportion vector (classification) or is the weighted
variance of the labels (regression, "squared_error"). Candidates are every midpoint between
adjacent distinct non-missing values of every feature, each with missing values (NaN) sent
left and right, plus the test that separates the missing values from all the others.

Nothing here calls the engine's split code; only criteria other than the three classic ones
are evaluated through the criterion object's own ``h`` (the oracle checks the search, not h).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

MISSING_ALONE = np.inf  # threshold recorded for "all non-missing left, missing right"


# -- impurities, written independently of treesmith ---------------------------------------
def gini_rows(proportions: np.ndarray) -> np.ndarray:
    """1 - sum_k pi_k^2, row-wise."""
    return 1.0 - np.sum(proportions * proportions, axis=1)


def entropy_rows(proportions: np.ndarray) -> np.ndarray:
    """-sum_k pi_k log2 pi_k (bits, 0 log 0 = 0), row-wise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(proportions > 0, proportions * np.log2(proportions), 0.0)
    return -np.sum(terms, axis=1)


def misclassification_rows(proportions: np.ndarray) -> np.ndarray:
    """1 - max_k pi_k, row-wise."""
    return 1.0 - np.max(proportions, axis=1)


CLASSIC_IMPURITIES = {
    "gini": gini_rows,
    "entropy": entropy_rows,
    "log_loss": entropy_rows,
    "misclassification": misclassification_rows,
}


def impurity_rows_for(criterion) -> callable:
    """Row-wise h for a criterion name or object: our own formula when classic, else its ``h``."""
    name = criterion if isinstance(criterion, str) else getattr(criterion, "name", None)
    if name in CLASSIC_IMPURITIES:
        return CLASSIC_IMPURITIES[name]

    h, params = criterion.impurity_function(), criterion.parameters()

    def rows(proportions):
        return np.array([h(np.ascontiguousarray(p), params) for p in proportions])

    return rows


def weighted_impurity_terms(class_weights: np.ndarray, impurity_rows) -> np.ndarray:
    """W * h(W / sum W) per row of per-class weights; 0 for rows of zero weight."""
    class_weights = np.atleast_2d(np.asarray(class_weights, dtype=np.float64))
    totals = class_weights.sum(axis=1)
    out = np.zeros(class_weights.shape[0])
    positive = totals > 0
    if np.any(positive):
        proportions = class_weights[positive] / totals[positive, None]
        out[positive] = totals[positive] * impurity_rows(proportions)
    return out


def variance_terms(sums: np.ndarray) -> np.ndarray:
    """W * Var from rows [W, sum w y, sum w y^2] (labels already centred by the caller)."""
    sums = np.atleast_2d(sums)
    weight, sum_y, sum_yy = sums[:, 0], sums[:, 1], sums[:, 2]
    out = np.zeros(sums.shape[0])
    positive = weight > 0
    out[positive] = sum_yy[positive] - sum_y[positive] ** 2 / weight[positive]
    return np.maximum(out, 0.0)


# -- candidate enumeration ---------------------------------------------------------------
class Candidate:
    """One binary test of a node and its gain (see the module docstring).

    ``left`` (bool mask over the node's samples) is built on first use: a node of a few hundred
    samples has thousands of candidates and most are never looked at.
    """

    __slots__ = ("_column", "_cut", "_left", "feature", "gain", "missing_left", "threshold")

    def __init__(self, feature, threshold, missing_left, gain, left=None, column=None, cut=None):
        self.feature = int(feature)
        self.threshold = float(threshold)  # midpoint; MISSING_ALONE for missing-vs-rest
        self.missing_left = missing_left  # None when the node has no missing value here
        self.gain = float(gain)
        self._left, self._column, self._cut = left, column, cut

    @property
    def left(self) -> np.ndarray:
        if self._left is None:
            present = self._column <= self._cut  # False for NaN
            missing = np.isnan(self._column)
            self._left = present | (missing & bool(self.missing_left))
        return self._left

    @property
    def partition_key(self) -> bytes:
        """Identifies the unordered partition (so that L/R swaps and copies compare equal)."""
        mask = self.left if self.left[0] else ~self.left
        return np.packbits(mask).tobytes()

    def __repr__(self):
        return (f"Candidate(feature={self.feature}, threshold={self.threshold!r}, "
                f"missing_left={self.missing_left}, gain={self.gain!r})")


def midpoint(low, high):
    """Midpoint computed without overflow for values near +-1.8e308 (vectorised)."""
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    middle = low / 2.0 + high / 2.0
    return np.where((low <= middle) & (middle < high), middle, low)[()]


def _node_statistics(y, w, n_classes, regression):
    """Per-sample additive statistics: class-weight one-hot rows, or [w, w y, w y^2]."""
    if regression:
        centred = y - (np.sum(w * y) / np.sum(w) if np.sum(w) > 0 else 0.0)
        return np.column_stack([w, w * centred, w * centred * centred])
    stats = np.zeros((y.shape[0], n_classes))
    stats[np.arange(y.shape[0]), y] = w
    return stats


def enumerate_splits(
    X,
    y,
    sample_weight=None,
    *,
    criterion="gini",
    n_classes=None,
    total_weight=None,
    min_samples_leaf=1,
    min_weight_leaf=0.0,
    features=None,
):
    """Every valid binary test of the node made of the rows of ``X`` (float64, NaN = missing).

    ``y`` holds class indices 0..n_classes-1, or real labels when ``criterion="squared_error"``.
    ``total_weight`` is the training set's weight (p(S) = node weight / total_weight); it
    defaults to this node's weight. A test is valid when both children hold at least
    ``min_samples_leaf`` samples and ``min_weight_leaf`` weight.
    Returns a list of :class:`Candidate`.
    """
    X = np.asarray(X, dtype=np.float64)
    n_samples, n_features = X.shape
    w = np.ones(n_samples) if sample_weight is None else np.asarray(sample_weight, np.float64)
    regression = criterion in ("squared_error", "mse")
    if regression:
        y = np.asarray(y, dtype=np.float64)
        terms = variance_terms
    else:
        y = np.asarray(y, dtype=np.int64)
        n_classes = int(y.max()) + 1 if n_classes is None else n_classes
        impurity_rows = impurity_rows_for(criterion)

        def terms(stats):
            return weighted_impurity_terms(stats, impurity_rows)

    stats = _node_statistics(y, w, n_classes, regression)
    node_total = stats.sum(axis=0)
    node_weight = float(np.sum(w))
    total_weight = node_weight if total_weight is None else float(total_weight)
    parent_term = terms(node_total)[0]
    features = range(n_features) if features is None else features

    candidates = []
    for feature in features:
        column = X[:, feature]
        missing = np.isnan(column)
        present = ~missing
        values = np.unique(column[present])
        if values.size == 0:
            continue
        position = np.searchsorted(values, column[present])
        per_value = np.zeros((values.size, stats.shape[1]))
        np.add.at(per_value, position, stats[present])
        # children are summed directly (prefix and suffix sums), never as parent - sibling,
        # so that a class absent from a child has exactly zero weight there
        cum_stats = np.cumsum(per_value, axis=0)
        suffix_stats = np.cumsum(per_value[::-1], axis=0)[::-1]
        cum_count = np.cumsum(np.bincount(position, minlength=values.size))
        cum_weight = np.cumsum(np.bincount(position, weights=w[present], minlength=values.size))
        n_missing = int(missing.sum())
        miss_stats = stats[missing].sum(axis=0)
        w_missing = float(w[missing].sum())

        cuts = values[:-1]
        thresholds = np.atleast_1d(midpoint(values[:-1], values[1:]))
        left_present, right_present = cum_stats[:-1], suffix_stats[1:]
        # (left stats, right stats, left count, left weight, thresholds, cut values, missing_left)
        blocks = []
        if n_missing == 0:
            blocks.append((left_present, right_present, cum_count[:-1], cum_weight[:-1],
                           thresholds, cuts, None))
        else:
            blocks.append((left_present, right_present + miss_stats, cum_count[:-1],
                           cum_weight[:-1], thresholds, cuts, False))
            blocks.append((left_present + miss_stats, right_present, cum_count[:-1] + n_missing,
                           cum_weight[:-1] + w_missing, thresholds, cuts, True))
            blocks.append((cum_stats[-1:], miss_stats[None, :], cum_count[-1:], cum_weight[-1:],
                           np.array([MISSING_ALONE]), np.array([np.inf]), False))
        for left_stats, right_stats, n_left, w_left, block_thresholds, cut_values, missing_left \
                in blocks:
            if left_stats.shape[0] == 0:
                continue
            n_right = n_samples - n_left
            w_right = node_weight - w_left
            valid = (np.minimum(n_left, n_right) >= min_samples_leaf) & (
                np.minimum(w_left, w_right) >= min_weight_leaf)
            if not np.any(valid):
                continue
            gains = (parent_term - terms(left_stats[valid]) - terms(right_stats[valid])) \
                / total_weight
            for gain, threshold, cut in zip(gains, block_thresholds[valid], cut_values[valid]):
                candidates.append(Candidate(feature, threshold, missing_left, gain,
                                            column=column, cut=cut))
    return candidates


def best_candidates(candidates, atol=1e-12, rtol=0.0):
    """Candidates whose gain is within ``atol + rtol * |best|`` of the best, best first."""
    if not candidates:
        return []
    best = max(c.gain for c in candidates)
    tol = atol + rtol * abs(best)
    return sorted((c for c in candidates if c.gain >= best - tol), key=lambda c: -c.gain)


def best_by_partition(candidates, n_partitions=2, atol=1e-12):
    """The ``n_partitions`` best distinct partitions: [(best gain, [candidates])], best first.

    Walks the candidates by decreasing gain and stops once enough distinct partitions are
    known and the gains fall clearly below the last of them, so only a few masks get built.
    """
    groups: dict[bytes, list] = {}
    ranked = []
    for cand in sorted(candidates, key=lambda c: -c.gain):
        if len(ranked) >= n_partitions and cand.gain < ranked[n_partitions - 1][0] - atol:
            break
        key = cand.partition_key
        if key not in groups:
            groups[key] = []
            ranked.append((cand.gain, groups[key]))
        groups[key].append(cand)
    return ranked[:n_partitions] if len(ranked) > n_partitions else ranked


def tie_break_choice(candidates):
    """The engine's documented rule among tied candidates: lowest feature, then lowest threshold."""
    return min(candidates, key=lambda c: (c.feature, c.threshold))


# -- reading a fitted tree -----------------------------------------------------------------
def tree_split_gain(tree, node: int = 0) -> float:
    """Gain of an internal node from the fitted arrays: (W_S h_S - W_L h_L - W_R h_R) / W_root."""
    left, right = tree.children_left[node], tree.children_right[node]
    weight, impurity = tree.weighted_n_node_samples, tree.impurity
    return float(
        (weight[node] * impurity[node] - weight[left] * impurity[left]
         - weight[right] * impurity[right]) / weight[0]
    )


def node_members(decision_path, node: int) -> np.ndarray:
    """Sorted indices of the rows whose path passes through ``node`` (CSC/CSR indicator)."""
    return np.flatnonzero(np.asarray(decision_path[:, node].todense()).ravel())


# -- exact arithmetic, to tell true ties from rounding noise -------------------------------
def _exact_weighted_term(counts, criterion):
    """W h(counts / W) as a Fraction, for gini (W - sum c_k^2 / W) and misclassification
    (W - max_k c_k); counts are integers (integer sample weights)."""
    counts = [Fraction(int(c)) for c in counts]
    total = sum(counts)
    if total == 0:
        return Fraction(0)
    if criterion == "gini":
        return total - sum(c * c for c in counts) / total
    if criterion == "misclassification":
        return total - max(counts)
    raise ValueError(f"no exact form for criterion {criterion!r}")


def exact_gain(candidate, y, w, n_classes, criterion):
    """The candidate's gain times the total weight, exactly (integer ``w``, gini/misclassification)."""
    left = candidate.left
    per_class = [np.bincount(y[mask], weights=w[mask], minlength=n_classes).round().astype(int)
                 for mask in (np.ones_like(left), left, ~left)]
    parent, left_term, right_term = (_exact_weighted_term(c, criterion) for c in per_class)
    return parent - left_term - right_term


def exact_ties(candidates, y, w, n_classes, criterion, window=1e-9):
    """Of the candidates within ``window`` of the best float gain, those whose exact gain is maximal."""
    near = best_candidates(candidates, atol=window)
    exact = [exact_gain(c, y, w, n_classes, criterion) for c in near]
    top = max(exact)
    return [c for c, g in zip(near, exact) if g == top]
