"""The ``treesmith`` command line end to end: fit -> predict -> export, compare, errors."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import treesmith
from treesmith import io
from treesmith.cli import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)



@pytest.mark.parametrize("make", ["DecisionTreeClassifier", "GreedyTreeClassifier",
                                  "BudgetForestClassifier"])
def test_predict_a_model_saved_from_python_with_categorical_columns(tmp_path, make):
    """A model fitted in Python on text, integer-category and boolean columns and saved with
    io.save has no CLI metadata: `predict` read its categorical columns as numeric ones and
    refused them ("must be numeric, as it was at fit time"). Its categorical columns are now
    passed as the CSV holds them (text stripped when the categories are text)."""
    from treesmith import ensemble

    rng = np.random.default_rng(1)
    n = 120
    frame = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n),
                          "grade": pd.Categorical(rng.integers(1, 4, n)),
                          "flag": rng.random(n) < 0.5, "age": rng.integers(20, 80, n)})
    y = np.where((frame["colour"] == "red") | (frame["grade"] == 3), 1, 0)
    cls = getattr(treesmith, make, None) or getattr(ensemble, make)
    model = cls(random_state=0).fit(frame, y)
    assert model.categories_[0].tolist() == ["blue", "green", "red"]
    model_path, csv = tmp_path / "model.json", tmp_path / "rows.csv"
    io.save(model, model_path)
    frame.to_csv(csv, index=False)
    result = invoke("predict", model_path, csv)
    assert result.exit_code == 0, result.output
    assert "not seen at fit time" not in result.stderr
    labels = pd.read_csv(pd.io.common.StringIO(result.stdout))["prediction"]
    np.testing.assert_array_equal(labels, model.predict(frame))


def test_predict_a_model_fitted_on_an_array_with_a_categorical_column(tmp_path):
    """Fitted on an object array (no column names) with categorical_features=[0] and saved
    from Python: `predict` read every CSV column as float and failed on the text."""
    rng = np.random.default_rng(2)
    X = np.c_[rng.choice(["a", "b", "c"], 80).astype(object), rng.normal(size=80)]
    y = (X[:, 0] == "a").astype(int)
    model = treesmith.DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    model_path, csv = tmp_path / "model.json", tmp_path / "rows.csv"
    io.save(model, model_path)
    pd.DataFrame(X, columns=["c", "x"]).to_csv(csv, index=False)
    result = invoke("predict", model_path, csv)
    assert result.exit_code == 0, result.output
    labels = pd.read_csv(pd.io.common.StringIO(result.stdout))["prediction"]
    np.testing.assert_array_equal(labels, model.predict(X))


def test_predict_keeps_the_spaces_of_text_categories_fitted_with_them(tmp_path):
    """A model fitted in Python on text whose categories are 'Nice ' and 'Nice' (two
    categories, as Python compares text): `predict` stripped the CSV's text, as for a model
    the CLI fitted, and 'Nice ' became the other category without a word."""
    cities = np.array(["Nice ", "Nice", "Lyon"])[np.arange(90) % 3]
    frame = pd.DataFrame({"city": cities, "x": np.arange(90.0) % 7})
    y = (cities == "Nice ").astype(int)
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(frame, y)
    model_path, csv = tmp_path / "model.json", tmp_path / "rows.csv"
    io.save(model, model_path)
    frame.to_csv(csv, index=False)
    result = invoke("predict", model_path, csv, "--strict")
    assert result.exit_code == 0, result.output
    labels = pd.read_csv(pd.io.common.StringIO(result.stdout))["prediction"]
    np.testing.assert_array_equal(labels, y)


@pytest.mark.parametrize("named", [True, False], ids=["frame", "array"])
def test_predict_a_model_fitted_on_a_float32_categorical_column(tmp_path, named):
    """Fitted in Python on a float32 column of categories 0.1, 0.2, ... (stored as
    0.10000000149011612, ...): the CSV holds 0.1, which `predict` reads as float64, and every
    row was an unseen category (a warning, the missing side). Compared in the fitted precision
    now: no warning, the predictions of the training frame."""
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, 120)
    values = np.array([0.1, 0.2, 0.3, 1.7], dtype=np.float32)[codes]
    values[::9] = np.nan
    frame = pd.DataFrame({"c": values, "x": rng.normal(size=120).astype(np.float32)})
    y = (codes % 2 == 0).astype(int)
    X = frame if named else frame.to_numpy()
    model = treesmith.DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    model_path, csv = tmp_path / "model.json", tmp_path / "rows.csv"
    io.save(model, model_path)
    frame.to_csv(csv, index=False)
    assert "0.1," in csv.read_text()  # the text of the float32, read back as float64
    result = invoke("predict", model_path, csv, "--strict")
    assert result.exit_code == 0, result.output
    labels = pd.read_csv(pd.io.common.StringIO(result.stdout))["prediction"]
    np.testing.assert_array_equal(labels, model.predict(X))


@pytest.fixture(scope="module")
def iris_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "iris.json"
    result = invoke("fit", "sklearn:iris", "--max-depth", 3, "--out", path)
    assert result.exit_code == 0, result.output
    return path, result


def test_help_everywhere_has_examples():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("fit", "predict", "export", "compare", "datasets", "methods"):
        assert command in result.stdout
        sub = invoke(command, "--help")
        assert sub.exit_code == 0 and "Examples" in sub.stdout and "$ treesmith" in sub.stdout


def test_fit_prints_scores_and_tree_and_saves_the_model(iris_model):
    path, result = iris_model
    out = result.stdout
    for label in ("accuracy", "ROC AUC", "expected tests per example", "leaves", "depth"):
        assert label in out
    assert "trained on 112 rows, scored on 38 held-out rows" in out
    assert "|--- petal" in out and "class: setosa" in out
    model, metadata = io.load(path, return_metadata=True)
    assert metadata["dataset"] == "sklearn:iris" and metadata["method"] == "cart"
    assert model.get_params()["max_depth"] == 3
    # The printed accuracy is the model's on the same stratified split.
    from sklearn.model_selection import train_test_split

    X, y = treesmith.load_dataset("sklearn:iris")
    _, X_test, _, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    accuracy = np.mean(model.predict(X_test) == y_test)
    assert f"{accuracy:.4f}" in out


def test_predict_round_trip(iris_model, tmp_path):
    path, _ = iris_model
    result = invoke("predict", path, "sklearn:iris", "--proba")
    assert result.exit_code == 0
    predictions = pd.read_csv(pd.io.common.StringIO(result.stdout))
    X, _ = treesmith.load_dataset("sklearn:iris")
    model = treesmith.load(path)
    np.testing.assert_array_equal(predictions["prediction"], model.predict(X))
    np.testing.assert_allclose(predictions[["p(setosa)", "p(versicolor)", "p(virginica)"]],
                               model.predict_proba(X))
    assert result.stderr.startswith("accuracy ")
    out_file = tmp_path / "predictions.csv"
    assert invoke("predict", path, "sklearn:iris", "--out", out_file).exit_code == 0
    assert list(pd.read_csv(out_file).columns) == ["prediction"]


def test_export_every_format(iris_model, tmp_path):
    path, _ = iris_model
    model = treesmith.load(path)
    text = invoke("export", path).stdout
    assert text == treesmith.export_text(model)
    rules = invoke("export", path, "--rules").stdout
    assert len(rules.splitlines()) == model.tree_.n_leaves and rules.startswith("IF ")
    dot = invoke("export", path, "--format", "dot").stdout
    assert dot == treesmith.export_graphviz(model)
    document = invoke("export", path, "--format", "json").stdout
    loaded, metadata = io.loads(document)
    assert metadata["dataset"] == "sklearn:iris"
    X, _ = treesmith.load_dataset("sklearn:iris")
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    picture = tmp_path / "tree.png"
    result = invoke("export", path, "--format", "png", "--out", picture)
    assert result.exit_code == 0 and picture.exists()
    height, width, _ = matplotlib.image.imread(picture).shape
    assert width > 400 and height > 200
    assert invoke("export", path, "--format", "dot", "--out", tmp_path / "t.dot").exit_code == 0
    assert (tmp_path / "t.dot").read_text() == dot


def test_csv_with_target_costs_and_criterion(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    frame = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n),
                          "weight": rng.normal(70, 10, n).round(1),
                          "age": rng.integers(20, 80, n)})
    frame["outcome"] = np.where((frame["colour"] == "red") | (frame["age"] > 60), "sick", "well")
    frame["note"] = "x"
    csv = tmp_path / "patients.csv"
    frame.drop(columns="note").to_csv(csv, index=False)
    costs = tmp_path / "costs.csv"
    costs.write_text("feature,cost\ncolour,5\nage,2\n")
    model_path = tmp_path / "model.json"
    result = invoke("fit", csv, "--target", "outcome", "--costs", costs, "--cost", "weight=9",
                    "--criterion", "tsallis:alpha=2.5,beta=2", "--out", model_path)
    assert result.exit_code == 0, result.output
    assert "expected cost per example (cost units)" in result.stdout
    assert "[cost 5]" in result.stdout or "[cost 2]" in result.stdout
    model, metadata = io.load(model_path, return_metadata=True)
    assert model.get_params()["criterion"] == treesmith.criteria.Tsallis(alpha=2.5, beta=2)
    # Native categorical splits by default: one column per source column.
    assert list(model.feature_names_in_) == ["colour", "weight", "age"]
    assert model.categories_[0].tolist() == ["blue", "green", "red"]
    assert metadata["feature_costs"] == [5, 9, 2] and metadata["encoding"] == "native"
    predicted = invoke("predict", model_path, csv)
    assert predicted.exit_code == 0 and predicted.stderr.startswith("accuracy ")
    labels = pd.read_csv(pd.io.common.StringIO(predicted.stdout))["prediction"]
    X, _ = treesmith.load_dataset(str(csv), target="outcome", encode="native")
    np.testing.assert_array_equal(labels, model.predict(X))
    assert "[cost 5]" in invoke("export", model_path).stdout
    # One-hot encoding stays available (complexity-aware protocols count indicator columns).
    result = invoke("fit", csv, "--target", "outcome", "--costs", costs, "--cost", "weight=9",
                    "--encoding", "one-hot", "--out", model_path)
    assert result.exit_code == 0, result.output
    model, metadata = io.load(model_path, return_metadata=True)
    assert list(model.feature_names_in_) == ["colour=blue", "colour=green", "colour=red",
                                             "weight", "age"]
    assert metadata["feature_costs"] == [5, 5, 5, 9, 2]
    # Predicting raw rows (categorical text, target present) encodes them as at fit time.
    predicted = invoke("predict", model_path, csv)
    assert predicted.exit_code == 0 and predicted.stderr.startswith("accuracy ")
    labels = pd.read_csv(pd.io.common.StringIO(predicted.stdout))["prediction"]
    X, _ = treesmith.load_dataset(str(csv), target="outcome")
    np.testing.assert_array_equal(labels, model.predict(X))


def test_regression_and_categorical_bundled_data(tmp_path):
    regression = tmp_path / "diabetes.json"
    result = invoke("fit", "sklearn:diabetes", "--max-depth", 3, "--criterion", "poisson",
                    "--no-show-tree", "--out", regression)
    assert result.exit_code == 0, result.output
    assert "R²" in result.stdout and "RMSE" in result.stdout and "|---" not in result.stdout
    predicted = invoke("predict", regression, "sklearn:diabetes")
    assert predicted.exit_code == 0 and predicted.stderr.startswith("R² ")
    X, _ = treesmith.load_dataset("sklearn:diabetes")
    values = pd.read_csv(pd.io.common.StringIO(predicted.stdout))["prediction"]
    np.testing.assert_allclose(values, treesmith.load(regression).predict(X), rtol=1e-15)
    votes = tmp_path / "votes.json"
    assert invoke("fit", "keel:housevotes", "--test-size", 0, "--out", votes).exit_code == 0
    predicted = invoke("predict", votes, "keel:housevotes")
    X, y = treesmith.load_dataset("keel:housevotes", encode="native")
    labels = pd.read_csv(pd.io.common.StringIO(predicted.stdout))["prediction"]
    np.testing.assert_array_equal(labels, treesmith.load(votes).predict(X))
    assert predicted.stderr == f"accuracy {np.mean(labels.to_numpy() == y):.4f} on 232 rows\n"


def test_compare_writes_table_csv_markdown_and_plot(tmp_path):
    out_dir = tmp_path / "report"
    result = invoke("compare", "sklearn:iris", "--repeats", 2, "--jobs", 1, "--out-dir",
                    out_dir)
    assert result.exit_code == 0, result.output
    assert "cart-pruned" in result.stdout and "E[cost]*" in result.stdout
    summary = pd.read_csv(out_dir / "summary.csv")
    assert list(summary["method"]) == treesmith.compare.available_methods()
    assert (summary["n_repeats"] == 2).all()
    assert {"accuracy_mean", "accuracy_std", "roc_auc_mean", "expected_cost_mean",
            "n_leaves_mean", "depth_mean", "fit_time_mean"} <= set(summary.columns)
    runs = pd.read_csv(out_dir / "runs.csv")
    assert len(runs) == 2 * len(summary)
    markdown = (out_dir / "summary.md").read_text()
    assert "| method | accuracy | ROC AUC | expected tests per example (unit costs) |" in markdown
    image = matplotlib.image.imread(out_dir / "accuracy_vs_cost.png")
    assert image.shape[0] > 300 and image.shape[1] > 500


@pytest.mark.parametrize("args, message", [
    (["fit", "sklearn:irsi"], "did you mean sklearn:iris"),
    (["fit", "sklearn:iris", "--method", "id3"], "unknown method 'id3'"),
    (["fit", "sklearn:iris", "--criterion", "gina"], "unknown criterion 'gina'"),
    (["fit", "sklearn:iris", "--criterion", "tsallis:alpha"], "key=value"),
    (["fit", "sklearn:iris", "--cost", "petal=3"], "unknown column 'petal'"),
    (["fit", "sklearn:iris", "--cost", "petal length (cm)=-1"], ">= 0"),
    (["fit", "sklearn:diabetes", "--method", "c45"], "regression dataset"),
    (["compare", "sklearn:diabetes"], "classification dataset"),
    (["compare", "sklearn:iris", "--methods", "cart,nope"], "unknown method 'nope'"),
    (["predict", "missing.json", "sklearn:iris"], "No such file"),
    # a folder ('' is '.') or a binary file: "[Errno 21] Is a directory: '.'" and "'utf-8'
    # codec can't decode byte 0x80", neither naming --costs
    (["fit", "sklearn:iris", "--costs", ""], "cannot read the --costs file '.'"),
    (["fit", "sklearn:iris", "--costs", Path(__file__).parent], "cannot read the --costs file"),
    # joblib's "n_jobs == 0 in Parallel has no meaning"; 10**20 "Python int too large to
    # convert to C int"; 10**20 repeats a MemoryError after 80 s
    (["compare", "sklearn:iris", "--methods", "cart", "--jobs", "0"], "n_jobs must be None or"),
    # the last of a key given twice silently won
    (["fit", "sklearn:iris", "--criterion", "tsallis:alpha=2.5,alpha=3"],
     "'alpha' is given twice in 'tsallis:alpha=2.5,alpha=3'"),
    (["fit", "sklearn:iris", "--pruning", "c45:confidence_factor=0.1,confidence_factor=0.2"],
     "'confidence_factor' is given twice"),
    (["fit", "sklearn:iris", "--class-weight", "setosa=2,setosa=3"],
     "'setosa' is given twice in 'setosa=2,setosa=3'"),
    (["compare", "sklearn:iris", "--methods", "cart", "--repeats", "99999999999999999999"],
     "n_repeats=99999999999999999999 splits from random_state=0 need seeds up to"),
])
def test_errors_are_one_line_with_exit_code_2(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith("treesmith: error: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_binary_costs_file_is_named(tmp_path):
    costs = tmp_path / "costs.csv"
    costs.write_bytes(bytes(range(256)))
    result = invoke("fit", "sklearn:iris", "--costs", costs, "--no-show-tree")
    assert result.exit_code == 2 and "cannot read the --costs file" in result.stderr
    assert "codec can't decode" in result.stderr


def test_png_export_is_png_whatever_the_out_suffix(iris_model, tmp_path):
    """matplotlib guessed the format from --out: tree.txt raised "Format 'txt' is not
    supported"."""
    path, _ = iris_model
    result = invoke("export", path, "--format", "png", "--out", tmp_path / "tree.txt")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "tree.txt").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_model_files_and_formats(iris_model, tmp_path):
    path, _ = iris_model
    header_only = tmp_path / "header.csv"  # predict reported scikit-learn's "0 sample(s)"
    header_only.write_text(",".join(f"x{j}" for j in range(4)) + "\n")
    result = invoke("predict", path, header_only)
    assert result.exit_code == 2 and "has no data rows" in result.stderr
    broken = tmp_path / "broken.json"
    broken.write_text(path.read_text()[:200])
    result = invoke("export", broken)
    assert result.exit_code == 2 and "not valid JSON" in result.stderr
    result = invoke("export", path, "--format", "svg")
    assert result.exit_code == 2 and "--format must be" in result.stderr
    usage = invoke("fit")  # click's own usage error: also exit code 2
    assert usage.exit_code == 2


