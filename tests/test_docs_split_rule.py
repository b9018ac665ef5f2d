"""docs/adding_a_split_rule.md works as written: its edits, applied to a copy of the package,
add CART's twoing rule, and the trees grown with it split where a brute-force numpy
computation of the rule says they should."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "adding_a_split_rule.md"
_EDIT = re.compile(r"<!-- edit: (\S+) \| (before|after|replace): (.*?) -->\n```python\n(.*?)```",
                   re.S)
_RUN = re.compile(r"<!-- run -->\n```python\n(.*?)```", re.S)


def _apply_edits(package_root: Path, page: str) -> int:
    edits = _EDIT.findall(page)
    for path, how, anchor, code in edits:
        target = package_root / path
        source = target.read_text()
        lines = source.splitlines(keepends=True)
        matches = [i for i, line in enumerate(lines) if line.startswith(anchor)]
        assert len(matches) == 1, f"anchor {anchor!r} must start one line of {path}"
        i = matches[0]
        if how == "before":
            lines[i:i] = [code]
        elif how == "after":
            lines[i + 1:i + 1] = [code]
        else:
            lines[i:i + 1] = [code]
        target.write_text("".join(lines))
    return len(edits)


_CHECK = """
import json, sys
import numpy as np
import treesmith
from treesmith.rules import registered
rng = np.random.default_rng(0)
X = rng.normal(size=(300, 5)).round(1)
y = (X[:, 0] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=300) > 0).astype(int) \\
    + (X[:, 1] > 1).astype(int)
X[::17, 2] = np.nan
roots = []
for depth_first in (True, False):
    model = treesmith.DecisionTreeClassifier(
        split_rule=registered()["twoing"](), max_depth=1 if depth_first else None,
        max_leaf_nodes=None if depth_first else 2, random_state=0).fit(X, y)
    tree = model.tree_
    roots.append([int(tree.feature[0]), float(tree.threshold[0])])
print(json.dumps({"roots": roots, "X": np.nan_to_num(X, nan=1e300).tolist(), "y": y.tolist()}))
"""


def _twoing(left_y, right_y, n_classes, n_total):
    p_left = left_y.size / (left_y.size + right_y.size)
    distance = np.abs(np.bincount(left_y, minlength=n_classes) / left_y.size
                      - np.bincount(right_y, minlength=n_classes) / right_y.size).sum()
    p_node = (left_y.size + right_y.size) / n_total
    return p_node * p_left * (1 - p_left) / 4 * distance ** 2


def _best_twoing(X, y):
    """Best (score, feature, threshold) over all thresholds (midpoints between consecutive
    values) and both sides for missing values; ties to the lowest feature and threshold."""
    best = (-np.inf, -1, np.nan)
    for f in range(X.shape[1]):
        column = X[:, f]
        missing = np.isnan(column)
        values = np.unique(column[~missing])
        for value, next_value in zip(values[:-1], values[1:]):
            go_left = (column <= value) & ~missing
            for side in (go_left, go_left | missing):
                if 0 < side.sum() < y.size:
                    score = _twoing(y[side], y[~side], 3, y.size)
                    if score > best[0] + 1e-12:
                        best = (score, f, (value + next_value) / 2)
    return best


@pytest.mark.slow
def test_the_worked_example_adds_a_working_twoing_rule(tmp_path):
    page = PAGE.read_text()
    shutil.copytree(ROOT / "treesmith", tmp_path / "treesmith",
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert _apply_edits(tmp_path, page) == 5
    env = dict(os.environ, PYTHONPATH=str(tmp_path),
               NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    result = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    X = np.array(out["X"])
    X[X == 1e300] = np.nan
    y = np.array(out["y"])
    _, expected_feature, expected_threshold = _best_twoing(X, y)
    for feature, threshold in out["roots"]:
        assert feature == expected_feature
        assert threshold == pytest.approx(expected_threshold, rel=1e-12)
    run = _RUN.search(page).group(1)
    result = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert 0.9 < float(result.stdout.strip().splitlines()[-1]) <= 1.0
