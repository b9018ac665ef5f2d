"""Compiled mapping of raw feature values to bin indices."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def map_to_bins(X, thresholds, offsets, missing_bin, out):
    """Bin every value of ``X`` (IN float64, n x p) into ``out`` (OUT uint8/uint16, Fortran order).

    Feature ``j`` has sorted upper bin edges ``thresholds[offsets[j]:offsets[j + 1]]``; a value
    ``v`` goes to the first bin whose edge satisfies ``v <= edge`` (the last bin when none does),
    NaN goes to ``missing_bin``.
    """
    n_samples = X.shape[0]
    for j in prange(X.shape[1]):
        start = offsets[j]
        n_edges = offsets[j + 1] - start
        for i in range(n_samples):
            value = X[i, j]
            if np.isnan(value):
                out[i, j] = missing_bin
                continue
            low = 0
            high = n_edges
            while low < high:  # first edge >= value
                middle = (low + high) >> 1
                if thresholds[start + middle] < value:
                    low = middle + 1
                else:
                    high = middle
            out[i, j] = low
