"""Explain, in Python, a split scan whose impurity failed.

The compiled scan cannot raise: when the impurity h returns NaN, inf or a negative value on some
candidate child (which only a user criterion does, ``treesmith.criteria.Custom``, whose guard
turns such a value or an exception into -inf), the scan only flags the feature
(``SPLIT_DTYPE["impurity_failed"]``) and the growth loop stops, saying at which node
(``records.GROWTH_CRITERION_FAILED``). This module then recomputes that node's candidates for
that feature from its samples, exactly as the scan forms them (bins <= b left, the missing bin
on either side; proportions of the classes present), evaluates h on each, and raises
:class:`CriterionFailure` naming the criterion, the node, the feature and the proportions on
which h failed. Only a failed fit pays for it.
"""

from __future__ import annotations

import numpy as np

from ._kernels.histogram import build_histogram_naive
from ._kernels.stats import REGRESSION_COUNT, class_counts_slice, class_weights_slice

#: Failing proportion vectors quoted in the message, at most.
MAX_QUOTED = 3


class CriterionFailure(ValueError):
    """The impurity returned NaN, inf or a negative value (or raised) on a candidate split's
    class proportions during a fit. ``proportions`` lists the failing vectors found,
    ``feature`` and ``depth`` locate the node."""

    def __init__(self, message, *, criterion, depth, n_node_samples, feature, proportions):
        super().__init__(message)
        self.criterion = criterion
        self.depth = depth
        self.n_node_samples = n_node_samples
        self.feature = feature
        self.proportions = proportions


def _children(hist_f, n_bins_non_missing, missing_bin):
    """Statistics rows of every candidate (left, right) the scan forms on one feature."""
    missing = hist_f[missing_bin]
    count = hist_f[:n_bins_non_missing].sum(axis=1)
    occupied = np.flatnonzero(count > 0)
    has_missing = missing.any()
    non_missing = hist_f[occupied].sum(axis=0)
    left = np.zeros_like(missing)
    for i, b in enumerate(occupied[:-1]):
        left = left + hist_f[b]
        right = non_missing - left
        yield left, right + missing
        if has_missing:
            yield left + missing, right
    if has_missing and occupied.size:
        yield non_missing, missing


def _categorical_children(hist_f, n_bins_non_missing, missing_bin, n_classes):
    """Statistics rows of every candidate (left, right) the categorical scan forms on one
    feature (``treesmith._kernels.categorical.scan_categorical``): every set of the present
    categories up to its exhaustive limit, else the prefixes of the categories in the scan's
    key order (``category_keys``); the missing bin on either side."""
    from ._kernels.categorical import EXHAUSTIVE_MAX_CATEGORIES, category_keys

    missing = hist_f[missing_bin]
    count = (hist_f[:n_bins_non_missing, class_counts_slice(n_classes)].sum(axis=1)
             if n_classes else hist_f[:n_bins_non_missing, REGRESSION_COUNT])
    present = np.flatnonzero(count > 0)
    non_missing = hist_f[present].sum(axis=0)
    if present.size <= EXHAUSTIVE_MAX_CATEGORIES:
        sets = [[present[j] for j in range(present.size) if mask >> j & 1]
                for mask in range(1, 1 << max(present.size - 1, 0))]
    else:
        keys = category_keys(hist_f, present, n_classes)
        order = present[np.lexsort((present, keys))]
        sets = [list(order[:i]) for i in range(1, present.size)]
    for chosen in sets:
        left = hist_f[chosen].sum(axis=0)
        right = non_missing - left
        yield left, right + missing
        yield left + missing, right
    yield non_missing, missing


def _proportions(row, n_classes):
    """Class proportions as ``stats.class_proportions`` forms them (absent classes 0), or the
    row itself for regression; None for an empty child (h is not called there)."""
    if n_classes == 0:
        return np.ascontiguousarray(row, dtype=np.float64)
    present = row[class_counts_slice(n_classes)] > 0
    weights = np.where(present, row[class_weights_slice(n_classes)], 0.0)
    weight = weights.sum()
    if weight <= 0:
        return None
    return np.ascontiguousarray(weights / weight)


def raise_criterion_failure(criterion, data, feature, start, end, depth, bins,
                            feature_names=None, in_permutation_test=False):
    """Raise :class:`CriterionFailure` for the node ``data.sample_idx[start:end]``
    (``records.TrainingData``) whose scan of ``feature`` was flagged by the growth loop (or by
    the S-pruning permutation test, on shuffled labels: ``in_permutation_test``)."""
    sample_idx = np.asarray(data.sample_idx[start:end])
    n_classes = int(data.n_classes)
    hist = build_histogram_naive(
        np.asarray(data.X_binned[:, [feature]]), sample_idx, data.y_code, data.sample_weight,
        data.sample_stats, n_classes, int(bins.n_bins))[0]
    h = criterion.impurity_function()
    params = np.ascontiguousarray(criterion.parameters(), dtype=np.float64)
    rows = [hist.sum(axis=0)]  # the node itself, then its candidate children
    categorical = getattr(bins, "is_categorical", None)
    if categorical is not None and feature < len(categorical) and categorical[feature]:
        pairs = _categorical_children(hist, int(bins.n_bins_non_missing[feature]),
                                      int(bins.missing_bin), n_classes)
    else:
        pairs = _children(hist, int(bins.n_bins_non_missing[feature]), int(bins.missing_bin))
    rows += [row for pair in pairs for row in pair]
    failing, seen = [], set()
    for row in rows:
        proportions = _proportions(row, n_classes)
        if proportions is None:
            continue
        key = proportions.tobytes()
        if key in seen:
            continue
        seen.add(key)
        value = float(h(proportions, params))
        if not (np.isfinite(value) and value >= 0.0):
            failing.append(proportions)
    name = (repr(str(feature_names[feature])) if feature_names is not None
            else f"x{feature}")
    where = (f"at a node of depth {depth} with {sample_idx.size} training samples, on feature "
             f"{name} (index {feature})")
    describe = getattr(criterion, "describe_failure", None)
    if in_permutation_test:
        where += (" in the S-pruning permutation test (on class labels shuffled among the "
                  "node's samples)")
    if failing:
        quoted = "; ".join(
            f"proportions {np.round(p, 6).tolist()}"
            + (f" ({describe(p)})" if describe is not None else "")
            for p in failing[:MAX_QUOTED])
        more = (f" and {len(failing) - MAX_QUOTED} more proportion vector(s)"
                if len(failing) > MAX_QUOTED else "")
        detail = f"it failed on {quoted}{more}"
    elif in_permutation_test:  # the shuffles are the kernel's; not replayed here
        detail = "a candidate split's gain on shuffled labels came out +inf or NaN"
    else:  # not reproduced in float64 from the samples: say what the scan saw
        detail = "a candidate split's gain came out +inf or NaN"
    raise CriterionFailure(
        f"criterion {criterion!r} returned a value that is not a finite impurity >= 0 (NaN, "
        f"inf, negative, or an exception) {where}: {detail}. The fit stops rather than let "
        "the failing candidate silently win or lose; make the function total on every "
        "proportion vector (every point of the probability simplex).",
        criterion=criterion, depth=int(depth), n_node_samples=int(sample_idx.size),
        feature=int(feature), proportions=failing)
