"""Shared fixtures of the engine tests: the small real datasets, loaded once per session."""

import os
import sys

import numpy as np
import pytest
from hypothesis import settings
from sklearn import datasets

# CI (CI=true) replays the same hypothesis examples on every run, so that a submission lands or
# fails on its code, not on the examples a fuzzer happened to draw; locally each run explores new
# examples, and what they find becomes an explicit regression test.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The brute-force helpers (tests/_oracle.py) are imported as a plain module.
sys.path.insert(0, os.path.dirname(__file__))

_LOADERS = {
    "iris": datasets.load_iris,
    "wine": datasets.load_wine,
    "breast_cancer": datasets.load_breast_cancer,
}


@pytest.fixture(scope="session")
def real_dataset():
    """``real_dataset(name) -> (X float64, y int)`` for iris, wine and breast_cancer (cached)."""
    cache = {}

    def load(name):
        if name not in cache:
            X, y = _LOADERS[name](return_X_y=True)
            cache[name] = (np.asarray(X, dtype=np.float64), np.asarray(y))
        return cache[name]

    return load
