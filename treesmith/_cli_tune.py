"""``treesmith tune``: learn tree parameters over the cross-validation folds of one or more
datasets (:func:`treesmith.model_selection.learn_parameters`) and write the loss surface.

Registered on the main Typer app by :func:`register`; the shared helpers (dataset loading,
criterion parsing, one-line errors) come from :mod:`treesmith.cli`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import numpy as np

from ._compat import optional_import

typer = optional_import("typer")

#: A grid item: NAME=SPEC (NAME a parameter, possibly nested with "__").
_ITEM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def parse_grid_value(name: str, spec: str, parse_number):
    """``low:high:step`` (both ends included), ``a,b,c``, a single value, ``exact`` (ccp_alpha)
    or ``ray:U1,U2`` (bottom-up pessimistic pruning along (c1, c2) = r (U1, U2))."""
    from .cli import CLIError
    from .model_selection import Exact, PessimisticRay

    text = spec.strip()
    if text == "exact":
        return Exact()
    if text.startswith("ray:"):
        directions = [parse_number(v, f"ray of {name}") for v in text[4:].split(",")]
        if len(directions) != 2:
            raise CLIError(f"{name}=ray:U1,U2 needs two numbers, got {spec!r}")
        return PessimisticRay(*directions)
    if text.count(":") == 2:
        low, high, step = (parse_number(v, f"grid of {name}") for v in text.split(":"))
        if step <= 0 or high < low:
            raise CLIError(f"grid {name}={spec}: needs low <= high and step > 0")
        n_steps = int(np.floor((high - low) / step + 1e-9))
        if n_steps > 10_000:
            raise CLIError(f"grid {name}={spec} has {n_steps + 1} values; at most 10001")
        values = [low + k * step for k in range(n_steps + 1)]
        if all(isinstance(v, int) for v in (low, high, step)):
            return [int(v) for v in values]
        return [round(v, 12) for v in values]
    if ":" in text:
        raise CLIError(f"grid {name}={spec}: write low:high:step, a,b,c, exact or ray:U1,U2")
    return [_value(v.strip(), name, parse_number) for v in text.split(",") if v.strip()]


def _value(text: str, name: str, parse_number):
    """A number, or a word (criterion names, "best", booleans)."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.lower() == "none":
        return None
    try:
        return parse_number(text, name)
    except Exception:
        return text


def resolve_name(name: str, estimator) -> str:
    """A bare name that is not an estimator parameter but one of its criterion's or split
    rule's (``alpha`` with a Tsallis criterion) becomes the nested name (``criterion__alpha``)."""
    params = estimator.get_params(deep=True)
    if name in params:
        return name
    for holder in ("criterion", "split_rule"):
        if f"{holder}__{name}" in params:
            return f"{holder}__{name}"
    return name


