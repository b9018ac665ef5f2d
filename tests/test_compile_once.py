"""No treesmith kernel is compiled twice for what is one signature.

Numba compiles a function once per argument-type signature. Passing a Python int literal, or
prange's unsigned index, where other call sites pass an int64 made several kernels compile two
to four times, and the first fit after install took twice as long. This runs fits and a predict
in a fresh process with an empty cache and checks that no treesmith function was compiled for
two signatures that differ only in literal or unsigned scalar types. (Different array dtypes,
as in the node-array resize helper, are different signatures.)
"""

import json
import os
import re
import subprocess
import sys
from collections import defaultdict

_SNIPPET = """
import json
import numpy as np
from numba.core import event
from sklearn.datasets import load_iris

import treesmith

X, y = load_iris(return_X_y=True)
X[::7, 1] = np.nan
with event.install_recorder("numba:compile") as recorder:
    treesmith.DecisionTreeClassifier(random_state=0).fit(X, y).predict(X)
    treesmith.DecisionTreeClassifier(max_features=2, max_leaf_nodes=6, random_state=0).fit(X, y)
compiled = [(f"{f.__module__}.{f.__qualname__}", [str(t) for t in ev.data["args"]])
            for _, ev in recorder.buffer if ev.is_start
            for f in [ev.data["dispatcher"].py_func] if f.__module__.startswith("treesmith")]
print(json.dumps(compiled))
"""


def _scalar_kind(type_name):
    """The signature type with literals and unsigned scalars folded into int64 / bool (an
    array's dtype is left as it is: ``array(uint64, ...)`` is another signature)."""
    type_name = re.sub(r"Literal\[int\]\(.*?\)|(?<!array\()uint64", "int64", type_name)
    return re.sub(r"Literal\[bool\]\(.*?\)", "bool", type_name)


def test_a_first_fit_compiles_each_kernel_once_per_signature(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    result = subprocess.run([sys.executable, "-c", _SNIPPET], capture_output=True, text=True,
                            env=env, check=True, timeout=600)
    signatures = defaultdict(list)
    for name, arg_types in json.loads(result.stdout.strip().splitlines()[-1]):
        signatures[name].append(tuple(_scalar_kind(t) for t in arg_types))
    assert "treesmith._kernels.growth.grow" in signatures
    # the scan of a gain-numerator rule is scan_feature's twin "scan_feature_gain_numerator"
    # (pointers.scan_pointer)
    assert any(name.startswith("treesmith._kernels.splitting.scan_feature")
               for name in signatures)
    duplicated = {name: len(found) for name, found in signatures.items()
                  if len(set(found)) < len(found)}
    assert duplicated == {}


def test_the_kernels_of_a_minimax_fit_with_categories_can_be_cached():
    """A kernel whose code embeds a function's address (a dispatcher held in a global and
    passed on as a first-class function) cannot be cached: Numba warned "Cannot cache compiled
    function ... as it uses dynamic globals" on every process's first minimax fit with a
    categorical feature, and compiled the categorical scan again each time (review 15b)."""
    import gc
    import weakref

    import numpy as np
    from numba.core.dispatcher import Dispatcher

    import treesmith

    rng = np.random.default_rng(0)
    n = 120
    X = np.column_stack([rng.integers(0, 6, n), rng.normal(size=n)]).astype(float)
    for n_classes in (2, 3):  # the scan's twins without and with the principal component
        y = rng.integers(0, n_classes, n)
        treesmith.DecisionTreeClassifier(split_rule="minimax", categorical_features=[0],
                                         max_depth=3).fit(X, y)
    dynamic = sorted({f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"
                      for obj in gc.get_objects()
                      # isinstance on a proxy whose referent is gone raises ReferenceError
                      if type(obj) not in weakref.ProxyTypes and isinstance(obj, Dispatcher)
                      and obj.py_func.__module__.startswith("treesmith")
                      for result in obj.overloads.values()
                      if getattr(result.library, "has_dynamic_globals", False)})
    assert dynamic == []
