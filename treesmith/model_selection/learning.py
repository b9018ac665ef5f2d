"""Learning a tree algorithm's parameters from many problem instances (docs/methods.md §8).

Balcan & Sharma ("Learning accurate and interpretable decision trees", 2024) treat the
parameters of the tree-building algorithm itself — the splitting criterion's (alpha, beta), the
pruning strength, a prior — as a hypothesis to be learned from repeated problems of one
domain: choose the parameters minimising the *average* held-out loss over the instances
(empirical risk minimisation), then apply them to new instances. :func:`learn_parameters` does
that for any estimator parameter, on a grid (with optional successive refinement around the
best cell) crossed with at most one exact axis (cost-complexity alpha, or bottom-up pessimistic
pruning along a ray), and runs the fits on joblib or a ``dask.distributed`` cluster.
"""

from __future__ import annotations

import csv
import math
import numbers
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone, is_classifier

from .execution import BACKENDS, Task, connect, joblib_workers, run_dask, run_joblib
from .instances import check_estimator_instance, check_instances
from .parameters import check_parameter_names, check_parameter_values, settable
from .scoring import check_scoring
from .space import Exact, PessimisticRay, check_space

#: A larger grid is refused before anything is built (8 bytes x points x instances per table).
MAX_GRID_POINTS = 1_000_000
#: Losses closer than this are ties (sums of the same per-instance losses in another order).
TIE_TOLERANCE = 1e-12


@dataclass
class LearnedParameters:
    """Result of :func:`learn_parameters`.

    best_params : the ERM choice, ready for ``estimator.set_params(**best_params)``.
    best_loss : its average loss over the instances.
    columns : the searched parameters as table columns (an exact ray gives ``pruning__c1``
        and ``pruning__c2``).
    values : one dict {column: value} per evaluated point, in evaluation order.
    params : one ``set_params`` dict per evaluated point.
    losses : (n_instances, n_points) loss of each point on each instance.
    mean_loss : (n_points,) average over the instances, the ERM objective.
    rounds : (n_points,) 0 for the initial grid, k for the k-th refinement.
    best_index : position of the choice in the table.
    held_out_losses : loss of the choice on each held-out instance (refitted on its training
        part), when ``held_out`` was given; ``held_out_loss`` their mean.
    scoring : what the losses measure.
    """

    best_params: dict
    best_loss: float
    columns: tuple
    values: list = field(repr=False)
    params: list = field(repr=False)
    losses: np.ndarray = field(repr=False)
    mean_loss: np.ndarray = field(repr=False)
    rounds: np.ndarray = field(repr=False)
    best_index: int = 0
    held_out_losses: np.ndarray | None = field(default=None, repr=False)
    held_out_loss: float | None = None
    scoring: str = "error"
    estimator: object = field(default=None, repr=False)

    @property
    def best_values(self) -> dict:
        """The choice as {column: value}."""
        return dict(self.values[self.best_index])

    def best_estimator(self):
        """An unfitted clone of the estimator with the learned parameters."""
        model = clone(self.estimator)
        return model.set_params(**settable(model, self.best_params))

    def surface(self, x: str, y: str | None = None):
        """Average loss over the initial grid as a function of column ``x`` (and ``y``): the
        minimum over the other columns. Returns ``(x_values, y_values, table)`` with
        ``table[i, j]`` at ``y_values[i]``, ``x_values[j]`` (``y_values`` None for 1-D)."""
        for name in (x, y):
            if name is not None and name not in self.columns:
                raise ValueError(f"{name!r} is not a searched column; columns: "
                                 f"{list(self.columns)}.")
        initial = [k for k in range(len(self.values)) if self.rounds[k] == 0]
        x_values = _sorted_unique(self.values[k][x] for k in initial)
        y_values = None if y is None else _sorted_unique(self.values[k][y] for k in initial)
        table = np.full((1 if y is None else len(y_values), len(x_values)), np.inf)
        for k in initial:
            i = 0 if y is None else y_values.index(self.values[k][y])
            j = x_values.index(self.values[k][x])
            table[i, j] = min(table[i, j], self.mean_loss[k])
        return x_values, y_values, (table[0] if y is None else table)

    def plot_surface(self, x: str, y: str, ax=None, accuracy: bool = False):
        """Heat map of :meth:`surface` (the paper's Figure 3 when ``accuracy=True`` shows
        1 - error, brighter is better); the ERM choice is marked. Returns the axes."""
        from .._compat import optional_import

        plt = optional_import("matplotlib.pyplot")
        x_values, y_values, table = self.surface(x, y)
        shown = 1.0 - table if accuracy else table
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        image = ax.imshow(shown, origin="lower", aspect="auto",
                          cmap="viridis" if accuracy else "viridis_r")
        ax.set_xticks(range(len(x_values)), [_label(v) for v in x_values], rotation=90)
        ax.set_yticks(range(len(y_values)), [_label(v) for v in y_values])
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        best = self.values[self.best_index]
        if best[x] in x_values and best[y] in y_values:
            ax.plot(x_values.index(best[x]), y_values.index(best[y]), marker="*", color="red",
                    markersize=12)
        ax.figure.colorbar(image, ax=ax, label=("1 - " if accuracy else "") + self.scoring)
        return ax

    def rows(self) -> list[dict]:
        """One dict per evaluated point: the columns, ``round``, ``mean_loss`` and
        ``loss_<k>`` per instance."""
        table = []
        for k, values in enumerate(self.values):
            row = {**values, "round": int(self.rounds[k]), "mean_loss": float(self.mean_loss[k])}
            row.update({f"loss_{i}": float(v) for i, v in enumerate(self.losses[:, k])})
            table.append(row)
        return table

    def to_csv(self, path) -> None:
        """Write :meth:`rows` as CSV."""
        rows = self.rows()
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def _sorted_unique(values) -> list:
    """Distinct values, sorted when they compare (numbers), else in first-seen order."""
    unique = list(dict.fromkeys(values))
    try:
        return sorted(unique)
    except TypeError:
        return unique


