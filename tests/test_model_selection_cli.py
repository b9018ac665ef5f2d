"""``treesmith tune``: the CLI face of learn_parameters."""

import csv

import numpy as np
import pytest
from typer.testing import CliRunner

from treesmith.cli import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_tune_learns_over_the_folds_of_several_datasets_and_writes_the_surface(tmp_path):
    result = invoke("tune", "sklearn:iris", "sklearn:wine", "--param", "criterion=tsallis",
                    "--param", "max_depth=3", "--grid", "alpha=0.5:2.5:1", "beta=1:2:1",
                    "--cv", 3, "--jobs", 1, "--out-dir", tmp_path)
    assert result.exit_code == 0, result.output
    assert "6 instances · 6 points" in result.stdout
    with open(tmp_path / "surface.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [(float(r["criterion__alpha"]), int(r["criterion__beta"])) for r in rows] == [
        (0.5, 1), (0.5, 2), (1.5, 1), (1.5, 2), (2.5, 1), (2.5, 2)]
    losses = np.array([[float(r[f"loss_{i}"]) for i in range(6)] for r in rows])
    np.testing.assert_allclose(losses.mean(axis=1), [float(r["mean_loss"]) for r in rows])
    best = min(rows, key=lambda r: float(r["mean_loss"]))
    assert f"'criterion__alpha': {float(best['criterion__alpha'])}" in result.stdout
    assert (tmp_path / "surface.png").stat().st_size > 1000


def test_tune_exact_ccp_alpha_and_pruning_ray(tmp_path):
    result = invoke("tune", "sklearn:wine", "--grid", "ccp_alpha=exact", "--cv", 3,
                    "--jobs", 1, "--out-dir", tmp_path)
    assert result.exit_code == 0, result.output
    assert "ccp_alpha" in result.stdout
    ray = invoke("tune", "sklearn:wine", "--grid", "pruning=ray:1,1", "--scoring",
                 "explainability", "--eta", 0.01, "--cv", 3, "--jobs", 1, "--out-dir", tmp_path)
    assert ray.exit_code == 0, ray.output
    assert "pruning__c1" in ray.stdout and "error + 0.01 * leaves" in ray.stdout


def test_tune_help_has_examples():
    result = invoke("tune", "--help")
    assert result.exit_code == 0 and "$ treesmith tune" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["sklearn:iris"], "give at least one --grid"),
    (["alpha=1:2:1"], "give at least one dataset"),
    (["sklearn:iris", "--grid", "alpha=3:1:1"], "needs low <= high"),
    (["sklearn:iris", "--grid", "max_depth=1:2"], "write low:high:step"),
    (["sklearn:iris", "--grid", "alpha=1,2"], "no parameter 'alpha'"),
    (["sklearn:iris", "--param", "criterion=tsallis", "--grid", "beta=1:3:0.5"], "beta"),
    (["sklearn:iris", "sklearn:diabetes", "--grid", "max_depth=1,2"], "mix classification"),
    # the second item replaced the first, and the grid the fixed value, without a word
    (["sklearn:iris", "--grid", "max_depth=1,2", "--grid", "max_depth=3"],
     "searches 'max_depth' twice"),
    (["sklearn:iris", "--param", "criterion=tsallis", "--grid", "alpha=1,2",
      "criterion__alpha=3"], "searches 'criterion__alpha' twice"),
    (["sklearn:iris", "--param", "max_depth=3", "--grid", "max_depth=1,2"],
     "'max_depth' is both fixed (--param) and searched"),
    (["sklearn:iris", "--grid", "max_depth=1,2", "--scheduler", "tcp://127.0.0.1:9"],
     "no dask scheduler answers"),
])
def test_tune_errors_are_one_line(args, message):
    result = runner.invoke(app, ["tune", *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.stderr
