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

import inspect
import warnings
from dataclasses import dataclass

import numpy as np

from .._parameters import ParameterObject
from ._checks import check_number
from ._compiled import compiled

CLASSIFICATION_TASK = "classification"
REGRESSION_TASK = "regression"

_REGISTRY: dict[str, type] = {}
_LISTED: list[type] = []


class ConcavityWarning(UserWarning):
    """A criterion is used with parameters outside the range where it is proven concave.

    Concavity is what makes every split's impurity decrease non-negative (Breiman et al. 1984;
    Balcan and Sharma, "Learning Accurate and Interpretable Decision Trees", 2024, Prop. 3.2).
    Outside it, gains can be negative and the greedy growth may stop early or prefer odd
    splits; the choice is allowed, but the user is told.
    """


@dataclass(frozen=True)
class Parameter:
    """One real parameter of a criterion family: its default and its domain.

    The domain is an interval (``low``/``high``, each bound open or closed; None = unbounded),
    optionally of integers. :meth:`check` raises a ``ValueError`` naming the parameter and the
    interval, e.g. ``alpha must be a real number in [0.001, 100], got 1e+300.``
    """

    default: float
    low: float | None = None
    high: float | None = None
    low_open: bool = True
    high_open: bool = False
    integer: bool = False

    def check(self, name: str, value) -> float:
        return check_number(name, value, low=self.low, high=self.high, low_open=self.low_open,
                            high_open=self.high_open, integer=self.integer)



def register(*names: str, by_name: bool = True):
    """Class decorator: list a criterion class in :func:`available` under ``names``.

    With ``by_name=True`` (default) the names also select it as ``criterion="name"``; families
    that cannot exist without arguments (``Custom``) are listed only (``by_name=False``).
    """

    def decorator(cls):
        cls.registered_names = tuple(names)
        if cls not in _LISTED:
            _LISTED.append(cls)
        if by_name:
            for name in names:
                _REGISTRY[name] = cls
        return cls

    return decorator


class Criterion(ParameterObject):
    """Base class of every impurity criterion: one implementation of the parameter protocol.

    A family declares, as class attributes:

    * ``parameter_domains``: ``{name: Parameter(default, low, high, ...)}`` in positional order.
      The base then provides the constructor (``Family(1.5, 2)`` or ``Family(alpha=1.5)``,
      defaults filled in, with a real signature for ``help``), ``get_params``/``set_params``,
      the parameter checks, equality and hashing.
    * ``impurity``: its compiled ``h(vector, params)`` (``staticmethod`` of an ``@impurity``
      function; ``params`` in the order of ``parameter_domains``), and optionally
      ``near_one = (parameter name, variant)``: the variant used when that parameter is within
      ``_impurity.NEAR_ONE`` of 1 (a removable singularity).
    * ``strict_concavity``: True or False for every parameter value, or ``"where proven"``
      (strictly concave wherever :meth:`concavity_caveat` finds nothing); None = unknown.
    * ``task``, ``formula`` and ``parameter_ranges``: what :func:`available` shows.

    Families with other kinds of parameters (a loss matrix, a user function) override the
    constructor, ``_check_parameters`` and ``impurity_function`` as needed.
    """

    task: str = CLASSIFICATION_TASK
    formula: str = ""
    parameter_ranges: str = "no parameters"
    parameter_domains: dict[str, Parameter] = {}
    impurity = None
    near_one: tuple | None = None
    strict_concavity: bool | str | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "parameter_domains" in cls.__dict__:
            cls._param_names = tuple(cls.parameter_domains)
            if "__init__" not in cls.__dict__:
                cls.__signature__ = inspect.Signature([
                    inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                      default=domain.default)
                    for name, domain in cls.parameter_domains.items()])

    def __init__(self, *args, **params):
        names = self._param_names
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} positional "
                            f"parameter(s) {list(names)}, got {len(args)}.")
        given = dict(zip(names, args))
        for name, value in params.items():
            if name not in names:
                raise TypeError(f"{type(self).__name__} has no parameter {name!r}; valid: "
                                f"{list(names)}.")
            if name in given:
                raise TypeError(f"{type(self).__name__} got {name!r} twice.")
            given[name] = value
        for name in names:
            if name not in given:
                if name not in self.parameter_domains:
                    raise TypeError(f"{type(self).__name__} needs the parameter {name!r}.")
                given[name] = self.parameter_domains[name].default
            setattr(self, name, given[name])
        self._check_on_change(stacklevel=4)

    def _check_on_change(self, stacklevel: int) -> None:
        """Validate the parameters and warn when they leave the proven-concave range."""
        self._check_parameters()
        caveat = self.concavity_caveat()
        if caveat:
            warnings.warn(f"{self!r}: {caveat}", ConcavityWarning, stacklevel=stacklevel)

    def _check_parameters(self) -> None:
        for name, domain in self.parameter_domains.items():
            domain.check(name, getattr(self, name))

    # -- what the engine needs ------------------------------------------------------------
    def impurity_function(self):
        """The compiled ``h(vector, params) -> float`` (a Numba dispatcher, shared signature).

        Compiled here, on first use, for this criterion only
        (``treesmith.criteria._compiled.compiled``); nothing is compiled at import.
        """
        if self.impurity is None:
            raise NotImplementedError(f"{type(self).__name__} declares no impurity function")
        if self.near_one is not None:
            from ._impurity import NEAR_ONE

            name, variant = self.near_one
            if abs(float(getattr(self, name)) - 1.0) < NEAR_ONE:
                return compiled(variant)
        return compiled(self.impurity)

    def strictly_concave(self) -> bool | None:
        """Whether h is strictly concave on the simplex for these parameters (None: unknown).

        The engine then skips cuts inside runs of same-class bins
        (``treesmith.grower.skips_same_class_runs``); when unknown it decides by name."""
        if self.strict_concavity == "where proven":
            return self.concavity_caveat() is None
        return self.strict_concavity

    def validate(self, n_classes: int | None = None) -> None:
        """Check the parameters (and, for classification, that they fit ``n_classes``).

        Raises ``ValueError`` naming the parameter; warns (:class:`ConcavityWarning`) when the
        choice is legal but, for this number of classes, outside the range where the family is
        known to be concave (caveats that do not depend on ``n_classes`` are raised once, at
        construction).
        """
        self._check_parameters()
        if n_classes is not None:
            self._check_n_classes(int(n_classes))
            caveat = self.concavity_caveat(n_classes)
            if caveat and caveat != self.concavity_caveat():
                warnings.warn(f"{self!r}: {caveat}", ConcavityWarning, stacklevel=2)

    def _check_n_classes(self, n_classes: int) -> None:
        """Raise ``ValueError`` when the parameters do not fit ``n_classes`` classes."""

    def concavity_caveat(self, n_classes: int | None = None) -> str | None:
        """Why concavity is not proven for these parameters (and ``n_classes``), or None."""
        return None

    # -- conveniences ---------------------------------------------------------------------
    def __call__(self, vector) -> float:
        """Evaluate the impurity of one proportion (or statistics) vector from Python."""
        vector = np.ascontiguousarray(vector, dtype=np.float64)
        self.validate(vector.shape[0] if self.task == CLASSIFICATION_TASK else None)
        return float(self.impurity_function()(vector, self.parameters()))

    @property
    def name(self) -> str:
        names = getattr(type(self), "registered_names", ())
        return names[0] if names else type(self).__name__.lower()

    def _parameters_changed(self) -> None:
        # set_params -> here -> _check_on_change -> warn: the warning points at set_params' caller.
        self._check_on_change(stacklevel=4)


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


