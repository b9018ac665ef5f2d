"""Old import paths of the functions that moved to :mod:`treesmith.model_selection`.

``select_ccp_alpha``, ``tune_ccp_alpha``, ``select_by_explainability``,
``select_pruning_parameters`` and ``select_lambda`` (with their result records) used to live in
``treesmith.pruning`` and ``treesmith.rules``. Those modules answer the old names through a
module ``__getattr__`` that calls :func:`moved_attribute`: the import keeps working for one
release and says where the name lives now.
"""

from __future__ import annotations

import warnings
from importlib import import_module

#: Every moved name and the module of treesmith.model_selection that now defines it.
NEW_HOMES = {
    "CCPSelection": "treesmith.model_selection.ccp_alpha",
    "select_ccp_alpha": "treesmith.model_selection.ccp_alpha",
    "tune_ccp_alpha": "treesmith.model_selection.ccp_alpha",
    "ExplainabilitySelection": "treesmith.model_selection.explainability",
    "select_by_explainability": "treesmith.model_selection.explainability",
    "SEARCHABLE": "treesmith.model_selection.pruning_parameters",
    "select_pruning_parameters": "treesmith.model_selection.pruning_parameters",
    "DEFAULT_LAMBDAS": "treesmith.model_selection.lambda_selection",
    "LambdaSelection": "treesmith.model_selection.lambda_selection",
    "select_lambda": "treesmith.model_selection.lambda_selection",
    "validation_auc": "treesmith.model_selection.lambda_selection",
}


def moved_attribute(old_module: str, name: str):
    """``name`` from its new home, with a DeprecationWarning naming the new import path."""
    public = "treesmith.model_selection" if not name.isupper() and name != "validation_auc" \
        else NEW_HOMES[name]
    warnings.warn(
        f"{old_module}.{name} moved to {public}.{name}; the old import path will be removed in "
        f"the next release.", DeprecationWarning, stacklevel=3)
    return getattr(import_module(NEW_HOMES[name]), name)
