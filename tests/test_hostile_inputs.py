"""The hostile-input catalogue: bad parameters, X / y / sample_weight / class_weight of every
wrong shape, dtype and value, pandas oddities, CSV files and CLI invocations.

Each case runs in its own forked child, so a crash inside a compiled kernel shows as a negative
exit code instead of taking the test session down, and a hang as a timeout. Every case must end
in a clear treesmith error (the right type, a message naming the parameter or column and what
was expected) or a correct result: no crash, no NaN output, no silent change of meaning.

Forking a process whose Numba kernels already ran on GNU OpenMP threads aborts, so the cases
run under a fresh runner process (this file run as a script) with Numba's fork-safe
``workqueue`` threading layer: it imports treesmith, warms the kernels once, then forks one
child per case (about 0.1 s each). The pytest items read its report.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

TIMEOUT = 60  # seconds per case

# -- data shared by the cases (built identically in every process) -----------------------------
_rng = np.random.default_rng(0)
X = _rng.normal(size=(60, 3))
y_class = (X[:, 0] > 0).astype(np.int64)
y_reg = X[:, 0] + 0.1 * X[:, 1]
PATHS: dict[str, str] = {}  # files made by the runner before forking


def _C(**params):
    from treesmith import DecisionTreeClassifier

    return DecisionTreeClassifier(random_state=0, **params)


def _R(**params):
    from treesmith import DecisionTreeRegressor

    return DecisionTreeRegressor(random_state=0, **params)


def _summary(estimator, X_=X):
    """What an 'ok' case reports: finite outputs and the tree's size."""
    out = {"n_leaves": int(estimator.get_n_leaves())}
    if hasattr(estimator, "predict_proba"):
        proba = estimator.predict_proba(X_)
        out["finite"] = bool(np.all(np.isfinite(proba)))
        out["proba_sums_to_one"] = bool(np.allclose(proba.sum(axis=1), 1.0))
    else:
        out["finite"] = bool(np.all(np.isfinite(estimator.predict(X_))))
    return out


def _frame(**columns):
    import pandas as pd

    return pd.DataFrame(columns)


