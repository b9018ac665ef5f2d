"""With NUMBA_DISABLE_JIT=1 (Numba's debugging mode, kernels run as Python) fit, predict and
decision_path work and give the compiled engine's results."""

import json
import os
import subprocess
import sys

import numpy as np

import treesmith

_SNIPPET = """
import json
import numpy as np
import treesmith
from sklearn.datasets import load_iris

X, y = load_iris(return_X_y=True)
X[::9, 2] = np.nan
model = treesmith.DecisionTreeClassifier(max_depth=3, max_features=3, random_state=0).fit(X, y)
print(json.dumps({"predict": model.predict(X).tolist(),
                  "path": model.decision_path(X[:5]).toarray().tolist()}))
"""


def test_fit_and_predict_run_as_python_under_numba_disable_jit():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    # -W: the xorshift generator overflows uint64 on purpose; numpy warns about it in Python.
    result = subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", "-c", _SNIPPET],
                            capture_output=True, text=True, env=env, check=True, timeout=600)
    as_python = json.loads(result.stdout.strip().splitlines()[-1])

    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X[::9, 2] = np.nan
    model = treesmith.DecisionTreeClassifier(max_depth=3, max_features=3, random_state=0)
    model.fit(X, y)
    assert as_python["predict"] == model.predict(X).tolist()
    assert as_python["path"] == model.decision_path(X[:5]).toarray().tolist()
