"""The parameter space searched by :func:`~treesmith.model_selection.learn_parameters`.

A space is a dict from estimator parameter names to what to try:

* a list or array of values — a grid axis (any parameter, nested ones included:
  ``criterion__alpha``, ``split_rule__lam``, and keys inside a dict-valued parameter such as
  ``pruning__confidence_factor`` for ``pruning={"method": "c45"}``);
* :class:`Range` ``(low, high, n_points)`` — an evenly spaced axis (``log=True``: geometric;
  ``integer=True``: rounded) that successive refinement may zoom into around the best cell;
* :class:`Exact` on ``ccp_alpha`` — every alpha >= 0, exactly: each instance's loss is piecewise
  constant in alpha with breakpoints on its tree's weakest-link path, so the union of all the
  instances' breakpoints holds a minimiser (docs/methods.md §8);
* :class:`PessimisticRay` on ``pruning`` — the bottom-up pessimistic pruning parameters along the
  ray (c1, c2) = r (u1, u2), r >= 0, exactly: the tree changes at finitely many computable r.

At most one exact axis per space; the grid axes are crossed with it.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import Interval, check_parameter


@dataclass(frozen=True)
class Range:
    """``n_points`` values from ``low`` to ``high`` (both included), linear or geometric."""

    low: float
    high: float
    n_points: int = 10
    log: bool = False
    integer: bool = False

    def __post_init__(self):
        # the validation room's checks: np.isfinite(10**30) or of a Fraction raised a
        # TypeError, and log='no' or integer='no' (true) switched the option on
        for name in ("low", "high"):
            check_parameter(name, getattr(self, name), [Interval(numbers.Real, None, None)],
                            "Range")
        if self.high < self.low:
            raise ValueError(f"Range high ({self.high}) must be >= low ({self.low}).")
        check_parameter("n_points", self.n_points, [Interval(numbers.Integral, 1, None)],
                        "Range")
        for name in ("log", "integer"):
            check_parameter(name, getattr(self, name), ["boolean"], "Range")
        if self.log and self.low <= 0:
            raise ValueError(f"a log Range needs low > 0, got {self.low}.")

    def values(self, low: float | None = None, high: float | None = None) -> np.ndarray:
        """The axis values (between ``low`` and ``high`` when given: a refinement)."""
        low = float(self.low if low is None else low)  # an int beyond int64 is an object
        high = float(self.high if high is None else high)
        if self.log:
            values = np.geomspace(low, high, self.n_points)
        else:
            values = np.linspace(low, high, self.n_points)
        if self.integer:
            return np.unique(np.round(values)).astype(np.int64)
        return np.unique(values)


@dataclass(frozen=True)
class Exact:
    """Every value of ``ccp_alpha`` >= 0, searched exactly through the pruning paths."""


@dataclass(frozen=True)
class PessimisticRay:
    """Bottom-up pessimistic pruning (Mansour 1997) along (c1, c2) = r (u1, u2), r >= 0, exactly.

    Node h (n_h objects, t_h nodes in its pruned subtree, a features) becomes a leaf when
    e_leaf <= e_h + c1 sqrt((t_h ln a + c2) / n_h); along the ray the right-hand side increases
    with r, so each node's test flips at the root of r u1 sqrt((t_h ln a + r u2) / n_h) = gap,
    a cubic; sweeping r from 0 over those roots visits every distinct pruned tree. An exact
    search of the whole (c1, c2) quadrant would need the arrangement of all these curves; the
    ray is the exact 1-D section, a grid the rest.
    """

    c1: float = 1.0
    c2: float = 0.0

    def __post_init__(self):
        for name in ("c1", "c2"):
            check_parameter(name, getattr(self, name), [Interval(numbers.Real, 0.0, None)],
                            "PessimisticRay")
        if self.c1 == 0 and self.c2 == 0:
            raise ValueError("PessimisticRay needs a direction: c1 and c2 cannot both be 0.")

    def pruning(self, position: float, base: dict | None = None) -> dict:
        """The estimator's ``pruning`` value at ray position r."""
        spec = {k: v for k, v in (base or {}).items() if k not in ("method", "c1", "c2")}
        return {"method": "bup", **spec, "c1": float(position * self.c1),
                "c2": float(position * self.c2)}


