"""Setting searched parameters on an estimator, nested ones included.

scikit-learn's ``set_params`` already reaches into parameter objects (``criterion__alpha`` on a
``Tsallis`` criterion, ``split_rule__lam`` on an ``ECART`` rule). A dict-valued parameter such as
``pruning={"method": "bup", "c1": 0.1}`` has no ``set_params``; here ``pruning__c1`` updates a
copy of that dict, so pruning strengths are searched like any other parameter.
"""

from __future__ import annotations

import warnings

from sklearn.base import clone

from ..criteria import ConcavityWarning


def settable(estimator, params: dict) -> dict:
    """``params`` rewritten for ``estimator.set_params``: keys inside dict-valued parameters
    merged into a copy of the dict (``pruning__c1=0.2`` -> ``pruning={..., "c1": 0.2}``)."""
    current = estimator.get_params(deep=False)
    merged: dict = {}
    for name, value in params.items():
        outer, separator, inner = name.partition("__")
        if separator and isinstance(current.get(outer), dict):
            if outer not in merged:
                merged[outer] = dict(current[outer])
            merged[outer][inner] = value
        else:
            merged[name] = value
    return merged


def with_parameters(estimator, params: dict):
    """An unfitted clone of ``estimator`` with ``params`` set (ConcavityWarnings silenced: the
    search reports them once, when the space is checked)."""
    model = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConcavityWarning)
        return model.set_params(**settable(model, params))


def check_parameter_names(estimator, names) -> None:
    """``ValueError`` naming each searched parameter the estimator does not have."""
    deep = estimator.get_params(deep=True)
    shallow = estimator.get_params(deep=False)
    for name in names:
        if name in deep:
            continue
        outer, separator, inner = name.partition("__")
        if separator and isinstance(shallow.get(outer), dict):
            continue
        if separator and outer in shallow and not hasattr(shallow[outer], "get_params"):
            raise ValueError(
                f"cannot search {name!r}: {type(estimator).__name__}.{outer} is "
                f"{shallow[outer]!r}, which has no parameters; pass an object (e.g. "
                f"criterion=Tsallis()) or a dict (pruning={{'method': ...}}) to search inside it.")
        raise ValueError(f"{type(estimator).__name__} has no parameter {name!r}; valid: "
                         f"{sorted(deep)}.")


def check_parameter_values(estimator, points: list[dict]) -> None:
    """Set every point's parameters on a clone (no fit): a bad value fails here, before any fit
    starts, with the parameter's own message; one ConcavityWarning summarises the points
    outside a criterion's proven-concave range."""
    outside = []
    for params in points:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConcavityWarning)
            try:
                clone(estimator).set_params(**settable(estimator, params))
            except (TypeError, ValueError) as error:
                raise ValueError(f"invalid parameter point {params}: {error}") from error
        if any(issubclass(w.category, ConcavityWarning) for w in caught):
            outside.append(params)
    if outside:
        warnings.warn(f"{len(outside)} of {len(points)} parameter points lie outside the "
                      f"criterion's proven-concave range (e.g. {outside[0]}); gains may be "
                      f"negative there.", ConcavityWarning, stacklevel=3)
