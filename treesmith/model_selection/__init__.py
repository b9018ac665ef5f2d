"""Model selection: choosing a tree algorithm's parameters from data (docs/methods.md §8).

On one dataset:

* :func:`select_ccp_alpha` — cost-complexity alpha by K-fold CV (min or 1-SE rule);
* :func:`select_pruning_parameters` — any pruning method's parameters by K-fold CV;
* :func:`select_by_explainability` — the subtree minimising held-out error + eta * leaves;
* :func:`select_lambda` — ECART's λ by the decreasing-λ protocol on validation data.

Across many problem instances (Balcan & Sharma, "Learning accurate and interpretable decision
trees", 2024): :func:`tune_ccp_alpha` (exact, over the union of breakpoints) and the general
:func:`learn_parameters`, which learns any estimator parameters — criterion parameters such as
``criterion__alpha``, pruning strengths, rule parameters — by empirical risk minimisation over
the instances, on joblib or on a ``dask.distributed`` cluster.
"""

from .ccp_alpha import CCPSelection, select_ccp_alpha, tune_ccp_alpha
from .explainability import ExplainabilitySelection, select_by_explainability
from .instances import Instance, cv_instances, split_instances
from .lambda_selection import LambdaSelection, select_lambda
from .learning import LearnedParameters, learn_parameters
from .pruning_parameters import select_pruning_parameters
from .space import Exact, PessimisticRay, Range

__all__ = [
    "CCPSelection",
    "Exact",
    "ExplainabilitySelection",
    "Instance",
    "LambdaSelection",
    "LearnedParameters",
    "PessimisticRay",
    "Range",
    "cv_instances",
    "learn_parameters",
    "select_by_explainability",
    "select_ccp_alpha",
    "select_lambda",
    "select_pruning_parameters",
    "split_instances",
    "tune_ccp_alpha",
]
