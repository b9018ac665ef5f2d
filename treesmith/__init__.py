"""treesmith: decision trees that are accurate, small and cheap to evaluate.

The estimators are scikit-learn compatible and run on a Numba-compiled histogram engine.
Optional parts (export, plots, model files, pruning, datasets, CLI) are imported on first use.
"""

from importlib import import_module

from ._gc import collector_paused

# Creating the Numba dispatchers of the kernels allocates enough to trigger full garbage
# collections over every object the dependencies hold (see treesmith._gc).
with collector_paused():
    from . import criteria
    from .binning import BinMapper
    from .estimators import DecisionTreeClassifier, DecisionTreeRegressor

__version__ = "0.1.0"

# Public names provided by sub-modules that load on first access (keeps `import treesmith` fast
# and lets optional dependencies stay optional).
_LAZY = {
    # C4.5 loads on first use: its estimator and kernels were a sixth of `import treesmith`
    "C45Classifier": "treesmith.c45",
    "BayesianTreeClassifier": "treesmith.bayes",
    "BayesianTreeRegressor": "treesmith.bayes",
    "plot_trace": "treesmith.bayes",
    "prune": "treesmith.pruning",
    "select_ccp_alpha": "treesmith.model_selection",
    "tune_ccp_alpha": "treesmith.model_selection",
    "select_by_explainability": "treesmith.model_selection",
    "select_pruning_parameters": "treesmith.model_selection",
    "expected_cost": "treesmith.metrics",
    "predict_lazy": "treesmith.metrics",
    "select_lambda": "treesmith.model_selection",
    "learn_parameters": "treesmith.model_selection",
    "max_cost": "treesmith.metrics",
    "RandomForestClassifier": "treesmith.ensemble",
    "RandomForestRegressor": "treesmith.ensemble",
    "ExtraTreesClassifier": "treesmith.ensemble",
    "ExtraTreesRegressor": "treesmith.ensemble",
    "ExtraTreeClassifier": "treesmith.estimators",
    "ExtraTreeRegressor": "treesmith.estimators",
    "BudgetForestClassifier": "treesmith.ensemble",
    "ensemble": "treesmith.ensemble",
    "coalesce": "treesmith.preprocessing",
    "KMeansBinarizer": "treesmith.preprocessing",
    "ModelFileError": "treesmith.io",
    "CriterionFailure": "treesmith._criterion_failure",
    "ConcavityWarning": "treesmith.criteria._base",
    "LargeTreeWarning": "treesmith.grower",
    "UnseenLevelWarning": "treesmith.datasets",
    "Float32ThresholdWarning": "treesmith.interop",
    "save": "treesmith.io",
    "load": "treesmith.io",
    "to_dict": "treesmith.io",
    "from_dict": "treesmith.io",
    "export_text": "treesmith.export",
    "export_graphviz": "treesmith.export",
    "forest_summary": "treesmith.export",
    "plot_tree": "treesmith.plotting",
    "load_dataset": "treesmith.datasets",
    "list_datasets": "treesmith.datasets",
    "metrics": "treesmith.metrics",
    "rules": "treesmith.rules",
    "datasets": "treesmith.datasets",
    "pruning": "treesmith.pruning",
    "preprocessing": "treesmith.preprocessing",
    "model_selection": "treesmith.model_selection",
}


def __getattr__(name):
    if name in _LAZY:
        module = import_module(_LAZY[name])
        value = module if module.__name__.endswith("." + name) else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'treesmith' has no attribute {name!r}")


__all__ = [
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "BinMapper",
    "criteria",
    *_LAZY,
]
