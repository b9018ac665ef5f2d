"""treesmith.datasets: bundled sets read offline, CSV files, categorical encoding."""

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets as sk_datasets

from treesmith.datasets import (
    Dataset,
    UnseenLevelWarning,
    align_features,
    encode_features,
    list_datasets,
    load_dataset,
)


def test_list_datasets_names_every_source_once():
    names = list_datasets()
    assert names[:5] == ["sklearn:iris", "sklearn:wine", "sklearn:breast_cancer",
                         "sklearn:digits", "sklearn:diabetes"]
    assert len(names) == len(set(names))
    for expected in ("keel:pima", "keel:magic", "keel:splice", "keel:imbalanced/pima",
                     "keel:abalone19"):
        assert expected in names
    assert list_datasets("sklearn") == names[:5]
    assert all(name.startswith("keel:") for name in list_datasets("keel"))
    with pytest.raises(ValueError, match="source"):
        list_datasets("uci")


def test_every_listed_small_dataset_loads():
    # Each sklearn set and a sample of keel ones (all would take a few seconds more).
    for name in list_datasets("sklearn") + ["keel:pima", "keel:housevotes", "keel:imbalanced/pima"]:
        data = load_dataset(name)
        assert data.X.shape[0] == data.y.shape[0] > 0
        assert data.X.dtypes.map(lambda d: d == np.float64).all()
        assert data.name == name and data.description


@pytest.mark.parametrize("short", ["iris", "wine", "breast_cancer", "digits"])
def test_sklearn_sets_match_scikit_learn(short):
    data = load_dataset(f"sklearn:{short}")
    bunch = getattr(sk_datasets, f"load_{short}")()
    np.testing.assert_array_equal(data.X.to_numpy(), bunch.data)
    assert list(data.X.columns) == list(bunch.feature_names)
    assert data.task == "classification"
    # Labels are the class names where scikit-learn has text names.
    expected = np.asarray(bunch.target_names)[bunch.target]
    np.testing.assert_array_equal(data.y.astype(str), expected.astype(str))


def test_iris_unpacks_and_describes_itself():
    X, y = load_dataset("sklearn:iris")
    assert X.shape == (150, 4) and set(y) == {"setosa", "versicolor", "virginica"}
    data = load_dataset("iris")  # bare name: scikit-learn first
    assert data.name == "sklearn:iris" and "Iris" in data.description
    assert "150 samples" in data.description and "3 classes" in repr(data)


def test_diabetes_is_regression_in_original_units():
    data = load_dataset("sklearn:diabetes")
    assert data.task == "regression" and data.y.dtype == np.float64
    assert data.X["age"].min() >= 18  # scaled=False: years, not standardised values
    with pytest.raises(ValueError, match="regression dataset"):
        load_dataset("sklearn:diabetes", task="classification")


def test_keel_numeric_set_keeps_values_and_class_labels():
    data = load_dataset("keel:pima")
    assert data.X.shape == (768, 8) and list(data.X.columns) == [f"x{j}" for j in range(1, 9)]
    assert set(data.y) == {"tested_positive", "tested_negative"}
    assert data.X.iloc[0].tolist() == [14, 175, 62, 30, 0, 33.6, 0.212, 38]
    imbalanced = load_dataset("keel:imbalanced/pima")
    assert set(imbalanced.y) == {"positive", "negative"}


def test_keel_categorical_columns_are_one_hot_encoded():
    data = load_dataset("keel:housevotes")  # 16 yes/no votes: one indicator each
    assert list(data.X.columns) == [f"x{j}=y" for j in range(1, 17)]
    assert data.feature_groups["x1"] == ["x1=y"]
    assert set(np.unique(data.X.to_numpy())) == {0.0, 1.0}
    crx = load_dataset("keel:crx")  # mixed: numeric columns stay, x4 has three levels
    assert crx.feature_groups["x2"] == ["x2"]
    assert crx.feature_groups["x4"] == ["x4=l", "x4=u", "x4=y"]
    assert np.all(crx.X[crx.feature_groups["x4"]].sum(axis=1) == 1)
    splice = load_dataset("keel:splice")  # values written "A, G, ..." (spaces stripped)
    assert not any(" " in column for column in splice.X.columns)


def test_unknown_names_fail_with_suggestions():
    with pytest.raises(ValueError, match="did you mean keel:pima"):
        load_dataset("keel:pimaa")
    with pytest.raises(ValueError, match="did you mean sklearn:iris"):
        load_dataset("irsi")
    with pytest.raises(ValueError, match="unknown dataset"):
        load_dataset("keel:../balanced/pima")
    with pytest.raises(ValueError, match="does not exist"):
        load_dataset("missing-file.csv")
    with pytest.raises(ValueError, match="target= only applies"):
        load_dataset("sklearn:iris", target="species")
    with pytest.raises(TypeError, match="string or a path"):
        load_dataset(3)