def check_task(task, allow_none: bool = False) -> None:
    """``task`` is "classification" or "regression" (or None when allowed): ValueError naming
    it (a numpy array raised numpy's ambiguous truth, 'Classification' read as a mismatch)."""
    if (task is None and allow_none) or isinstance(task, str) and task in (CLASSIFICATION_TASK,
                                                                           REGRESSION_TASK):
        return
    allowed = ("None, " if allow_none else "") + f"{CLASSIFICATION_TASK!r} or {REGRESSION_TASK!r}"
    raise ValueError(f"task must be {allowed}, got {task!r}.")


def resolve_criterion(criterion, task: str) -> Criterion:
    """Turn the estimator's ``criterion`` parameter (a name or a criterion object) into one."""
    check_task(task)
    if isinstance(criterion, Criterion):
        instance = criterion
    elif isinstance(criterion, str) and criterion in _REGISTRY:
        cls = _REGISTRY[criterion]
        try:
            instance = cls()
        except TypeError as error:
            raise ValueError(
                f"criterion {criterion!r} needs parameters ({cls.parameter_ranges}); pass an "
                f"object such as treesmith.criteria.{cls.__name__}(...)."
            ) from error
    else:
        names = sorted(n for n, c in _REGISTRY.items() if c.task == task)
        raise ValueError(
            f"criterion must be one of {names} or a treesmith.criteria object for {task} "
            f"(a user-defined impurity: treesmith.criteria.Custom(func, **params)), "
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


def available(task: str | None = None) -> list[dict]:
    """Every listed criterion family with its formula and parameter ranges.

    One dict per family (name, aliases, task, formula, parameters), optionally only those of
    ``task`` ("classification" or "regression"). :func:`describe_available` formats them as a
    table to print.
    """
    check_task(task, allow_none=True)
    rows = []
    for cls in _LISTED:
        if task is not None and cls.task != task:
            continue
        rows.append(
            {
                "name": cls.__name__,
                "aliases": ", ".join(n for n in cls.registered_names if _REGISTRY.get(n) is cls),
                "task": cls.task,
                "formula": cls.formula,
                "parameters": cls.parameter_ranges,
            }
        )
    return rows


def describe_available(task: str | None = None) -> str:
    """:func:`available` as a text table: ``print(describe_available())``."""
    rows = available(task)
    if not rows:
        return ""
    width = max(len(r["name"]) for r in rows) + 2
    lines = []
    for r in rows:
        lines.append(f"{r['name']:<{width}}[{r['task']}] {r['formula']}")
        names = f"criterion={r['aliases']!r}" if r["aliases"] else "object only"
        lines.append(f"{'':<{width}}{names}; parameters: {r['parameters']}")
    return "\n".join(lines) + "\n"
