"""Moved: the K-fold search of pruning parameters now lives in :mod:`treesmith.model_selection`.

``from treesmith.pruning.parameter_search import select_pruning_parameters`` keeps working for
one release, with a DeprecationWarning.
"""

_MOVED = ("SEARCHABLE", "select_pruning_parameters")


def __getattr__(name):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..model_selection._moved import moved_attribute

    return moved_attribute(__name__, name)
