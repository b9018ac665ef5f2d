"""Trees do not depend on the number of threads (parallel histograms and feature scans)."""

import hashlib
import os
import subprocess
import sys

import numpy as np

import treesmith

SCRIPT = """
import hashlib, sys
import numpy as np
from sklearn.datasets import make_classification
import treesmith
X, y = make_classification(n_samples=30000, n_features=50, n_informative=10, n_classes=3,
                           random_state=0)
X[::17, 3] = np.nan
tree = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y).tree_
print(hashlib.md5(tree.feature.tobytes() + tree.threshold.tobytes()
                  + tree.value.tobytes()).hexdigest())
"""


def fingerprint(env=None):
    completed = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                               env=env, timeout=600, check=True)
    return completed.stdout.strip()


def test_same_tree_with_one_thread_and_all_threads():
    one_thread = fingerprint(dict(os.environ, NUMBA_NUM_THREADS="1"))
    all_threads = fingerprint(dict(os.environ))
    assert one_thread == all_threads


def test_refit_with_the_same_seed_is_identical_above_the_binning_subsample():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(210_000, 3)).astype(np.float32)  # more rows than the 200 000 subsample
    y = (X[:, 0] + 0.1 * rng.normal(size=X.shape[0]) > 0).astype(int)
    trees = [treesmith.DecisionTreeClassifier(max_depth=6, random_state=7).fit(X, y).tree_
             for _ in range(2)]
    digests = [hashlib.md5(t.feature.tobytes() + t.threshold.tobytes()).hexdigest()
               for t in trees]
    assert digests[0] == digests[1]