def _label(value) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else str(value)


def _needs_equal_instances(estimator) -> tuple[bool, bool]:
    """(same features, same labels) required by the estimator's own parameters: per-feature
    costs fix the columns; a class-by-class matrix or class weights fix the label set."""
    params = estimator.get_params(deep=False)
    features = any(params.get(name) is not None for name in ("feature_costs", "cost_groups"))
    criterion = params.get("criterion")
    labels = isinstance(params.get("class_weight"), dict) \
        or getattr(criterion, "matrix", None) is not None
    return features, labels


def _check_count(name: str, value, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")


def _resolve_workers(backend, n_jobs, client) -> int:
    if backend == "dask":
        return max(1, sum(client.nthreads().values()))
    from joblib import effective_n_jobs

    return max(1, effective_n_jobs(n_jobs))


def _tasks(n_instances, points, batch_size, n_workers) -> list[Task]:
    """Each instance's points cut into batches: enough tasks to keep every worker busy."""
    if batch_size is None:
        chunks = max(1, math.ceil(4 * n_workers / n_instances))
        batch_size = max(1, math.ceil(len(points) / chunks))
    tasks = []
    for instance_idx in range(n_instances):
        for start in range(0, len(points), batch_size):
            indices = tuple(range(start, min(start + batch_size, len(points))))
            tasks.append(Task(instance_idx, indices, tuple(points[i] for i in indices)))
    return tasks


def learn_parameters(estimator, space: dict, instances, *, scoring="error", eta: float = 0.0,
                     held_out=None, refine: int = 0, backend: str = "joblib", n_jobs=None,
                     scheduler=None, scheduler_timeout: float = 10.0,
                     batch_size: int | None = None, retries: int = 2,
                     inner_threads: int | None = None, progress=None) -> LearnedParameters:
    """Learn ``estimator``'s parameters by ERM over problem ``instances``.

    Parameters
    ----------
    estimator : a tree estimator (any scikit-learn estimator for a grid-only space).
    space : ``{parameter: values}``; values a list, a :class:`Range`, or an exact marker —
        :class:`Exact` for ``ccp_alpha``, :class:`PessimisticRay` for ``pruning`` (see
        :mod:`treesmith.model_selection.space`). Nested names reach into criterion and rule
        objects (``criterion__alpha``) and dict-valued parameters (``pruning__c1``).
    instances : list of ``(X_train, y_train, X_test, y_test)``, or ``(X, y, cv)`` for one
        instance per cross-validation fold.
    scoring : "error", "auc", "expected_cost", "explainability" (error + ``eta`` * leaves) or a
        callable ``loss(fitted_estimator, X_test, y_test)``; lower is better.
    held_out : instances not used for learning; the choice is refitted and scored on each.
    refine : rounds of successive refinement: each zooms every :class:`Range` axis into the
        cells next to the best point (other axes held at their best value).
    backend : "joblib" (``n_jobs`` workers) or "dask" (``scheduler``: an address, a
        ``distributed.Client``, or None for the default client; an address that does not
        answer within ``scheduler_timeout`` seconds raises ``ConnectionError`` before any
        fit). Results are identical whatever the backend.
    batch_size : grid points per task (default: about four tasks per worker).
    retries : dask retries of a failed task.
    inner_threads : threads of the engine's parallel kernels inside each fit; default 1 when
        the search itself runs on several workers, else numba's current setting.
    progress : ``callable(done, total)`` called as tasks finish.

    Ties between equal average losses go to the larger exact value (the smaller tree), then to
    the earlier point of the grid. Everything that can be checked without fitting — the space,
    the parameter names and values, the instances, the scheduler — is checked first.
    """
    check_estimator_instance(estimator, "learn_parameters")
    search = check_space(space, MAX_GRID_POINTS)
    if search.n_grid_points > MAX_GRID_POINTS:
        raise ValueError(f"space has {search.n_grid_points} grid points; at most "
                         f"{MAX_GRID_POINTS} (use fewer values, or Range with refine=).")
    check_parameter_names(estimator, search.names + ((search.exact_name,)
                                                      if search.exact_name else ()))
    loss = check_scoring(scoring, eta, estimator)
    if isinstance(search.exact, PessimisticRay) and not is_classifier(estimator):
        raise ValueError("PessimisticRay (bottom-up pessimistic pruning) needs a classifier.")
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}.")
    _check_count("refine", refine, 0)
    if refine and not any(r is not None for r in search.ranges):
        raise ValueError("refine needs at least one Range axis in space.")
    _check_count("retries", retries, 0)
    for name, value in (("inner_threads", inner_threads), ("batch_size", batch_size)):
        if value is not None:
            _check_count(name, value, 1)
    joblib_workers(n_jobs, 1, "learn_parameters")  # checked (the tasks are not known yet)
    if isinstance(scheduler_timeout, bool) or not (
            isinstance(scheduler_timeout, numbers.Real) and 0 < scheduler_timeout < math.inf):
        raise ValueError(f"scheduler_timeout must be a number of seconds > 0, got "
                         f"{scheduler_timeout!r}.")
    equal_features, equal_labels = _needs_equal_instances(estimator)
    checks = dict(equal_features=equal_features, equal_labels=equal_labels,
                  test_needs_two_classes=loss.name == "auc")
    instances = check_instances(instances, estimator, **checks)
    held = None if held_out is None else check_instances(held_out, estimator, what="held_out",
                                                         **checks)
    points = search.grid_points()
    probes = points if search.exact is None else [
        {**p, **_exact_params(search, estimator, 1.0)} for p in points]
    check_parameter_values(estimator, probes)

    client, owned = (connect(scheduler, scheduler_timeout) if backend == "dask" else (None, False))
    try:
        n_workers = _resolve_workers(backend, n_jobs, client)
        threads = inner_threads if inner_threads is not None else (
            1 if n_workers > 1 or backend == "dask" else None)

        def run(points_to_fit, problems, exact):
            tasks = _tasks(len(problems), points_to_fit, batch_size, n_workers)
            if backend == "dask":
                stream = run_dask(estimator, problems, tasks, loss, exact, client, retries,
                                  progress, threads)
            else:
                stream = run_joblib(estimator, problems, tasks, loss, exact, n_jobs, progress,
                                    threads)
            table = [[None] * len(points_to_fit) for _ in problems]
            for task, results in stream:
                for point_idx, result in zip(task.point_idx, results):
                    table[task.instance_idx][point_idx] = result
            return table

        table = _Table(search, estimator)
        table.add(points, run(points, instances, search.exact), round_=0)
        axes = search.axes
        for round_ in range(1, refine + 1):
            axes = _refined_axes(search, axes, table.values[table.best()])
            fresh = [p for p in search.grid_points(axes) if not table.has_grid_point(p)]
            if not fresh:
                break
            table.add(fresh, run(fresh, instances, search.exact), round_=round_)
        best = table.best()
        held_losses = None
        if held is not None:
            fitted = run([table.params[best]], held, None)
            held_losses = np.asarray([row[0] for row in fitted], dtype=np.float64)
    finally:
        if owned:
            client.close()
    losses = np.column_stack(table.columns_of_losses)
    return LearnedParameters(
        best_params=table.params[best], best_loss=float(losses[:, best].mean()),
        columns=table.column_names, values=table.values, params=table.params, losses=losses,
        mean_loss=losses.mean(axis=0), rounds=np.asarray(table.rounds), best_index=best,
        held_out_losses=held_losses,
        held_out_loss=None if held_losses is None else float(held_losses.mean()),
        scoring=loss.label, estimator=clone(estimator),
    )


