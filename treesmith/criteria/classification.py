"""Classification criteria without parameters: the string-named, scikit-learn-compatible ones."""

from . import _impurity
from ._base import Criterion, register


@register("gini")
class Gini(Criterion):
    """Gini index, ``criterion="gini"``."""

    formula = "1 - sum_k pi_k^2"
    impurity = staticmethod(_impurity.gini)
    strict_concavity = True


@register("entropy", "log_loss")
class Entropy(Criterion):
    """Shannon entropy in bits, ``criterion="entropy"`` (C4.5's information gain)."""

    formula = "-sum_k pi_k log2 pi_k"
    impurity = staticmethod(_impurity.entropy)
    strict_concavity = True


@register("misclassification")
class Misclassification(Criterion):
    """Misclassification rate, ``criterion="misclassification"``."""

    formula = "1 - max_k pi_k"
    impurity = staticmethod(_impurity.misclassification)
    strict_concavity = False  # piecewise linear: exact ties inside same-class runs


@register("km96")
class KM96(Criterion):
    """Kearns and Mansour (1996) criterion, ``criterion="km96"``: (alpha, beta)-Tsallis with
    alpha = 1/2, beta = 2 (Balcan and Sharma 2024, Prop. 3.1); binary: 4 sqrt(pi (1 - pi))."""

    formula = "2 sum_{i!=j} sqrt(pi_i pi_j) = tsallis(1/2, 2); binary 4 sqrt(pi (1 - pi))"
    impurity = staticmethod(_impurity.km96)
    strict_concavity = True