def test_listings():
    names = invoke("datasets").stdout.split()
    assert names[:5] == treesmith.list_datasets("sklearn") and "keel:pima" in names
    assert invoke("datasets", "--source", "nope").exit_code == 2
    assert "cart-pruned" in invoke("methods").stdout


def test_readme_style_run_as_a_subprocess(tmp_path):
    """The installed script (or ``python -m treesmith.cli``), in parallel mode, as users run it."""
    script = shutil.which("treesmith")
    command = [script] if script else [sys.executable, "-m", "treesmith.cli"]
    completed = subprocess.run(
        command + ["compare", "sklearn:iris", "--repeats", "2", "--jobs", "2", "--out-dir",
                   str(tmp_path)], capture_output=True, text=True, timeout=300, check=False)
    assert completed.returncode == 0, completed.stderr
    assert "cart" in completed.stdout and (tmp_path / "summary.md").exists()
    failed = subprocess.run([sys.executable, "-m", "treesmith.cli", "fit", "nowhere.csv"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert failed.returncode == 2
    assert failed.stderr == "treesmith: error: dataset file 'nowhere.csv' does not exist\n"


@pytest.fixture(scope="module")
def deep_model(tmp_path_factory):
    """A saved tree deeper than TEXT_MAX_DEPTH (random labels grow a deep tree)."""
    from treesmith import io
    from treesmith.export import TEXT_MAX_DEPTH

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(600, 4)), rng.integers(0, 2, 600)
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    assert model.get_depth() > TEXT_MAX_DEPTH
    path = tmp_path_factory.mktemp("deep") / "deep.json"
    io.save(model, path)
    return path, model


def test_export_follows_the_library_default_depth(deep_model):
    path, model = deep_model
    assert invoke("export", path).stdout == treesmith.export_text(model)
    assert "truncated" in invoke("export", path).stdout
    assert invoke("export", path, "--rules").stdout == treesmith.export_text(model, rules=True)
    assert invoke("export", path, "--max-depth", "all").stdout == treesmith.export_text(
        model, max_depth=None)
    assert invoke("export", path, "--max-depth", "2").stdout == treesmith.export_text(
        model, max_depth=2)
    assert invoke("export", path, "--format", "dot").stdout == treesmith.export_graphviz(model)


@pytest.mark.parametrize("value", ["-1", "deep", "2.5"])
def test_export_rejects_a_bad_max_depth(deep_model, value):
    result = invoke("export", deep_model[0], "--max-depth", value)
    assert result.exit_code == 2
    assert "--max-depth must be an int >= 0 or 'all'" in result.output


def test_several_target_columns_are_refused_as_multi_output(tmp_path):
    path = tmp_path / "two_targets.csv"
    pd.DataFrame({"x": np.arange(20.0), "y": np.arange(20) % 2,
                  "z": np.arange(20) % 3}).to_csv(path, index=False)
    result = invoke("fit", path, "--target", "y,z")
    assert result.exit_code == 2
    assert "multi-output targets are not supported" in result.stderr


def test_warnings_are_one_line_each_when_run_as_a_command(tmp_path):
    """Python printed the fit's warnings as 'path/estimators.py:595: UserWarning: …' plus the
    source line, and an unseen-category warning once per predict call."""
    import os
    from pathlib import Path

    rng = np.random.default_rng(0)
    path = tmp_path / "with_id.csv"
    pd.DataFrame({"id": [f"id{i}" for i in range(120)], "x": rng.normal(size=120),
                  "y": np.arange(120) % 2}).to_csv(path, index=False)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    completed = subprocess.run([sys.executable, "-m", "treesmith.cli", "fit", str(path)],
                               capture_output=True, text=True, timeout=300, check=False,
                               env=env)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stderr.splitlines()
    assert lines and all(line.startswith("treesmith: warning: ") for line in lines), lines
    assert sum("not seen at fit time" in line for line in lines) == 1
    assert any("'id' (90 categories)" in line for line in lines)


def _city_frame(n=240, seed=0):
    """A categorical 'city' column (the labels depend on it), an integer 'age' and noise."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"city": pd.Categorical(rng.choice(["Nice", "Lyon", "Pau", "Brest"],
                                                            n)),
                          "age": rng.integers(18, 80, n).astype(float),
                          "noise": rng.normal(size=n)})
    y = (frame["city"].isin(["Nice", "Lyon"]).to_numpy() ^ (frame["age"] > 60).to_numpy())
    return frame, y.astype(int)


FORESTS = {
    "RandomForestClassifier": dict(n_estimators=3, max_depth=3, random_state=0),
    "ExtraTreesClassifier": dict(n_estimators=3, max_depth=3, random_state=0),
    "RandomForestRegressor": dict(n_estimators=2, max_depth=3, random_state=0),
    "ExtraTreesRegressor": dict(n_estimators=2, max_depth=3, random_state=0),
    "BudgetForestClassifier": dict(alphas=[0], max_estimators=3, feature_costs=[1, 2, 5],
                                   random_state=0),
}


@pytest.fixture(scope="module", params=list(FORESTS))
def saved_forest(request, tmp_path_factory):
    from treesmith import ensemble

    frame, y = _city_frame()
    model = getattr(ensemble, request.param)(**FORESTS[request.param]).fit(frame, y)
    path = tmp_path_factory.mktemp("forest") / "forest.json"
    io.save(model, path)
    return path, model


def test_export_summarises_a_forest_and_says_how_to_export_one_tree(saved_forest):
    """`treesmith export forest.json` refused forests ("estimator must be a fitted treesmith
    estimator (with a tree_)"); it now prints each tree's depth, leaves and features, and
    the command that exports one."""
    from treesmith.export import forest_summary

    path, model = saved_forest
    result = invoke("export", path)
    assert result.exit_code == 0, result.output
    n_trees = len(model.estimators_)
    assert result.stdout.startswith(f"{type(model).__name__}: {n_trees} trees on 3 features")
    assert result.stdout == forest_summary(treesmith.load(path)) + (
        f"To export one tree: treesmith export {path} --tree I (I from 0 to {n_trees - 1}), "
        "with --rules, --format dot or --format png.\n")
    rows = [line.split() for line in result.stdout.splitlines()[2:2 + n_trees]]
    for i, (row, member) in enumerate(zip(rows, model.estimators_)):
        assert row[:4] == [str(i), str(member.get_depth()), str(member.get_n_leaves()),
                           str(member.get_n_leaves() - 1)]
    if type(model).__name__ == "BudgetForestClassifier":
        assert "feature costs: city 1, age 2, noise 5" in result.stdout
        assert "on its validation rows: average cost" in result.stdout


def test_export_one_tree_of_a_forest_with_category_names(saved_forest, tmp_path):
    """--tree I exports member I as text, rules, DOT or JSON, with the column names and the
    categories by name (``city in {...}``), as for a single tree."""
    path, model = saved_forest
    n_trees = len(model.estimators_)
    last = max(i for i, tree in enumerate(model.estimators_) if 0 in tree.tree_.feature)
    member = treesmith.load(path).estimators_[last]  # a tree that splits on 'city'
    text = invoke("export", path, "--tree", last).stdout
    heading = f"# tree {last} of the {n_trees} in this {type(model).__name__}\n"
    assert text == heading + treesmith.export_text(member)
    rules = invoke("export", path, "--tree", last, "--rules").stdout
    assert rules == heading + treesmith.export_text(member, rules=True)
    dot = invoke("export", path, "--tree", last, "--format", "dot").stdout
    assert dot == treesmith.export_graphviz(member)
    for output in (text, dot):
        assert "city in {" in output
        assert re.search(r"city in \{\d", output) is None  # names, never codes
    assert "feature_0" not in text
    document = invoke("export", path, "--tree", last, "--format", "json").stdout
    alone, _ = io.loads(document)
    frame, _ = _city_frame(40, seed=1)
    np.testing.assert_array_equal(alone.predict(frame), model.estimators_[last].predict(frame))


@pytest.mark.parametrize("args, message", [
    (["--format", "dot"], r"--format dot shows one tree, and this \w+ holds \d+: choose it "
                          r"with --tree I \(0 to \d+\)"),
    (["--format", "png"], r"--format png shows one tree.*--tree I"),
    (["--rules"], r"--rules shows one tree.*--tree I"),
    (["--max-depth", "2"], r"--max-depth 2 shows one tree.*--tree I"),
    (["--tree", "9"], r"--tree 9 is out of range: this \w+ holds \d+ trees, 0 to \d+"),
    (["--tree", "-1"], r"--tree -1 is out of range"),
])
def test_what_needs_one_tree_of_a_forest_says_so(saved_forest, args, message):
    result = invoke("export", saved_forest[0], *args)
    assert result.exit_code == 2
    assert re.search(message, result.stderr), result.stderr


def test_export_draws_one_tree_of_a_forest(tmp_path):
    from treesmith import ensemble

    frame, y = _city_frame()
    path = tmp_path / "forest.json"
    io.save(ensemble.RandomForestClassifier(n_estimators=2, max_depth=2, random_state=0).fit(
        frame, y), path)
    result = invoke("export", path, "--tree", 1, "--format", "png")
    assert result.exit_code == 0, result.output
    image = matplotlib.image.imread(tmp_path / "forest-tree1.png")
    assert image.shape[0] > 100


def test_a_single_tree_is_tree_0_of_1(iris_model):
    path, _ = iris_model
    assert invoke("export", path, "--tree", 0).stdout == treesmith.export_text(
        treesmith.load(path))
    result = invoke("export", path, "--tree", 1)
    assert result.exit_code == 2
    assert "--tree 1 is out of range: this DecisionTreeClassifier is a single tree, --tree 0" \
        in result.stderr


def test_export_shows_the_model_files_metadata_costs_as_fit_reported_them(tmp_path):
    """`treesmith export` ignored the metadata feature_costs of any model with fitted
    feature_costs_ (every treesmith tree has them, unit costs by default), so a model saved
    from Python with the data's costs in its metadata was exported without them. The
    metadata's costs (those `fit --costs` reports its expected cost with) now win; a model
    fitted with other costs says so on stderr."""
    X, y = treesmith.load_dataset("sklearn:iris").X, treesmith.load_dataset("sklearn:iris").y
    costs = [1.0, 2.0, 10.0, 5.0]
    unit = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    io.save(unit, tmp_path / "unit.json", metadata={"feature_costs": costs})
    result = invoke("export", tmp_path / "unit.json")
    assert result.exit_code == 0, result.output
    assert result.stdout == treesmith.export_text(unit, feature_costs=costs)
    assert "[cost 10]" in result.stdout and "note" not in result.stderr

    other = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0,
                                             feature_costs=[3.0, 3.0, 3.0, 3.0]).fit(X, y)
    io.save(other, tmp_path / "other.json", metadata={"feature_costs": costs})
    result = invoke("export", tmp_path / "other.json")
    assert result.exit_code == 0, result.output
    assert "[cost 3]" not in result.stdout and "[cost 10]" in result.stdout
    assert "metadata feature_costs" in result.stderr
    io.save(other, tmp_path / "plain.json")  # no metadata costs: the fitted ones
    assert "[cost 3]" in invoke("export", tmp_path / "plain.json").stdout

    forest = treesmith.RandomForestClassifier(n_estimators=2, max_depth=2,
                                              random_state=0).fit(X, y)
    io.save(forest, tmp_path / "forest.json", metadata={"feature_costs": costs})
    result = invoke("export", tmp_path / "forest.json")
    assert result.exit_code == 0, result.output
    assert "max cost" in result.stdout

    for bad in (["1", 2, 3, 4], [1, 2, 3], [1, 2, -3, 4], {"a": 1}):
        io.save(unit, tmp_path / "bad.json", metadata={"feature_costs": bad})
        result = invoke("export", tmp_path / "bad.json")
        assert result.exit_code == 2
        assert "metadata feature_costs must be a list of 4 finite numbers" in result.stderr


def test_a_class_with_one_example_is_named_for_the_test_split(tmp_path):
    """scikit-learn's 'The least populated classes in y have only 1 member...' came through,
    without saying what to do at the command line."""
    path = tmp_path / "single.csv"
    rows = [f"{k / 10},{k % 3},{'z' if k == 0 else k % 2}" for k in range(20)]
    path.write_text("a,b,y\n" + "\n".join(rows) + "\n")
    result = invoke("fit", path)
    assert result.exit_code == 2
    assert "class 'z' has a single example" in result.stderr and "--test-size 0" in result.stderr
    assert invoke("fit", path, "--test-size", "0").exit_code == 0
