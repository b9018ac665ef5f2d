"""User-defined impurities: a plain Python function compiled with Numba into the engine's kernels.

``Custom(func, **params)`` takes ``func(proportions, *params) -> float`` written over a NumPy
vector, compiles it in Numba's nopython mode inside a small wrapper with the engine's signature
``h(proportions, params)`` (the wrapper unpacks ``params`` into positional scalars), and probes it
on a fixed set of class distributions before accepting it. The split kernels then call it through
the same function pointer as the built-in families, at compiled speed.

The compiled wrapper is not part of the object's state: copies and pickles carry ``func`` and the
parameters only, and the wrapper is rebuilt (or taken from a per-process cache) on first use.
Pickling needs ``func`` to be importable by name (a module-level function), as for any pickle.
"""

import inspect
import re

import numba
import numpy as np
from numba.core.dispatcher import Dispatcher

from .._dtypes import IMPURITY_SIGNATURE
from ._base import Criterion, register
from ._checks import check_number

#: A probed value further below 0 than this is "negative"; a pure node further from 0 is refused.
PROBE_TOLERANCE = 1e-12
#: What the guarded impurity returns to the kernels when the user function fails (see
#: ``_wrapper_factory``).
FAILED = -np.inf

#: (func, number of parameters) -> compiled wrapper, so that clones and copies of a Custom
#: criterion (scikit-learn clones per fold) compile once per process.
_COMPILED: dict = {}


def _probe_distributions() -> list[np.ndarray]:
    """Class-proportion vectors the function must handle: every vertex (pure node) for 2, 3 and
    5 classes, the centre, faces with absent classes, near-pure and random interior points."""
    rng = np.random.default_rng(20240607)
    probes = []
    for n_classes in (2, 3, 5):
        probes.extend(np.eye(n_classes))
        probes.append(np.full(n_classes, 1.0 / n_classes))
        face = np.zeros(n_classes)
        face[:2] = 0.5
        probes.append(face)
        near_pure = np.zeros(n_classes)
        near_pure[0], near_pure[-1] = 1.0 - 1e-9, 1e-9
        probes.append(near_pure)
        probes.extend(rng.dirichlet(np.full(n_classes, 0.5), size=4))
    return [np.ascontiguousarray(p, dtype=np.float64) for p in probes]


_PROBES = _probe_distributions()


def _python_function(func):
    return func.py_func if isinstance(func, Dispatcher) else func


def _wrapper_factory(n_params: int):
    """``factory(user_function) -> impurity(proportions, params)`` calling
    ``user_function(proportions, params[0], ..., params[n_params - 1])``.

    The wrapper is a closure on purpose: the engine compiles closures on demand instead of
    caching them on disk (the user's function has no stable file to cache against).

    It is also the guard between user code and the kernels, which cannot raise: an exception
    (an index out of bounds included, the user function being bounds-checked) or a value that
    is NaN, infinite or below ``-PROBE_TOLERANCE`` becomes ``FAILED`` (-inf). A candidate child
    with impurity -inf gives its split a gain of +inf (or NaN), which the split scan flags
    whether or not that candidate would be chosen; the growth loop stops and the fit raises
    ``treesmith._criterion_failure.CriterionFailure`` naming the node, the feature and the
    failing proportions. A node whose own impurity fails is refused by the fitted tree's
    validation (:meth:`treesmith.tree.Tree.validate`). Values in ``[-PROBE_TOLERANCE, 0)``
    (rounding) become 0.
    """
    args = "".join(f", params[{i}]" for i in range(n_params))
    source = ("def factory(user_function):\n"
              "    def impurity(proportions, params):\n"
              "        try:\n"
              f"            value = float(user_function(proportions{args}))\n"
              "        except Exception:\n"
              "            return FAILED\n"
              "        if value >= 0.0 and value < INFINITY:\n"
              "            return value\n"
              "        if value >= -TOLERANCE:\n"
              "            return 0.0\n"
              "        return FAILED\n"
              "    return impurity\n")
    namespace = {"FAILED": FAILED, "INFINITY": np.inf, "TOLERANCE": PROBE_TOLERANCE}
    exec(source, namespace)  # noqa: S102 - a fixed template; no user text is executed
    return namespace["factory"]