def _exact_params(search, estimator, position: float) -> dict:
    """``set_params`` entries for the exact axis at ``position``."""
    if isinstance(search.exact, Exact):
        return {"ccp_alpha": float(position)}
    base = estimator.get_params(deep=False).get("pruning")
    return {"pruning": search.exact.pruning(position, base if isinstance(base, dict) else None)}


def _exact_columns(search, position: float) -> dict:
    if isinstance(search.exact, Exact):
        return {"ccp_alpha": float(position)}
    return {"pruning__c1": float(position * search.exact.c1),
            "pruning__c2": float(position * search.exact.c2)}


class _Table:
    """The evaluated points, in order: columns, set_params dicts, per-instance losses."""

    def __init__(self, search, estimator):
        self.search, self.estimator = search, estimator
        self.values, self.params, self.rounds = [], [], []
        self.columns_of_losses: list[np.ndarray] = []
        self.exact_positions: list[float] = []
        self._grid_keys: set = set()
        exact = () if search.exact is None else tuple(_exact_columns(search, 1.0))
        self.column_names = tuple(search.names) + exact

    def has_grid_point(self, point: dict) -> bool:
        return _key(point) in self._grid_keys

    def add(self, points, table, round_):
        for point_idx, point in enumerate(points):
            self._grid_keys.add(_key(point))
            results = [row[point_idx] for row in table]
            if self.search.exact is None:
                self._append(point, {}, {}, np.asarray(results, dtype=np.float64), round_, 0.0)
                continue
            positions = np.unique(np.concatenate([r.starts for r in results]))
            for position in positions.tolist():
                losses = np.asarray([float(r.at(position)) for r in results])
                self._append(point, _exact_columns(self.search, position),
                             _exact_params(self.search, self.estimator, position), losses,
                             round_, float(position))

    def _append(self, point, exact_columns, exact_params, losses, round_, position):
        self.values.append({**point, **exact_columns})
        self.params.append(settable(self.estimator, {**point, **exact_params}))
        self.columns_of_losses.append(losses)
        self.rounds.append(round_)
        self.exact_positions.append(position)

    def best(self) -> int:
        """Smallest mean loss; ties: larger exact position, then the earlier point."""
        mean = np.asarray([c.mean() for c in self.columns_of_losses])
        tied = np.flatnonzero(mean <= mean.min() + TIE_TOLERANCE)
        positions = np.asarray(self.exact_positions)[tied]
        return int(tied[np.flatnonzero(positions == positions.max())[0]])


def _key(point: dict):
    return tuple(sorted((k, repr(v)) for k, v in point.items()))


def _refined_axes(search, axes, best_values: dict):
    """Range axes zoomed to the cells around the best value; other axes at their best."""
    refined = []
    for name, axis, spec in zip(search.names, axes, search.ranges):
        best = best_values[name]
        if spec is None:
            single = np.empty(1, dtype=object)
            single[0] = best
            refined.append(single)
            continue
        ordered = sorted(set(axis) | {best})
        k = ordered.index(best)
        low, high = ordered[max(k - 1, 0)], ordered[min(k + 1, len(ordered) - 1)]
        values = spec.values(low, high)
        axis = np.empty(len(values), dtype=object)
        axis[:] = [v.item() for v in values]
        refined.append(axis)
    return tuple(refined)
