"""Moved: choosing ECART's λ now lives in :mod:`treesmith.model_selection`.

``from treesmith.rules.lambda_selection import select_lambda`` keeps working for one release,
with a DeprecationWarning.
"""

_MOVED = ("DEFAULT_LAMBDAS", "LambdaSelection", "select_lambda", "validation_auc")


def __getattr__(name):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..model_selection._moved import moved_attribute

    return moved_attribute(__name__, name)