def tune(
    data: Annotated[list[str], typer.Argument(
        help="Bundled datasets or CSV files (each one's CV folds are instances); NAME=SPEC "
             "items here are grid items.", show_default=False, metavar="DATA...")],
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="A fixed estimator parameter, NAME=VALUE (repeatable), e.g. "
        "criterion=tsallis, max_depth=5, pruning=c45.")] = None,
    grid: Annotated[list[str] | None, typer.Option(
        "--grid", "-g", help="A searched parameter, NAME=low:high:step, NAME=a,b,c, "
        "ccp_alpha=exact or pruning=ray:U1,U2 (repeatable; several items may follow one "
        "--grid). Bare names reach into the criterion: alpha = criterion__alpha.")] = None,
    target: Annotated[str | None, typer.Option(
        "--target", "-t", help="Label column of CSV files (default: their last column).")
    ] = None,
    scoring: Annotated[str, typer.Option(
        help="error, auc, expected_cost or explainability (error + eta * leaves).")] = "error",
    eta: Annotated[float, typer.Option(help="Weight of a leaf for --scoring explainability.",
                                       min=0.0)] = 0.01,
    cv: Annotated[int, typer.Option(help="Folds per dataset: each fold is one instance.",
                                    min=2)] = 5,
    refine: Annotated[int, typer.Option(help="Refinement rounds around the best cell.",
                                        min=0)] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the folds and of the trees.")] = 0,
    jobs: Annotated[int, typer.Option(help="joblib workers (-1: all cores).")] = -1,
    scheduler: Annotated[str | None, typer.Option(
        help="Run on this dask scheduler (tcp://HOST:PORT) instead of joblib.")] = None,
    out_dir: Annotated[Path, typer.Option(
        help="Folder for surface.csv and surface.png.")] = Path("treesmith-output/tune"),
):
    """Learn tree parameters by ERM over the CV folds of one or more datasets.

    Every fold of every DATA is one problem instance; the chosen point minimises the average
    held-out loss over all of them. Prints the best points and writes every point's losses
    (surface.csv) and a heat map of the first two searched parameters (surface.png).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
    from sklearn.model_selection import KFold, StratifiedKFold

    from .cli import CLIError, _load, _parse_number, _table, console, error_console, \
        parse_criterion
    from .estimators import DecisionTreeClassifier, DecisionTreeRegressor
    from .model_selection import learn_parameters

    items = [d for d in data if _ITEM.match(d) and not Path(d).exists()]
    datasets = [d for d in data if d not in items]
    if not datasets:
        raise CLIError("give at least one dataset (a bundled name such as sklearn:iris, or a "
                       "CSV file)")
    grid_items = [part for entry in (grid or []) for part in entry.split()] + items
    if not grid_items:
        raise CLIError("give at least one --grid NAME=SPEC to search")
    loaded = [_load(name, target) for name in datasets]
    tasks = {d.task for d in loaded}
    if len(tasks) > 1:
        raise CLIError(f"datasets mix classification and regression: "
                       f"{', '.join(f'{d.name} ({d.task})' for d in loaded)}")
    classification = tasks == {"classification"}
    estimator = (DecisionTreeClassifier if classification else DecisionTreeRegressor)(
        random_state=seed)
    fixed = {}
    for item in param or []:
        name, separator, value = item.partition("=")
        if not separator or not name.strip():
            raise CLIError(f"--param must look like NAME=VALUE, got {item!r}")
        name, value = name.strip(), value.strip()
        if name == "criterion":
            fixed[name] = parse_criterion(value)
            if isinstance(fixed[name], str):
                from .criteria import registered

                fixed[name] = registered()[fixed[name]]()
        elif name == "pruning":
            fixed[name] = {"method": value}
        else:
            fixed[name] = _value(value, name, _parse_number)
    try:
        estimator.set_params(**fixed)
    except ValueError as error:
        raise CLIError(f"--param: {error}") from None
    space = {}
    for item in grid_items:
        name, separator, spec = item.partition("=")
        if not separator or not name:
            raise CLIError(f"--grid items must look like NAME=SPEC, got {item!r}")
        resolved = resolve_name(name, estimator)
        if resolved in space:  # the later values replaced the earlier ones without a word
            raise CLIError(f"--grid searches {resolved!r} twice ({item!r}); give all its "
                           "values in one item")
        if resolved in fixed or name in fixed:
            raise CLIError(f"{resolved!r} is both fixed (--param) and searched (--grid {item})")
        space[resolved] = parse_grid_value(name, spec, _parse_number)
    splitter = (StratifiedKFold if classification else KFold)(cv, shuffle=True,
                                                              random_state=seed)
    instances = [(d.X, d.y, splitter) for d in loaded]

    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=error_console,
                        transient=True, disable=not error_console.is_terminal)
    with progress:
        bar = progress.add_task(f"fitting on {len(loaded)} × {cv} folds", total=None)

        def advance(done, total):
            progress.update(bar, completed=done, total=total)

        result = learn_parameters(
            estimator, space, instances, scoring=scoring,
            eta=eta if scoring == "explainability" else 0.0, refine=refine,
            backend="dask" if scheduler else "joblib", n_jobs=jobs, scheduler=scheduler,
            progress=advance)

    order = np.argsort(result.mean_loss, kind="stable")[:10]
    columns = list(result.columns)
    rows = [[*(f"{result.values[k][c]:.6g}" if isinstance(result.values[k][c], float)
               else str(result.values[k][c]) for c in columns),
             f"{result.mean_loss[k]:.4f}"] for k in order]
    console.print(f"{', '.join(d.name for d in loaded)} · {len(result.losses)} instances · "
                  f"{len(result.values)} points · loss = {result.scoring}", markup=False)
    console.print(_table("", columns + ["mean loss"], rows))
    console.print(f"best: {result.best_values} (mean loss {result.best_loss:.4f})",
                  markup=False)
    out_dir.mkdir(parents=True, exist_ok=True)
    result.to_csv(out_dir / "surface.csv")
    console.print(f"wrote {out_dir / 'surface.csv'}", markup=False)
    picture = _plot(result, out_dir / "surface.png")
    if picture is not None:
        console.print(f"wrote {picture}", markup=False)


def _plot(result, path: Path):
    """A heat map of the first two searched columns, or a line over a single one."""
    plt = optional_import("matplotlib.pyplot")
    numeric = [c for c in result.columns
               if all(isinstance(v[c], (int, float)) and not isinstance(v[c], bool)
                      for v in result.values)]
    if not numeric:
        return None
    figure, ax = plt.subplots(figsize=(6.5, 4.5))
    if len(numeric) >= 2 and _is_grid(result, numeric[0], numeric[1]):
        result.plot_surface(numeric[0], numeric[1], ax=ax)
    else:
        x_values, _, curve = result.surface(numeric[0])
        ax.step(x_values, curve, where="post")
        ax.set_xlabel(numeric[0])
        ax.set_ylabel(f"mean {result.scoring}")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def _is_grid(result, x: str, y: str) -> bool:
    """Whether (x, y) form a grid small enough to show as a heat map (exact axes do not)."""
    x_values, y_values, _ = result.surface(x, y)
    return len(x_values) * len(y_values) <= 10_000 and len(x_values) <= 200 \
        and len(y_values) <= 200


def register(app, one_line_errors, examples) -> None:
    """Add ``tune`` to the Typer ``app``."""
    app.command(epilog=examples(
        "treesmith tune sklearn:iris sklearn:wine --param criterion=tsallis --param "
        "max_depth=5 --grid alpha=0.5:4:0.25 beta=1:3:1",
        "treesmith tune keel:pima --grid ccp_alpha=exact --grid criterion=gini,entropy",
        "treesmith tune sklearn:breast_cancer --grid pruning=ray:1,1 --scoring explainability "
        "--eta 0.005",
        "treesmith tune sklearn:wine --param criterion=tsallis --grid alpha=0.5:3:0.5 "
        "--scheduler tcp://10.0.0.5:8786"))(one_line_errors(tune))