def _cli(*args):
    from typer.testing import CliRunner

    from treesmith.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    return {"exit_code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr}


# -- the catalogue ----------------------------------------------------------------------------
@dataclass
class Case:
    """``run()`` in a child; expect ``error`` (exception type name and message regex), or an
    ok result passing ``check`` (with, optionally, a warning matching ``warns``)."""

    id: str
    run: object
    error: tuple[str, str] | None = None
    check: object = None
    warns: str | None = None


CASES: list[Case] = []


def case(id, run, error=None, check=None, warns=None):
    CASES.append(Case(id, run, error, check, warns))


def finite(result):
    return result["finite"] and result.get("proba_sums_to_one", True)


def ok_cli(pattern=None, stream="stdout"):
    def check(result):
        return result["exit_code"] == 0 and (pattern is None or re.search(
            pattern, result[stream]) is not None)
    return check


def cli_error(pattern):
    """Exit code 2 with a one-line ``treesmith: error:`` (or click usage error) matching."""
    def check(result):
        return result["exit_code"] == 2 and re.search(pattern, result["stderr"]) is not None \
            and "Traceback" not in result["stderr"]
    return check


# Estimator parameters: huge counts are the same rule as "no limit" (no int64 overflow).
for name in ("max_depth", "min_samples_leaf", "min_samples_split", "max_leaf_nodes"):
    case(f"classifier {name}=10**30", lambda name=name: _summary(_C(**{name: 10**30}).fit(
        X, y_class)), check=finite)
    case(f"regressor {name}=10**30", lambda name=name: _summary(_R(**{name: 10**30}).fit(
        X, y_reg)), check=finite)
case("max_depth=10**30 grows the unlimited tree",
     lambda: [_C(max_depth=10**30).fit(X, y_class).get_n_leaves(),
              _C().fit(X, y_class).get_n_leaves()], check=lambda r: r[0] == r[1])
case("min_samples_leaf=10**30 is one leaf",
     lambda: _C(min_samples_leaf=10**30).fit(X, y_class).get_n_leaves(), check=lambda r: r == 1)
case("max_depth numpy int", lambda: _summary(_C(max_depth=np.int64(2)).fit(X, y_class)),
     check=finite)
case("max_depth=True", lambda: _C(max_depth=True).fit(X, y_class),
     error=("ValueError", r"max_depth must be an int >= 1 or None, got True"))
case("max_depth=nan", lambda: _C(max_depth=float("nan")).fit(X, y_class),
     error=("ValueError", r"max_depth must be"))
case("min_samples_leaf=1.0 is not a fraction", lambda: _C(min_samples_leaf=1.0).fit(X, y_class),
     error=("ValueError", r"min_samples_leaf must be an int >= 1 or a float in \(0.0, 1.0\)"))
case("min_samples_split=1.0 is the whole node", lambda: _C(min_samples_split=1.0).fit(
    X, y_class).get_n_leaves(), check=lambda r: r >= 1)
case("min_impurity_decrease=inf", lambda: _C(min_impurity_decrease=float("inf")).fit(X, y_class),
     error=("ValueError", r"min_impurity_decrease must be a float >= 0.0"))
case("min_impurity_decrease=nan", lambda: _R(min_impurity_decrease=float("nan")).fit(X, y_reg),
     error=("ValueError", r"min_impurity_decrease"))
case("ccp_alpha=-1", lambda: _C(ccp_alpha=-1).fit(X, y_class),
     error=("ValueError", r"ccp_alpha must be a float >= 0.0"))
case("ccp_alpha=nan", lambda: _R(ccp_alpha=float("nan")).fit(X, y_reg),
     error=("ValueError", r"ccp_alpha"))
case("max_bins=2**40", lambda: _C(max_bins=2**40).fit(X, y_class),
     error=("ValueError", r"max_bins must be an int in \[2, 65535\] or None"))
case("max_features numpy float", lambda: _summary(_C(max_features=np.float64(0.5)).fit(
    X, y_class)), check=finite)
case("max_features='auto'", lambda: _C(max_features="auto").fit(X, y_class),
     error=("ValueError", r"max_features must be .*'log2'"))
case("random_state=-1", lambda: _C().set_params(random_state=-1).fit(X, y_class),
     error=("ValueError", r"random_state must be None, an int in \[0, 2\*\*32 - 1\]"))
case("random_state=2**40", lambda: _C().set_params(random_state=2**40).fit(X, y_class),
     error=("ValueError", r"random_state"))
case("n_permutations=10**30", lambda: _C(significance=0.05, n_permutations=10**30).fit(
    X, y_class), error=("ValueError", r"n_permutations must be an int in \[1, 10000000\]"))
case("significance=1.0", lambda: _C(significance=1.0).fit(X, y_class),
     error=("ValueError", r"significance must be None or a float in \(0.0, 1.0\)"))
case("significance_test='bogus'", lambda: _C(significance_test="bogus").fit(X, y_class),
     error=("ValueError", r"significance_test must be one of 'feature', 'max'"))
case("cost_model='per_path'", lambda: _C(cost_model="per_path").fit(X, y_class),
     error=("ValueError", r"cost_model must be one of 'per_feature', 'per_test'"))
case("criterion=None", lambda: _C(criterion=None).fit(X, y_class),
     error=("ValueError", r"criterion must be"))
case("regressor split_rule='ecart'", lambda: _R(split_rule="ecart").fit(X, y_reg),
     error=("ValueError", r"split_rule='ecart' is not available for DecisionTreeRegressor"))
case("pruning tdp with a bogus parameter fails before growth",
     lambda: _C(pruning={"method": "tdp", "bogus": 1}).fit(X, y_class),
     error=("ValueError", r"method 'tdp' accepts \['n_standard_errors'\], got unknown "
                          r"\['bogus'\]"))
case("pruning={'method': 3}", lambda: _C(pruning={"method": 3}).fit(X, y_class),
     error=("ValueError", r"pruning must be None, a method name or a dict"))
case("pruning=['c45']", lambda: _C(pruning=["c45"]).fit(X, y_class),
     error=("ValueError", r"pruning must be None or a method name or a dict \{'method'"))
case("regressor pruning c45 with subtree raising",
     lambda: _R(pruning={"method": "c45", "subtree_raising": True}).fit(X, y_reg),
     error=("ValueError", r"pruning method must be one of \['rep', 'ccp'\] for "
                          r"DecisionTreeRegressor, got 'c45'"))
case("regressor pruning='tdp'", lambda: _R(pruning="tdp").fit(X, y_reg),
     error=("ValueError", r"pruning method must be one of"))
case("pruning c45 confidence_factor=5 fails before growth",
     lambda: _C(pruning={"method": "c45", "confidence_factor": 5}).fit(X, y_class),
     error=("ValueError", r"confidence_factor must be a float in \(0.0, 0.5\], got 5"))
case("pruning bup c1=-1 fails before growth",
     lambda: _C(pruning={"method": "bup", "c1": -1}).fit(X, y_class),
     error=("ValueError", r"c1 must be a float >= 0.0, got -1"))
case("prune() c45 raising with y one row short", lambda: __import__("treesmith").prune(
    _C().fit(X, y_class), "c45", subtree_raising=True, X=X, y=y_class[:-1]),
    error=("ValueError", r"inconsistent numbers of rows: X has 60, y has 59"))
case("prune() tdp n_standard_errors=nan", lambda: __import__("treesmith").prune(
    _C().fit(X, y_class), "tdp", n_standard_errors=float("nan")),
    error=("ValueError", r"n_standard_errors must be a float >= 0.0"))
case("predict_lazy n_samples=2.7", lambda: __import__("treesmith.metrics").metrics.predict_lazy(
    _C(max_depth=2).fit(X, y_class), lambda i, j: X[i, j], 2.7),
    error=("ValueError", r"predict_lazy: n_samples must be an int >= 0, got 2.7"))
case("expected_cost with a negative weight", lambda: __import__(
    "treesmith.metrics").metrics.expected_cost(_C(max_depth=2).fit(X, y_class), X,
                                               sample_weight=-np.ones(60)),
    error=("ValueError", r"sample_weight must be non-negative; it is negative at rows 0"))

# class_weight
case("class_weight negative", lambda: _C(class_weight={0: -0.5, 1: 1}).fit(X, y_class),
     error=("ValueError", r"class_weight\[0\] must be a finite number >= 0, got -0.5"))
case("class_weight NaN", lambda: _C(class_weight={0: float("nan"), 1: 1}).fit(X, y_class),
     error=("ValueError", r"class_weight\[0\] must be a finite number >= 0, got nan"))
case("class_weight inf", lambda: _C(class_weight={0: float("inf"), 1: 1}).fit(X, y_class),
     error=("ValueError", r"class_weight\[0\] must be a finite number >= 0, got inf"))
case("class_weight unknown class", lambda: _C(class_weight={0: 1, 5: 1}).fit(X, y_class),
     error=("ValueError", r"class_weight names class 5, which is not in y"))
case("class_weight='balance'", lambda: _C(class_weight="balance").fit(X, y_class),
     error=("ValueError", r"class_weight must be None, 'balanced' or a dict"))
case("class_weight all zero", lambda: _C(class_weight={0: 0, 1: 0}).fit(X, y_class),
     error=("ValueError", r"sample_weight \* class_weight must have a positive sum"))
case("class_weight 1e308 stays finite", lambda: _summary(_C(class_weight={0: 1e308, 1: 1e308})
                                                         .fit(X, y_class)), check=finite)

# sample_weight
case("sample_weight NaN", lambda: _C().fit(X, y_class, sample_weight=np.r_[np.nan, np.ones(59)]),
     error=("ValueError", r"sample_weight must be finite; it contains NaN or infinity at rows 0"))
case("sample_weight negative", lambda: _R().fit(X, y_reg, sample_weight=np.r_[-1, np.ones(59)]),
     error=("ValueError", r"sample_weight must be non-negative; it is negative at rows 0"))
case("sample_weight wrong length", lambda: _C().fit(X, y_class, sample_weight=np.ones(59)),
     error=("ValueError", r"sample_weight must be a 1-D array with one weight per sample "
                          r"\(60\), got shape \(59,\)"))
case("sample_weight 2-D", lambda: _C().fit(X, y_class, sample_weight=np.ones((60, 1))),
     error=("ValueError", r"sample_weight must be a 1-D array"))
case("sample_weight all zero", lambda: _C().fit(X, y_class, sample_weight=np.zeros(60)),
     error=("ValueError", r"sample_weight must have a positive sum"))
case("sample_weight text", lambda: _C().fit(X, y_class, sample_weight=["a"] * 60),
     error=("ValueError", r"sample_weight must be numbers"))
case("sample_weight 1e307 classifier",
     lambda: _summary(_C().fit(X, y_class, sample_weight=np.full(60, 1e307))), check=finite)
case("sample_weight 1e307 regressor = unit weights",  # same tree; means equal to rounding
     lambda: np.allclose(_R().fit(X, y_reg, sample_weight=np.full(60, 1e307)).predict(X),
                         _R().fit(X, y_reg).predict(X), rtol=1e-12, atol=0.0),
     check=lambda r: r is True)
case("sample_weight scalar", lambda: np.array_equal(
    _C().fit(X, y_class, sample_weight=3).predict_proba(X), _C().fit(X, y_class).predict_proba(X)),
    check=lambda r: r is True)


def _zero_weight_equals_dropped(make, target):
    rng = np.random.RandomState(0)
    X_big = rng.normal(size=(2000, 4))
    y_big = target(X_big, rng)
    weight = rng.randint(0, 3, size=2000).astype(float)
    weight[:600] = 0.0
    kept = weight > 0
    X_test = rng.normal(size=(500, 4))
    a = make().fit(X_big, y_big, sample_weight=weight).predict(X_test)
    b = make().fit(X_big[kept], y_big[kept], sample_weight=weight[kept]).predict(X_test)
    return float(np.mean(a != b))


case("zero sample_weight = dropped rows (regressor, quantile bins)",
     lambda: _zero_weight_equals_dropped(_R, lambda X_, rng: rng.normal(size=len(X_))),
     check=lambda r: r == 0.0)
case("zero sample_weight = dropped rows (classifier, quantile bins)",
     lambda: _zero_weight_equals_dropped(
         _C, lambda X_, rng: (X_[:, 0] + rng.normal(size=len(X_)) > 0).astype(int)),
     check=lambda r: r == 0.0)

# X
case("X 1-D", lambda: _C().fit(X[:, 0], y_class), error=("ValueError", r"Expected 2D array"))
case("X 3-D", lambda: _C().fit(X[:, :, None], y_class), error=("ValueError", r"dim"))
case("X with inf names the column", lambda: _C().fit(np.c_[X, np.r_[np.inf, np.zeros(59)]],
                                                     y_class),
     error=("ValueError", r"Feature 'x3' \(column 3\) contains infinite values"))
case("X text column (numpy)", lambda: _C().fit(np.c_[X.astype(object), ["Nice"] * 60], y_class),
     error=("ValueError", r"Feature x3 \(column 3\) holds non-numeric values \('Nice'.*"
                          r"OrdinalEncoder"))
case("X no rows", lambda: _C().fit(X[:0], y_class[:0]), error=("ValueError", r"0 sample"))
case("X one row is a root leaf", lambda: _summary(_C().fit(X[:1], y_class[:1])),
     check=lambda result: finite(result) and result["n_leaves"] == 1)
case("X no columns", lambda: _C().fit(X[:, :0], y_class), error=("ValueError", r"0 feature"))
case("X complex", lambda: _C().fit(X + 1j, y_class), error=("ValueError", r"[Cc]omplex"))
case("X NaN is missing", lambda: _summary(_C().fit(np.where(X > 1, np.nan, X), y_class)),
     check=finite)
case("predict with the wrong number of columns", lambda: _C().fit(X, y_class).predict(X[:, :2]),
     error=("ValueError", r"3 features"))

# y
y_none = y_class.astype(object)
y_none[4] = None
case("y with None (classifier)", lambda: _C().fit(X, y_none),
     error=("ValueError", r"y has missing values \(None or NaN\) at rows 4"))
case("y with None (regressor)", lambda: _R().fit(X, y_none),
     error=("ValueError", r"y has missing values \(None or NaN\) at rows 4"))
case("y with NaN (regressor)", lambda: _R().fit(X, np.r_[np.nan, y_reg[1:]]),
     error=("ValueError", r"y has missing values \(None or NaN\) at rows 0"))
case("y with inf (regressor)", lambda: _R().fit(X, np.r_[np.inf, y_reg[1:]]),
     error=("ValueError", r"[Ii]nput y contains infinity"))
case("y multi-output (classifier)", lambda: _C().fit(X, np.c_[y_class, y_class]),
     error=("ValueError", r"multi-output targets are not supported"))
case("y multi-output (regressor)", lambda: _R().fit(X, np.c_[y_reg, y_reg]),
     error=("ValueError", r"multi-output targets are not supported"))
case("y length mismatch", lambda: _C().fit(X, y_class[:50]),
     error=("ValueError", r"inconsistent numbers of samples"))
case("y of mixed types", lambda: _C().fit(X, np.array([1, "a"] * 30, dtype=object)),
     error=("ValueError", r"y mixes label types \['int', 'str'\]"))
case("y of 1e160 overflows the squares", lambda: _R().fit(X, y_reg * 1e160),
     error=("ValueError", r"y is too large for float64 sums.*largest \|y\| = "))
case("y of 1e150 is still fine", lambda: _summary(_R().fit(X, y_reg * 1e150)), check=finite)
case("y of one class", lambda: _summary(_C().fit(X, np.zeros(60, int))), check=finite)
case("y as a column vector", lambda: _summary(_C().fit(X, y_class[:, None])), check=finite)
case("y continuous for a classifier", lambda: _C().fit(X, y_reg),
     error=("ValueError", r"Unknown label type"))

# pandas
case("duplicate column names", lambda: _C().fit(_frame(a=X[:, 0]).assign(b=X[:, 1]).set_axis(
    ["a", "a"], axis=1), y_class), error=("ValueError", r"duplicate column names \['a'\]"))
case("datetime column", lambda: _C().fit(_frame(a=X[:, 0], when=np.datetime64("2020-01-01")
                                                + np.arange(60)), y_class),
     error=("ValueError", r"Feature 'when' \(column 1\) has dtype datetime64"))
case("timedelta column", lambda: _C().fit(_frame(a=X[:, 0], gap=np.arange(60).astype(
    "timedelta64[s]")), y_class), error=("ValueError", r"Feature 'gap' \(column 1\) has dtype "
                                                       r"timedelta64"))
case("string column says how to enable categories", lambda: _C(categorical_features=None).fit(
    _frame(a=X[:, 0], city=["Nice"] * 60), y_class),
     error=("ValueError", r"Feature 'city' \(column 1\) holds non-numeric values.*"
                          r"categorical_features"))
case("string column split by categories", lambda: _summary(
    _C().fit(_frame(a=X[:, 0], city=["Nice", "Lyon", "Oslo"] * 20), y_class),
    _frame(a=X[:, 0], city=["Nice", "Rome", None] * 20)), check=finite)
case("category column of text", lambda: _summary(
    _C().fit(_frame(a=X[:, 0], city=["Nice", "Lyon"] * 30).astype({"city": "category"}),
             y_class), _frame(a=X[:, 0], city=["Lyon", "Nice"] * 30)), check=finite)
case("object column of numbers", lambda: _summary(
    _C().fit(_frame(a=X[:, 0].astype(object), b=X[:, 1]), y_class), _frame(a=X[:, 0], b=X[:, 1])),
    check=finite)
case("nullable Int64 with NA", lambda: _summary(
    _C().fit(_frame(a=X[:, 0], k=[1, None] * 30).astype({"k": "Int64"}), y_class),
    _frame(a=X[:, 0], k=np.ones(60))), check=finite)
case("bool column", lambda: _summary(_C().fit(_frame(a=X[:, 0], b=X[:, 1] > 0), y_class),
                                     _frame(a=X[:, 0], b=X[:, 1] > 0)), check=finite)
case("predict with reordered columns", lambda: _C().fit(_frame(a=X[:, 0], b=X[:, 1]), y_class)
     .predict(_frame(b=X[:, 1], a=X[:, 0])), error=("ValueError", r"feature names"))
case("pandas y with None", lambda: _C().fit(X, _frame(t=list(y_none))["t"]),
     error=("ValueError", r"y has missing values \(None or NaN\) at rows 4"))


# CSV loading
def _load(name, **options):
    from treesmith.datasets import load_dataset

    data = load_dataset(PATHS[name], **options)
    return list(map(str, data.X.columns))


case("CSV numeric column with one '?'", lambda: _load("stray"),
     error=("ValueError", r"column 'x' holds numbers in 59 rows but not in 1 \(data rows 7: "
                          r"'\?'\)"))
case("CSV '?' read as missing with na_values", lambda: _load("stray", na_values=["?"]),
     check=lambda r: r == ["x"])
case("CSV empty file", lambda: _load("empty"), error=("ValueError", r"cannot read CSV file"))
case("CSV missing target values", lambda: _load("missing_target"),
     error=("ValueError", r"target column 'label' has 1 missing value"))
case("CSV unknown target column", lambda: _load("stray", target="nope"),
     error=("ValueError", r"target column 'nope' is not in"))


def _align(strict):
    import pandas as pd

    from treesmith.datasets import align_features

    new = pd.DataFrame({"smoker": ["Yes", "no"], "x": [1.0, 2.0]})
    aligned = align_features(new, ["smoker=yes", "x"], {"smoker": ["no", "yes"]}, strict=strict)
    return aligned.to_numpy().tolist()


case("unseen level becomes missing, with a warning", lambda: _align(False),
     check=lambda r: np.isnan(r[0][0]) and r[1][0] == 0.0,
     warns=r"column 'smoker' has 1 value\(s\) not seen at fit time: 'Yes'")
case("unseen level with strict=True", lambda: _align(True),
     error=("ValueError", r"column 'smoker' has 1 value\(s\) not seen at fit time"))

# CLI
case("cli --version", lambda: _cli("--version"), check=ok_cli(r"^treesmith \S+"))
# `treesmith fit sklearn:iris ARGS`: exit code 2 and one line naming what is wrong.
CLI_FIT_ERRORS = [
    ("misspelt criterion", ["--criterion", "tsalis"],
     r"unknown criterion 'tsalis' for classification; did you mean tsallis"),
    ("regression criterion for classification", ["--criterion", "squared_error"],
     r"it is a regression criterion"),
    ("--max-bins 1", ["--max-bins", "1"], r"--max-bins must be 0 \(exact\) or in \[2, 65535\]"),
    ("--class-weight of an unknown class", ["--class-weight", "rose=2"],
     r"--class-weight names class 'rose'"),
    ("--pruning with a bogus parameter", ["--pruning", "tdp:bogus=1"],
     r"got unknown \['bogus'\]"),
    ("--min-samples-leaf 0", ["--min-samples-leaf", "0"], r"min-samples-leaf"),
    ("--split-rule nope", ["--split-rule", "nope"], r"split_rule must be one of"),
    ("--cost-model nope", ["--cost-model", "nope"], r"cost_model must be one of"),
]
for label, arguments, pattern in CLI_FIT_ERRORS:
    case(f"cli {label}", lambda arguments=arguments: _cli("fit", "sklearn:iris", *arguments),
         check=cli_error(pattern))
case("cli fit with the new options", lambda: _cli(
    "fit", "sklearn:iris", "--pruning", "c45:confidence_factor=0.1", "--min-samples-leaf", "2",
    "--class-weight", "setosa=2", "--split-rule", "gain_ratio", "--max-bins", "0",
    "--random-state", "3", "--cost-model", "per_feature", "--no-show-tree"),
    check=ok_cli(r"accuracy"))
case("cli fit a CSV with a stray '?'", lambda: _cli("fit", PATHS["stray"]),
     check=cli_error(r"column 'x' holds numbers"))
case("cli fit a CSV with --na-values", lambda: _cli("fit", PATHS["stray"], "--na-values", "?"),
     check=ok_cli(r"accuracy"))
case("cli predict with unseen levels warns", lambda: _cli("predict", PATHS["model"],
                                                          PATHS["new_levels"]),
     check=lambda r: r["exit_code"] == 0 and re.search(
         r"warning: column 'smoker' has 2 value\(s\) not seen at fit time: '1', 'Yes'",
         r["stderr"]) is not None and len(r["stdout"].splitlines()) == 5)
case("cli export --max-depth -1", lambda: _cli("export", PATHS["model"], "--max-depth", "-1"),
     check=cli_error(r"--max-depth must be an int >= 0 or 'all', got '-1'"))
case("cli export --max-depth all", lambda: _cli("export", PATHS["model"], "--max-depth", "all"),
     check=ok_cli())
case("cli predict --strict with unseen levels", lambda: _cli(
    "predict", PATHS["model"], PATHS["new_levels"], "--strict"),
    check=cli_error(r"column 'smoker' has 2 value\(s\) not seen"))
case("cli compare shows the reference rows", lambda: _cli(
    "compare", "sklearn:iris", "--methods", "cart,majority,sklearn-cart", "--repeats", "2",
    "--jobs", "1", "--out-dir", PATHS["out_dir"]),
    check=ok_cli(r"(?s)cart .*\nmajority .* 0\.500±0\.000 .*\nsklearn-cart "))


# -- the runner -------------------------------------------------------------------------------
def _child(index, connection):
    outcome = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = {"kind": "ok", "value": CASES[index].run()}
        except Exception as error:  # noqa: BLE001 - the catalogue records every failure
            outcome = {"kind": "error", "type": type(error).__name__, "message": str(error)}
    outcome["warnings"] = [str(w.message) for w in caught]
    try:
        json.dumps(outcome["value"]) if outcome["kind"] == "ok" else None
    except TypeError:
        outcome["value"] = repr(outcome["value"])
    connection.send(outcome)
    connection.close()


def _make_files(folder: Path) -> None:
    import pandas as pd

    values = [str(v) for v in range(60)]
    values[7] = "?"
    pd.DataFrame({"x": values, "label": [v % 2 for v in range(60)]}).to_csv(
        folder / "stray.csv", index=False)
    (folder / "empty.csv").write_text("")
    pd.DataFrame({"x": [1, 2, 3], "label": ["a", None, "b"]}).to_csv(
        folder / "missing_target.csv", index=False)
    rng = np.random.default_rng(1)
    smoker = rng.choice(["yes", "no"], 200)
    x = rng.normal(size=200)
    pd.DataFrame({"smoker": smoker, "x": x,
                  "label": np.where((smoker == "yes") ^ (x > 0), "a", "b")}).to_csv(
        folder / "train.csv", index=False)
    pd.DataFrame({"smoker": ["Yes", "no", "1", "yes"], "x": [1.0, 1.0, 1.0, -1.0]}).to_csv(
        folder / "new_levels.csv", index=False)
    PATHS.update({name: str(folder / f"{name}.csv") for name in
                  ("stray", "empty", "missing_target", "train", "new_levels")})
    PATHS["model"] = str(folder / "model.json")
    PATHS["out_dir"] = str(folder / "compare")


def run_catalogue(folder: Path) -> dict:
    """Warm the kernels, then run every case in a forked child; returns id -> outcome."""
    import multiprocessing

    _make_files(folder)
    warm = _cli("fit", PATHS["train"], "--out", PATHS["model"], "--no-show-tree")
    assert warm["exit_code"] == 0, warm
    _C().fit(X, y_class).predict_proba(X)
    _R().fit(X, y_reg).predict(X)
    # What the CLI cases import or load, done once here instead of in every child.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401

    import treesmith.compare
    import treesmith.export
    import treesmith.plotting  # noqa: F401
    from treesmith.datasets import load_dataset

    load_dataset("sklearn:iris")
    context = multiprocessing.get_context("fork")
    results = {}
    for index, item in enumerate(CASES):
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(index, sender))
        process.start()
        sender.close()
        outcome = receiver.recv() if receiver.poll(TIMEOUT) else None
        process.join(5)
        if process.exitcode is None:
            process.kill()
            process.join()
            outcome = {"kind": "timeout"}
        elif outcome is None or process.exitcode != 0:
            outcome = {"kind": "crash", "exitcode": process.exitcode}
        results[item.id] = outcome
    return results


