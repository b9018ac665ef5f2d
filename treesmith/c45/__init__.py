"""C4.5 release 8 as Weka's J48 builds it: :class:`C45Classifier` (docs/methods.md §11).

``treesmith.c45.weka`` runs Weka's own J48 (when Java and Weka are installed) for the
agreement tests and ``experiments/j48_agreement.py``.
"""

from ._estimator import C45Classifier
from ._tree import C45Tree

__all__ = ["C45Classifier", "C45Tree"]
