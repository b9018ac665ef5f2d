"""The criterion protocol and the registry that maps names to criterion classes.

A criterion is a small, copyable parameter object. It hands the engine a compiled impurity
function ``h(vector, params) -> float`` with the signature ``treesmith._dtypes.IMPURITY_SIGNATURE``
and a float64 parameter vector; the split kernels call ``h`` through a first-class function
pointer, so one cached kernel serves every impurity, built-in or user-defined.

* Classification criteria receive the class-proportion vector pi (non-negative, sums to 1).
* Regression criteria receive the node's additive sufficient statistics, laid out as
  ``[n, sum_w, sum_wy, ...]`` (unweighted count, weight, weighted label sum, then whatever
  else the criterion declares through :meth:`RegressionCriterion.sample_statistics`).
"""

from __future__ import annotations

import numpy as np

CLASSIFICATION_TASK = "classification"
REGRESSION_TASK = "regression"

_REGISTRY: dict[str, type] = {}


def register(*names: str):
    """Class decorator: make a criterion class reachable by its string names."""

    def decorator(cls):
        for name in names:
            _REGISTRY[name] = cls
        cls.registered_names = tuple(names)
        return cls

    return decorator


class Criterion:
    """Base class of every impurity criterion.

    Subclasses set ``task``, ``formula`` and ``parameter_ranges`` (documentation shown by
    :func:`treesmith.criteria.available`), store their parameters as attributes named in
    ``_param_names`` and implement :meth:`impurity_function`.
    """

    task: str = CLASSIFICATION_TASK
    formula: str = ""
    parameter_ranges: str = "no parameters"
    _param_names: tuple[str, ...] = ()

    # -- what the engine needs ------------------------------------------------------------
    def impurity_function(self):
        """The compiled ``h(vector, params) -> float`` (a Numba dispatcher with the shared signature)."""
        raise NotImplementedError

    def parameters(self) -> np.ndarray:
        """The float64 parameter vector passed to the compiled function (never empty)."""
        values = [float(getattr(self, name)) for name in self._param_names]
        return np.asarray(values if values else [0.0], dtype=np.float64)

    def validate(self, n_classes: int | None = None) -> None:
        """Check the parameters (and, for classification, that they fit ``n_classes``).

        Raises ``ValueError`` naming the parameter; warns when a choice is legal but
        outside the range where the family is known to be concave.
        """

    # -- conveniences ---------------------------------------------------------------------
    def __call__(self, vector) -> float:
        """Evaluate the impurity of one proportion (or statistics) vector from Python."""
        self.validate()
        vector = np.ascontiguousarray(vector, dtype=np.float64)
        return float(self.impurity_function()(vector, self.parameters()))

    @property
    def name(self) -> str:
        names = getattr(type(self), "registered_names", ())
        return names[0] if names else type(self).__name__.lower()

    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in self._param_names}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        mine, theirs = self.get_params(), other.get_params()
        return all(np.array_equal(np.asarray(mine[k]), np.asarray(theirs[k])) for k in mine)

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self)))


class RegressionCriterion(Criterion):
    """A regression criterion works on additive per-sample statistics.

    ``sample_statistics`` returns an ``(n_samples, n_stats)`` array whose columns are summed
    per histogram bin; column 0 is the unweighted count (1 per sample), column 1 the weight,
    column 2 the weighted label. The impurity function receives the summed vector of a node.
    """

    task = REGRESSION_TASK

    def sample_statistics(self, y: np.ndarray, sample_weight: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def validate_targets(self, y: np.ndarray) -> None:
        """Reject labels the criterion is not defined for (e.g. negative counts for Poisson)."""

    @staticmethod
    def node_value(stats: np.ndarray) -> np.ndarray:
        """Prediction of nodes from their summed statistics: the weighted mean label."""
        stats = np.atleast_2d(stats)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(stats[:, 1] > 0, stats[:, 2] / stats[:, 1], 0.0)


def resolve_criterion(criterion, task: str) -> Criterion:
    """Turn the estimator's ``criterion`` parameter (a name or a criterion object) into an object."""
    if isinstance(criterion, Criterion):
        instance = criterion
    elif isinstance(criterion, str) and criterion in _REGISTRY:
        instance = _REGISTRY[criterion]()
    else:
        names = sorted(n for n, c in _REGISTRY.items() if c.task == task)
        raise ValueError(
            f"criterion must be one of {names} or a treesmith.criteria object for {task}, "
            f"got {criterion!r}."
        )
    if instance.task != task:
        raise ValueError(
            f"criterion {instance!r} is a {instance.task} criterion and cannot be used for {task}."
        )
    return instance


def registered() -> dict[str, type]:
    """A copy of the name -> class registry."""
    return dict(_REGISTRY)


def available(task: str | None = None, print_table: bool = True) -> list[dict]:
    """List every registered criterion family with its formula and parameter ranges.

    Returns one dict per family (name, aliases, task, formula, parameters) and prints them as
    a table unless ``print_table=False``.
    """
    seen, rows = set(), []
    for name, cls in _REGISTRY.items():
        if cls in seen or (task is not None and cls.task != task):
            continue
        seen.add(cls)
        rows.append(
            {
                "name": cls.__name__,
                "aliases": ", ".join(cls.registered_names),
                "task": cls.task,
                "formula": cls.formula,
                "parameters": cls.parameter_ranges,
            }
        )
    if print_table:
        width = max(len(r["name"]) for r in rows) + 2
        for r in rows:
            print(f"{r['name']:<{width}}[{r['task']}] {r['formula']}")
            print(f"{'':<{width}}aliases: {r['aliases']}; parameters: {r['parameters']}")
    return rows
