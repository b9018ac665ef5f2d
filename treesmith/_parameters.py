"""The small parameter objects the estimators take (criteria, split rules).

Each subclass lists its constructor parameters in ``_param_names``. This base gives them the
scikit-learn parameter protocol (``get_params`` / ``set_params``, so ``clone`` and nested grid
search such as ``criterion__alpha`` work), the float64 vector the kernels receive, and value
semantics: equal parameters compare and hash equal.
"""

from __future__ import annotations

import numpy as np


class ParameterObject:
    """Base of the criterion and rule objects: parameters named in ``_param_names``."""

    _param_names: tuple[str, ...] = ()

    def parameters(self) -> np.ndarray:
        """The float64 parameter vector passed to the kernels (``[0.0]`` when there is none)."""
        values = [float(getattr(self, name)) for name in self._param_names]
        return np.asarray(values if values else [0.0], dtype=np.float64)

    def get_params(self, deep: bool = True) -> dict:
        """The constructor parameters (scikit-learn protocol)."""
        return {name: getattr(self, name) for name in self._param_names}

    def set_params(self, **params):
        """Set parameters by name, validate them again (``_parameters_changed``); returns
        ``self``."""
        valid = self.get_params()
        for name in params:
            if name not in valid:
                raise ValueError(
                    f"{type(self).__name__} has no parameter {name!r}; valid: {sorted(valid)}."
                )
        for name, value in params.items():
            setattr(self, name, value)
        self._parameters_changed()
        return self

    def _parameters_changed(self) -> None:
        """Called after ``set_params``: validate the new values."""
        self._check_parameters()

    def _check_parameters(self) -> None:
        """Raise ``ValueError`` naming the first parameter outside its domain."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        mine, theirs = self.get_params(), other.get_params()
        return all(np.array_equal(np.asarray(mine[k]), np.asarray(theirs[k])) for k in mine)

    def __hash__(self) -> int:
        # Values as flat lists, so that equal objects hash equal (Tsallis(alpha=2) ==
        # Tsallis(alpha=2.0); hash(2) == hash(2.0)) and array parameters are hashable.
        values = tuple(tuple(np.asarray(value).ravel().tolist())
                       for value in self.get_params().values())
        return hash((type(self).__name__, values))
