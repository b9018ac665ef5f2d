"""What Bayesian CART's chains allocate, per iteration, per node, per row and per recorded node
of ``averaging="posterior"``, measured with tracemalloc (numba's runtime allocates through
CPython's allocator, so the kernel's arrays are traced), against the figures
``treesmith.bayes.chain_memory_bytes`` / ``sample_memory_bytes`` count (docs/methods.md §7).

Each figure is the slope between two fits that differ in one size only, measured from the start
of the chains to the end of fit (the binned data and the validated input apart).

    PYTHONPATH=$PWD python benchmarks/bench_bayes_memory.py
"""

from __future__ import annotations

import tracemalloc

import numpy as np

import treesmith.bayes as bayes
from treesmith import BayesianTreeClassifier, BayesianTreeRegressor

_measured = {}
_run_chains = bayes.BaseBayesianTree._run_chains


def _traced_run_chains(estimator, data, prior, settings, seeds):
    _measured["start"] = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    _measured["results"] = _run_chains(estimator, data, prior, settings, seeds)
    return _measured["results"]


bayes.BaseBayesianTree._run_chains = _traced_run_chains


def peak(estimator, n_samples, **params) -> int:
    """Traced peak from the start of the chains to the end of fit (bytes)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_samples, 5))
    y = ((X[:, 0] > 0).astype(int) if estimator is BayesianTreeClassifier
         else X[:, 0] + rng.normal(size=n_samples))
    estimator(**{**params, "n_iter": 10}).fit(X, y)  # compiled before measuring
    tracemalloc.start()
    estimator(**params, random_state=0).fit(X, y)
    value = tracemalloc.get_traced_memory()[1] - _measured["start"]
    tracemalloc.stop()
    return value


def main():
    for estimator, width in ((BayesianTreeClassifier, 2), (BayesianTreeRegressor, 3)):
        name = estimator.__name__
        per_iteration = (peak(estimator, 400, n_iter=50_000, n_chains=1)
                         - peak(estimator, 400, n_iter=10_000, n_chains=1)) / 40_000
        per_node = (peak(estimator, 20_000, n_iter=200, n_chains=1, max_leaves=10_000)
                    - peak(estimator, 20_000, n_iter=200, n_chains=1, max_leaves=2_000)) / 16_000
        per_row = (peak(estimator, 25_000, n_iter=200, n_chains=1, max_leaves=8)
                   - peak(estimator, 5_000, n_iter=200, n_chains=1, max_leaves=8)) / 20_000
        with_sample = peak(estimator, 400, n_iter=20_000, n_chains=1, averaging="posterior")
        result = _measured["results"][0]
        recorded = result.sample_feature.shape[0]
        per_recorded = (with_sample - peak(estimator, 400, n_iter=20_000, n_chains=1)) / recorded
        counted_node = (bayes.RUNNING_BYTES_PER_NODE
                        + bayes.RUNNING_STATISTICS_COPIES * 8 * width)
        counted_recorded = bayes.sample_memory_bytes(
            recorded, result.sample_weights.shape[0], width) / recorded
        print(f"{name} ({width} statistics per leaf)")
        print(f"  per iteration and chain: {per_iteration:7.1f} bytes measured, "
              f"{bayes.CHAIN_BYTES_PER_ITERATION} counted")
        print(f"  per node, running chain: {per_node:7.1f} bytes measured, {counted_node} counted")
        print(f"  per row, running chain:  {per_row:7.1f} bytes measured, "
              f"{bayes.RUNNING_BYTES_PER_ROW} counted")
        print(f"  per recorded node:       {per_recorded:7.1f} bytes measured, "
              f"{counted_recorded:.1f} counted ({recorded} nodes in "
              f"{result.sample_weights.shape[0]} trees)")


if __name__ == "__main__":
    main()