# -- pytest -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    report = folder / "report.json"
    env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    completed = subprocess.run([sys.executable, __file__, str(folder), str(report)], env=env,
                               capture_output=True, text=True, timeout=900, check=False)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(report.read_text())


def test_catalogue_has_at_least_60_cases():
    assert len(CASES) >= 60 and len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("item", CASES, ids=[c.id for c in CASES])
def test_hostile_input(item, catalogue):
    outcome = catalogue[item.id]
    assert outcome["kind"] in ("ok", "error"), f"{item.id}: {outcome}"
    if item.error is not None:
        error_type, pattern = item.error
        assert outcome["kind"] == "error", f"expected {error_type}, got {outcome}"
        assert outcome["type"] == error_type, outcome
        assert re.search(pattern, outcome["message"]), outcome["message"]
        return
    assert outcome["kind"] == "ok", f"{outcome.get('type')}: {outcome.get('message')}"
    assert item.check(outcome["value"]), outcome["value"]
    if item.warns is not None:
        assert any(re.search(item.warns, text) for text in outcome["warnings"]), outcome


def test_broken_pipe_is_quiet(tmp_path):
    """``treesmith predict … | head -3`` stops quietly: no 'Broken pipe', exit code 0."""
    import pandas as pd

    rows = pd.DataFrame({"x": np.arange(30_000) % 7, "label": np.arange(30_000) % 2})
    rows.to_csv(tmp_path / "big.csv", index=False)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    command = [sys.executable, "-m", "treesmith.cli"]
    fitted = subprocess.run(command + ["fit", str(tmp_path / "big.csv"), "--max-depth", "2",
                                       "--no-show-tree", "--out", str(tmp_path / "m.json")],
                            env=env, capture_output=True, text=True, check=False)
    assert fitted.returncode == 0, fitted.stderr
    predictor = subprocess.Popen(command + ["predict", str(tmp_path / "m.json"),
                                            str(tmp_path / "big.csv")],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = [predictor.stdout.readline() for _ in range(3)]
    predictor.stdout.close()
    stderr = predictor.stderr.read().decode()
    assert predictor.wait(timeout=120) == 0, stderr
    assert head[0].strip() == b"prediction" and "Broken pipe" not in stderr, stderr


if __name__ == "__main__":
    folder, report = Path(sys.argv[1]), Path(sys.argv[2])
    tempfile.tempdir = str(folder)
    report.write_text(json.dumps(run_catalogue(folder)))