def _user_dispatcher(func):
    """``func`` compiled in nopython mode with bounds checks (an out-of-range index raises
    IndexError instead of reading arbitrary memory) and NumPy's error model (a division by zero
    gives inf/nan, never an exception). An already jitted function is compiled again from its
    Python source with its own options plus these."""
    options = dict(func.targetoptions) if isinstance(func, Dispatcher) else {}
    options.update(nogil=True, error_model="numpy", boundscheck=True)
    for option in ("cache", "nopython", "forceobj"):
        options.pop(option, None)
    return numba.njit(**options)(_python_function(func))


def _compile(func, n_params: int):
    """``(user, h)``: the bounds-checked user function (a dispatcher, called from Python by the
    probe so that its exceptions surface with their message) and the guarded dispatcher
    ``h(proportions, params)`` with IMPURITY_SIGNATURE that the kernels call."""
    try:
        cached = _COMPILED.get((func, n_params))
    except TypeError:  # unhashable callable: compile without caching
        cached = None
    if cached is not None:
        return cached
    user_function = _user_dispatcher(func)
    wrapper = _wrapper_factory(n_params)(user_function)
    try:
        compiled = numba.njit(IMPURITY_SIGNATURE, nogil=True)(wrapper)
    except Exception as error:  # numba raises many error types while typing/lowering
        raise ValueError(
            f"Custom criterion: func {_name(func)} does not compile with numba in nopython mode "
            f"as func(proportions: float64[::1], {n_params} float parameter(s)) -> float: "
            f"{_first_lines(error)}"
        ) from error
    try:
        _COMPILED[(func, n_params)] = (user_function, compiled)
    except TypeError:
        pass
    return user_function, compiled


