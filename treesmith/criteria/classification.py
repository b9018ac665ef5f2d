"""Classification criteria without parameters: the string-named, scikit-learn-compatible ones."""

from ._base import Criterion, register
from . import _impurity


@register("gini")
class Gini(Criterion):
    """Gini index, ``criterion="gini"``."""

    formula = "1 - sum_k pi_k^2"

    def impurity_function(self):
        return _impurity.gini


@register("entropy", "log_loss")
class Entropy(Criterion):
    """Shannon entropy in bits, ``criterion="entropy"`` (C4.5's information gain)."""

    formula = "-sum_k pi_k log2 pi_k"

    def impurity_function(self):
        return _impurity.entropy


@register("misclassification")
class Misclassification(Criterion):
    """Misclassification rate, ``criterion="misclassification"``."""

    formula = "1 - max_k pi_k"

    def impurity_function(self):
        return _impurity.misclassification