def _write(tmp_path, frame, name="data.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def test_csv_with_categoricals_missing_values_and_default_target(tmp_path):
    frame = pd.DataFrame({"colour": ["red", "blue", None, "green", "red"],
                          "size": [1.5, np.nan, 3.0, 4.0, 5.0],
                          "smoker": ["yes", "no", "no", "yes", "no"],
                          "label": ["a", "b", "a", "b", "a"]})
    data = load_dataset(str(_write(tmp_path, frame)))
    assert data.task == "classification" and data.target_name == "label"
    assert list(data.X.columns) == ["colour=blue", "colour=green", "colour=red", "size",
                                    "smoker=yes"]
    assert data.feature_groups == {"colour": ["colour=blue", "colour=green", "colour=red"],
                                   "size": ["size"], "smoker": ["smoker=yes"]}
    np.testing.assert_array_equal(data.X["colour=red"], [1, 0, np.nan, 0, 1])
    np.testing.assert_array_equal(data.X["size"], [1.5, np.nan, 3.0, 4.0, 5.0])
    np.testing.assert_array_equal(data.y, ["a", "b", "a", "b", "a"])


def test_csv_target_by_name_and_task_inference(tmp_path):
    frame = pd.DataFrame({"y": [0.5, 1.7, 2.9, 3.1, 4.4], "x": [1, 2, 3, 4, 5],
                          "k": [0, 1, 2, 1, 0]})
    path = _write(tmp_path, frame)
    regression = load_dataset(path, target="y")
    assert regression.task == "regression" and list(regression.X.columns) == ["x", "k"]
    classification = load_dataset(path)  # last column: few integers -> classes
    assert classification.task == "classification" and classification.target_name == "k"
    assert load_dataset(path, target="y", task="regression").task == "regression"
    with pytest.raises(ValueError, match="target column 'z' is not in"):
        load_dataset(path, target="z")


def test_csv_errors_are_clear(tmp_path):
    path = _write(tmp_path, pd.DataFrame({"x": [1, 2], "y": ["a", None]}))
    with pytest.raises(ValueError, match="1 missing value"):
        load_dataset(path)
    one_column = _write(tmp_path, pd.DataFrame({"x": [1, 2]}), "one.csv")
    with pytest.raises(ValueError, match="at least one feature column"):
        load_dataset(one_column)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match="cannot read CSV"):
        load_dataset(tmp_path / "empty.csv")
    with pytest.raises(ValueError, match="task must be"):
        load_dataset(path, task="ranking")


def test_align_features_reproduces_the_encoding_on_new_rows():
    frame = pd.DataFrame({"a": ["x", "y", None, "z"], "b": [True, False, True, None],
                          "c": [1.0, 2.0, np.nan, 4.0]})
    X, _ = encode_features(frame)
    pd.testing.assert_frame_equal(align_features(frame, X.columns), X)
    # A subset of rows in another order, one level unseen at fit time: it becomes missing
    # (NaN in every indicator of its column), with a warning naming the column and value.
    new = pd.DataFrame({"c": [7.0, 8.0], "a": ["z", "w"], "b": [False, True]})
    with pytest.warns(UnseenLevelWarning, match=r"column 'a' .* 'w'"):
        aligned = align_features(new, X.columns)
    assert list(aligned.columns) == list(X.columns)
    np.testing.assert_array_equal(aligned.to_numpy(),
                                  [[0, 0, 1, 0, 7], [np.nan, np.nan, np.nan, 1, 8]])
    with pytest.raises(ValueError, match=r"column 'a' has 1 value\(s\) not seen"):
        align_features(new, X.columns, strict=True)
    with pytest.raises(ValueError, match="lacks 1 feature"):
        align_features(new.drop(columns=["c"]), X.columns)


def test_dataset_repr_for_regression():
    data = Dataset(name="n", X=pd.DataFrame({"a": [1.0, 2.0]}), y=np.array([1.0, 2.0]),
                   task="regression", description="d")
    assert repr(data) == "Dataset(name='n', task='regression', n_samples=2, n_features=1)"


def test_two_level_column_unseen_level_is_caught_with_the_training_levels(tmp_path):
    frame = pd.DataFrame({"smoker": ["yes", "no", "no", "yes"], "label": [1, 0, 0, 1]})
    data = load_dataset(str(_write(tmp_path, frame)))
    assert data.categories == {"smoker": ["no", "yes"]}
    new = pd.DataFrame({"smoker": ["Yes", "no", "1", None]})
    with pytest.warns(UnseenLevelWarning, match=r"'1', 'Yes'"):
        aligned = align_features(new, data.X.columns, data.categories)
    np.testing.assert_array_equal(aligned["smoker=yes"], [np.nan, 0, np.nan, np.nan])


