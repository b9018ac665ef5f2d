"""How a node's candidate splits are found: ``splitter="best"`` scans every threshold of
every examined feature; ``splitter="random"`` draws one split per examined feature, as
extremely randomized trees do (Geurts, Ernst & Wehenkel, "Extremely randomized trees",
Machine Learning 2006; docs/methods.md §7; the kernels are
``treesmith._kernels.random_thresholds``).

The draw is uniform in value between the node's smallest and largest value of the feature, so
it needs each bin's value in original units (``bin_values``).
"""

from __future__ import annotations

import numpy as np

#: The values of ``splitter``.
SPLITTERS = ("best", "random")


def bin_values(bin_mapper, X, sample_weight=None) -> np.ndarray:
    """The value of every non-missing bin of every feature, (n_features, n_bins) float64, in
    increasing order along each feature's bins: what the random splitter draws thresholds
    between.

    An exactly binned feature's bin holds one distinct value: that value (the draw is then
    scikit-learn's, cut for cut). A quantile bin ``(edge[b-1], edge[b]]`` gets the middle of
    its range, the outer bins' ranges closed by the feature's smallest and largest training
    value (rows of positive weight, as the bin mapper sees them). A categorical feature's bins
    get their codes (its drawn split is a random partition, which reads no value). Entries past
    a feature's last bin are +inf and never read.
    """
    n_features = bin_mapper.n_features_in_
    values = np.full((n_features, int(bin_mapper.n_bins_)), np.inf)
    X = np.asarray(X)
    if sample_weight is not None and not np.all(np.asarray(sample_weight) > 0):
        X = X[np.asarray(sample_weight) > 0]
    categorical = bin_mapper.categorical_mask()
    for f in range(n_features):
        n_bins = int(bin_mapper.n_bins_non_missing_[f])
        if categorical[f]:
            values[f, :n_bins] = np.arange(n_bins, dtype=np.float64)
        elif bin_mapper.bin_values_[f] is not None:  # (none at all: every value missing)
            known = bin_mapper.bin_values_[f]
            values[f, :known.size] = known
        else:
            column = np.asarray(X[:, f], dtype=np.float64)
            column = column[~np.isnan(column)]
            edges = bin_mapper.bin_thresholds_[f]
            low = min(float(column.min()), float(edges[0])) if column.size else float(edges[0])
            high = max(float(column.max()), float(edges[-1])) if column.size else float(
                edges[-1])
            bounds = np.concatenate([[low], edges, [high]])
            values[f, :n_bins] = 0.5 * bounds[:-1] + 0.5 * bounds[1:]
    return values