def _first_lines(error, n_lines=3, max_chars=500) -> str:
    """The informative head of a Numba error (no colour codes, no traceback)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head = " | ".join(lines[:n_lines]) or type(error).__name__
    return head[:max_chars]


def _name(func) -> str:
    return getattr(_python_function(func), "__qualname__", repr(func))


@register("custom", by_name=False)
class Custom(Criterion):
    """A user-defined impurity ``func(proportions, *params)`` run at engine speed.

    ``params`` are passed to ``func`` positionally, in the order of ``func``'s own signature when
    it names them (``def h(p, alpha, beta)`` with ``Custom(h, beta=2, alpha=1)`` calls
    ``h(p, 1.0, 2.0)``), otherwise in the order given. Every parameter must be a finite real.

    At construction the function is compiled (with bounds checks, so an index out of range
    raises IndexError rather than reading arbitrary memory) and probed on pure, uniform, face
    and random distributions for 2, 3 and 5 classes; it is refused (ValueError) if it does not
    compile, raises, returns a non-finite or negative value, or is not 0 on a pure node.
    During a fit, a failure on proportions outside the probes (an exception, NaN, inf or a
    negative value) makes the fit raise ValueError naming the node and its proportions.
    """

    formula = "func(pi, *params): any numba-compilable Python function of the proportions"
    parameter_ranges = "func and its keyword parameters (finite reals)"

    def __init__(self, func, **params):
        self.func = func
        self.params = params
        self._compiled = None
        self._check_on_change(stacklevel=3)

    # -- parameters -----------------------------------------------------------------------
    def _ordered_parameters(self) -> dict:
        """The values passed to ``func`` after the proportions, in positional order."""
        names = list(self.params)
        try:
            signature = inspect.signature(_python_function(self.func))
        except (TypeError, ValueError):
            return dict(self.params)
        parameters = list(signature.parameters.values())
        if not parameters or parameters[0].kind not in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
        ):
            raise ValueError(
                f"func {_name(self.func)} must take the proportion vector as its first positional "
                "argument: func(proportions, *params)."
            )
        if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
            return dict(self.params)
        rest = parameters[1:]
        known = {p.name for p in rest}
        unknown = [name for name in names if name not in known]
        if unknown:
            raise ValueError(f"func {_name(self.func)} has no parameter(s) {unknown}.")
        missing = [p.name for p in rest if p.name not in self.params
                   and p.default is inspect.Parameter.empty]
        if missing:
            raise ValueError(f"Custom criterion: no value given for parameter(s) {missing} "
                             f"of func {_name(self.func)}.")
        # Pass every parameter up to the last given one, filling gaps with func's defaults.
        last = max((i for i, p in enumerate(rest) if p.name in self.params), default=-1)
        return {p.name: self.params.get(p.name, p.default) for p in rest[:last + 1]}

    def parameters(self) -> np.ndarray:
        values = [check_number(name, value) for name, value in self._ordered_parameters().items()]
        return np.asarray(values if values else [0.0], dtype=np.float64)

    def get_params(self, deep: bool = True) -> dict:
        return {"func": self.func, **self.params}

    def set_params(self, **params):
        if "func" in params:
            self.func = params.pop("func")
        self.params = {**self.params, **params}
        self._compiled = None
        self._check_on_change(stacklevel=3)
        return self

    # -- compilation and probing ----------------------------------------------------------
    def impurity_function(self):
        return self._compile()[1]

    def _compile(self):
        if self._compiled is None:
            self._compiled = _compile(self.func, len(self._ordered_parameters()))
        return self._compiled

    def _check_parameters(self):
        if not callable(self.func):
            raise ValueError(
                f"func must be a callable func(proportions, *params), got {self.func!r}.")
        params = self.parameters()[:len(self._ordered_parameters())]
        user_function = self._compile()[0]
        for proportions in _PROBES:
            try:  # bounds-checked: a bad index raises here instead of crashing the process
                value = float(user_function(proportions, *params))
            except Exception as error:
                raise ValueError(
                    f"Custom criterion: func {_name(self.func)} raised {type(error).__name__} on "
                    f"proportions {np.round(proportions, 6).tolist()}: {_first_lines(error)} "
                    f"(checked with bounds checks on; in a fit, such a failure stops the fit "
                    f"with an error naming the node)"
                ) from error
            where = f"on proportions {np.round(proportions, 6).tolist()}"
            if not np.isfinite(value):
                raise ValueError(f"Custom criterion: func {_name(self.func)} returns a non-finite "
                                 f"value ({value}) {where}.")
            if value < -PROBE_TOLERANCE:
                raise ValueError(f"Custom criterion: func {_name(self.func)} returns a negative "
                                 f"value ({value:.6g}) {where}; an impurity must be >= 0.")
            if proportions.max() == 1.0 and abs(value) > PROBE_TOLERANCE:
                raise ValueError(f"Custom criterion: func {_name(self.func)} is not zero on a pure "
                                 f"node: {value:.6g} {where}.")

    def describe_failure(self, proportions) -> str:
        """What ``func`` does on ``proportions`` (bounds-checked call from Python): "raised
        IndexError: ...", "returned nan", "returned -0.3"."""
        params = self.parameters()[:len(self._ordered_parameters())]
        try:
            value = float(self._compile()[0](np.ascontiguousarray(proportions, dtype=np.float64),
                                             *params))
        except Exception as error:
            return f"func raised {type(error).__name__}: {_first_lines(error, max_chars=200)}"
        return f"func returned {value!r}"

    # -- copies and pickles carry no compiled code -----------------------------------------
    def __getstate__(self):
        state = dict(self.__dict__)
        state["_compiled"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._compiled = None

    def __repr__(self) -> str:
        args = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"Custom({_name(self.func)}{args})"

    def __eq__(self, other) -> bool:
        if type(other) is not Custom:
            return NotImplemented
        return self.func is other.func and self.params == other.params

    def __hash__(self) -> int:
        return hash(("Custom", id(self.func), tuple(sorted(self.params.items()))))
