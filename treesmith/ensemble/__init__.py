"""Forests on the treesmith engine and the feature-budgeted random forest (docs/methods.md §7)."""

from .budget import BudgetForestClassifier
from .costs import features_used
from .forest import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from .greedy_tree import GreedyTreeClassifier
from ..rules.set_functions import Powers, ThresholdPairs

__all__ = ["BudgetForestClassifier", "ExtraTreesClassifier", "ExtraTreesRegressor", "GreedyTreeClassifier", "Powers", "RandomForestClassifier",
           "RandomForestRegressor", "ThresholdPairs", "features_used"]
