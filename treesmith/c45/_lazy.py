"""``treesmith.predict_lazy`` for a ``C45Classifier``: acquire feature values as C4.5's walk
needs them, down every branch below a missing value (docs/methods.md §5 and §11).

The examples walk C4.5's tree in node order (children are stored after their parents, in
branch order): at a test the examples waiting there that have not given the tested feature
yet are asked for it (once per example and feature); a known value sends the example down its
branch (nowhere when that branch is empty), a missing or unseen one down every non-empty
branch, as ``C45Tree.predict_proba`` does. Each example pays for the tests it reaches, in
node order, as ``treesmith.c45._costs.visit_costs`` charges them: per_test every test,
per_feature each cost group once. The values acquired are then exactly those the prediction
reads, so the class distributions are computed by the same kernel as ``predict_proba`` on a
matrix holding them (the features never asked stay NaN and are never read): the same
probabilities and classes, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._tree import _branch_of


def c45_predict_lazy(estimator, get_feature, n_samples: int, batch: bool, feature_cost,
                     feature_group, cost_model: str):
    """:class:`treesmith.metrics.LazyPrediction` of ``n_samples`` examples whose values come
    from ``get_feature(row, j)`` (or ``get_feature(rows, j)`` with ``batch``), raw as the
    estimator's ``predict`` takes them."""
    from ..categorical import UnseenValues
    from ..metrics import LazyPrediction

    tree = estimator.c45_tree_
    unseen = UnseenValues(estimator, "values", estimator._column_name)
    encoded = np.full((n_samples, tree.n_features), np.nan)
    asked = np.zeros((n_samples, tree.n_features), dtype=bool)
    paid = np.zeros((n_samples, int(feature_group.max()) + 1), dtype=bool) \
        if cost_model == "per_feature" else None
    paid_cost = np.zeros(n_samples)
    n_requests = 0
    rows_at = {0: np.arange(n_samples, dtype=np.int64)}
    for node in range(tree.node_count):
        rows = rows_at.pop(node, None)
        if rows is None or rows.size == 0 or tree.attribute[node] < 0:
            continue
        j = int(tree.attribute[node])
        new = rows[~asked[rows, j]]
        if new.size:
            values = _ask(get_feature, new, j, batch)
            encoded[new, j] = estimator._encode_column(j, values)
            _record_unseen(estimator, unseen, j, values, encoded[new, j])
            asked[new, j] = True
            n_requests += new.size
        if paid is None:
            paid_cost[rows] += feature_cost[j]
        else:
            payers = rows[~paid[rows, feature_group[j]]]
            paid_cost[payers] += feature_cost[j]
            paid[payers, feature_group[j]] = True
        start, count = tree.child_start[node], tree.n_children[node]
        branch = _branches(tree.kind[node], tree.threshold[node], encoded[rows, j], count)
        spreads = branch < 0
        if not tree.branch_weight[start:start + count].sum() > 0:
            spreads[:] = False  # C4.5 sends such a fraction nowhere
        for b in range(count):
            child = int(tree.children[start + b])
            if not tree.is_empty[child]:
                rows_at[child] = rows[(branch == b) | spreads]
    unseen.warn("; C4.5 treats them as missing values (down every branch, weighted).")
    probabilities = estimator._proba_of_encoded(encoded)
    return LazyPrediction(estimator._predict_encoded(encoded), paid_cost,
                          np.asarray(estimator.tree_.apply(encoded), dtype=np.int64),
                          n_requests, probabilities)


def _record_unseen(estimator, unseen, j: int, values, codes) -> None:
    """Add to ``unseen`` the values of nominal column ``j`` that fit never saw (NaN codes of
    values that are not missing), for the one warning ``predict`` would give."""
    categories = estimator.categories_[j]
    if categories is None or not np.isnan(codes).any():
        return
    from ..categorical import FittedColumn, _missing, _object_array

    values = _object_array(np.asarray(values, dtype=object).ravel().tolist())
    unseen.add(j, values, np.isnan(codes) & ~_missing(values),
               FittedColumn(categories, estimator._fitted_precision(j)))


def _ask(get_feature, rows: np.ndarray, j: int, batch: bool) -> np.ndarray:
    """Raw values of feature ``j`` for ``rows`` (one call, or one per row), checked to be one
    value per row (``treesmith.metrics.requested_values``)."""
    from ..metrics import requested_values

    return requested_values(get_feature, rows, j, batch)


@njit(cache=True, nogil=True)
def _branches(kind, threshold, values, n_children):  # IN values (encoded); OUT branch ids
    """Branch each value takes at one test (``_branch_of``; -1 = missing or unseen)."""
    out = np.empty(values.shape[0], dtype=np.int64)
    for i in range(values.shape[0]):
        out[i] = _branch_of(kind, threshold, values[i], n_children)
    return out
