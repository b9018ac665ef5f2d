"""Classification criteria without parameters: the string-named, scikit-learn-compatible ones."""

from . import _impurity
from ._base import Criterion, register
from ._compiled import compiled


@register("gini")
class Gini(Criterion):
    """Gini index, ``criterion="gini"``."""

    formula = "1 - sum_k pi_k^2"

    def strictly_concave(self):
        return True

    def impurity_function(self):
        return compiled(_impurity.gini)


@register("entropy", "log_loss")
class Entropy(Criterion):
    """Shannon entropy in bits, ``criterion="entropy"`` (C4.5's information gain)."""

    formula = "-sum_k pi_k log2 pi_k"

    def strictly_concave(self):
        return True

    def impurity_function(self):
        return compiled(_impurity.entropy)


@register("misclassification")
class Misclassification(Criterion):
    """Misclassification rate, ``criterion="misclassification"``."""

    formula = "1 - max_k pi_k"

    def strictly_concave(self):
        return False  # piecewise linear: exact ties inside same-class runs

    def impurity_function(self):
        return compiled(_impurity.misclassification)


@register("km96")
class KM96(Criterion):
    """Kearns and Mansour (1996) criterion, ``criterion="km96"``: (alpha, beta)-Tsallis with
    alpha = 1/2, beta = 2 (seed 002 Prop. 3.1); binary: 4 sqrt(pi (1 - pi))."""

    formula = "2 sum_{i!=j} sqrt(pi_i pi_j) = tsallis(1/2, 2); binary 4 sqrt(pi (1 - pi))"

    def strictly_concave(self):
        return True

    def impurity_function(self):
        return compiled(_impurity.km96)