def test_numeric_column_with_a_few_text_cells_is_an_error_naming_them(tmp_path):
    # Regression: one "?" turned a numeric column into one indicator per distinct value.
    values = [str(v) for v in range(60)]
    values[7] = "?"
    frame = pd.DataFrame({"x": values, "label": [v % 2 for v in range(60)]})
    path = _write(tmp_path, frame)
    with pytest.raises(ValueError, match=r"column 'x' holds numbers in 59 rows .*rows 7: '\?'"):
        load_dataset(path)
    data = load_dataset(path, na_values=["?"])
    assert list(data.X.columns) == ["x"] and np.isnan(data.X["x"][7])
    # An all-text column stays categorical; a text column of numbers is numeric.
    X, groups = encode_features(pd.DataFrame({"a": ["1", "2", " 3"], "b": ["p", "q", "7"]}))
    assert groups == {"a": ["a"], "b": ["b=7", "b=p", "b=q"]}
    np.testing.assert_array_equal(X["a"], [1.0, 2.0, 3.0])


@pytest.mark.parametrize("order", [["c", "c=x"], ["c=x", "c"]])
def test_an_indicator_name_taken_by_another_column_is_an_error(order):
    # a numeric column called "c=x" and the indicator of level x of column c would share a
    # name: the encoding refuses, in either column order, instead of keeping one of them
    frame = pd.DataFrame({"c": ["x", "y", "z", "x"], "c=x": [1.0, 2.0, 3.0, 4.0]})[order]
    with pytest.raises(ValueError, match="'c=x' twice"):
        encode_features(frame)


def test_several_target_columns_say_multi_output_is_not_supported(tmp_path):
    """target=["y", "z"] raised "unhashable type: 'list'", and the CLI's --target y,z said the
    column 'y,z' does not exist."""
    path = _write(tmp_path, pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [0, 1, 0],
                                          "z": [1, 1, 0]}))
    for target in (["y", "z"], ("y", "z"), "y,z", "y, z"):
        with pytest.raises(ValueError, match="multi-output targets are not supported"):
            load_dataset(path, target=target)
    assert load_dataset(path, target=["y"]).target_name == "y"
    with pytest.raises(ValueError, match="target column 'y,w' is not in"):
        load_dataset(path, target="y,w")


@pytest.mark.parametrize("kwargs, match", [
    # 1, 1.0 and 1+0j equal True: they were one-hot encoding
    ({"encode": 1}, r"^encode must be True/'one-hot', 'native' or False, got 1$"),
    ({"encode": 1 + 0j}, r"^encode must be"),
    ({"encode": np.array([True, False])}, r"^encode must be"),  # numpy's ambiguous truth
    ({"task": np.array(["regression"] * 2)}, r"^task must be 'classification' or 'regression'"),
    ({"task": "Classification"}, r"^task must be 'classification' or 'regression'"),
])
def test_hostile_loading_options_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        load_dataset("sklearn:iris", **kwargs)


def test_load_csv_checks_task_and_encode(tmp_path):
    """load_csv(task='bogus') returned a Dataset whose task was 'bogus'."""
    from treesmith.datasets import load_csv

    path = tmp_path / "d.csv"
    pd.DataFrame({"a": [1, 2, 3], "y": [0, 1, 0]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"^task must be 'classification' or 'regression', "
                                         r"got 'bogus'$"):
        load_csv(path, task="bogus")
    with pytest.raises(ValueError, match=r"^encode must be"):
        load_csv(path, encode=2)


def test_list_datasets_names_a_bad_source():
    with pytest.raises(ValueError, match=r"^source must be None, 'sklearn' or 'keel'"):
        list_datasets(np.array(["keel", "keel"]))


def test_a_csv_header_with_a_repeated_name_is_refused(tmp_path):
    """pandas read "a,a,y" as columns a, a.1, y: the model named a column the file does not."""
    from treesmith.datasets import load_csv

    path = tmp_path / "dup.csv"
    path.write_text("a,a,y\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(10)))
    with pytest.raises(ValueError, match=r"has repeated column names \['a'\]; give every column"):
        load_csv(path)
    ok = tmp_path / "ok.csv"
    ok.write_text("a,a.1,y\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(10)))
    assert list(load_csv(ok).X.columns) == ["a", "a.1"]


def test_a_repeated_name_in_a_compressed_csv_is_refused(tmp_path):
    from treesmith.datasets import load_csv

    path = tmp_path / "dup.csv.gz"
    pd.DataFrame([[1, 2, 0], [3, 4, 1]], columns=["a", "b", "y"]).to_csv(path, index=False)
    assert load_csv(path).X.shape == (2, 2)
    pd.DataFrame([[1, 2, 0], [3, 4, 1]], columns=["a", "a", "y"]).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"repeated column names \['a'\]"):
        load_csv(path)
