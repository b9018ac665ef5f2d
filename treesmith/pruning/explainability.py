"""Moved: the explainability objective now lives in :mod:`treesmith.model_selection`.

``from treesmith.pruning.explainability import select_by_explainability`` keeps working for one
release, with a DeprecationWarning.
"""

_MOVED = ("ExplainabilitySelection", "select_by_explainability")


def __getattr__(name):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..model_selection._moved import moved_attribute

    return moved_attribute(__name__, name)