#: Which parameter each exact marker may stand for.
EXACT_PARAMETER = {Exact: "ccp_alpha", PessimisticRay: "pruning"}


@dataclass(frozen=True)
class SearchSpace:
    """A checked space: the grid axes in the given order, and the exact axis if any."""

    names: tuple[str, ...]
    axes: tuple[np.ndarray, ...]
    ranges: tuple[Range | None, ...]
    exact_name: str | None = None
    exact: Exact | PessimisticRay | None = None

    @property
    def n_grid_points(self) -> int:
        return math.prod(len(axis) for axis in self.axes)

    def grid_points(self, axes=None) -> list[dict]:
        """Every combination of the grid axes, the last axis varying fastest."""
        axes = self.axes if axes is None else axes
        if not axes:
            return [{}]
        mesh = np.stack(np.meshgrid(*[np.arange(len(a)) for a in axes], indexing="ij"), -1)
        return [{name: _scalar(axis[k]) for name, axis, k in zip(self.names, axes, index)}
                for index in mesh.reshape(-1, len(axes))]


def _scalar(value):
    """numpy scalars as plain Python numbers (clean reprs, JSON, criterion checks)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def check_space(space, max_points: int | None = None) -> SearchSpace:
    """Validate a user's space (see the module docstring); ``ValueError`` naming the problem.
    ``max_points``: the most grid points allowed, checked before a :class:`Range` axis is
    built (``Range(0, 1, 10**9)`` would take gigabytes to list)."""
    if not isinstance(space, dict):
        raise TypeError(f"space must be a dict {{parameter: values}}, got {type(space).__name__}.")
    if not space:
        raise ValueError("space is empty: name at least one parameter to search.")
    names, axes, ranges = [], [], []
    exact_name, exact = None, None
    for name, spec in space.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"space keys must be parameter names, got {name!r}.")
        if isinstance(spec, (Exact, PessimisticRay)):
            expected = EXACT_PARAMETER[type(spec)]
            if name != expected:
                raise ValueError(f"{type(spec).__name__}() searches {expected!r}, not {name!r}.")
            if exact is not None:
                raise ValueError(f"only one exact axis per space: {exact_name!r} and {name!r}.")
            exact_name, exact = name, spec
            continue
        if isinstance(spec, Range):
            if max_points is not None and spec.n_points > max_points:
                raise ValueError(f"space[{name!r}] is a Range of {spec.n_points} points; the "
                                 f"whole grid may have at most {max_points} (use fewer points, "
                                 "and refine= to zoom in around the best one).")
            values = spec.values()
            ranges.append(spec)
        else:
            if isinstance(spec, (str, bytes, dict)) or not hasattr(spec, "__iter__"):
                raise ValueError(f"space[{name!r}] must be a list of values, a Range or an exact "
                                 f"marker, got {spec!r}.")
            values = list(spec)
            ranges.append(None)
        if len(values) == 0:
            raise ValueError(f"space[{name!r}] has no values.")
        axis = np.empty(len(values), dtype=object)
        axis[:] = [_scalar(v) for v in values]
        names.append(name)
        axes.append(axis)
    if exact is not None and exact_name in names:
        raise ValueError(f"{exact_name!r} is both a grid axis and an exact axis.")
    _check_no_overlap(names + ([exact_name] if exact_name else []))
    return SearchSpace(tuple(names), tuple(axes), tuple(ranges), exact_name, exact)


def _check_no_overlap(names):
    """``pruning`` and ``pruning__c1`` (or the exact ray) would set the same thing twice."""
    for name in names:
        for other in names:
            if other != name and other.startswith(name + "__"):
                raise ValueError(f"space sets both {name!r} and {other!r}.")
