"""Compiled mapping of raw feature values to bin indices."""

import numpy as np
from numba import njit, prange


#: Rows per task of ``map_to_bins``: a block of a C-ordered X stays in cache across features.
ROWS_PER_TASK = 512


@njit(cache=True, parallel=True)
def map_to_bins(X, thresholds, offsets, missing_bin, out):
    """Bin every value of ``X`` (IN float32/float64, n x p, any order) into ``out`` (OUT uint8/uint16, Fortran order).

    Feature ``j`` has sorted upper bin edges ``thresholds[offsets[j]:offsets[j + 1]]``; a value
    ``v`` goes to the first bin whose edge satisfies ``v <= edge`` (the last bin when none does),
    NaN goes to ``missing_bin``.
    """
    n_samples = X.shape[0]
    block = ROWS_PER_TASK
    n_blocks = (n_samples + block - 1) // block
    for t in prange(n_blocks):
        first = t * block
        last = min(first + block, n_samples)
        for j in range(X.shape[1]):
            _map_block(X, j, first, last, thresholds, offsets, missing_bin, out)


@njit(cache=True, nogil=True)
def _map_block(X, j, first, last, thresholds, offsets, missing_bin, out):
    start = offsets[j]
    n_edges = offsets[j + 1] - start
    for i in range(first, last):
        value = np.float64(X[i, j])
        if np.isnan(value):
            out[i, j] = missing_bin
            continue
        if n_edges == 0:
            out[i, j] = 0
            continue
        # Branch-free lower bound: index of the first edge >= value.
        base = start
        size = n_edges
        while size > 1:
            half = size >> 1
            base = base + half if thresholds[base + half] < value else base
            size -= half
        out[i, j] = base - start + (1 if thresholds[base] < value else 0)


@njit(cache=True, nogil=True)
def first_infinite_column(X):
    """Index of the first column holding +inf or -inf, or -1 (no temporary n x p array).

    Reads X in its memory order (rows first for C order): column-by-column reads of a
    C-ordered array are strided and cost ten times more.
    """
    n_samples, n_features = X.shape
    first = n_features
    if X.strides[0] >= X.strides[1]:  # row-major
        for i in range(n_samples):
            for j in range(min(first, n_features)):
                if np.isinf(X[i, j]):
                    first = j
                    break
    else:
        for j in range(n_features):
            for i in range(n_samples):
                if np.isinf(X[i, j]):
                    return j
    return first if first < n_features else -1
