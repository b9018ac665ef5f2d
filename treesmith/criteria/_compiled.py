"""How an impurity function is compiled and handed to the split kernels: once, on first use.

The built-in impurities are Numba dispatchers without a signature (``@impurity``), so importing
treesmith compiles nothing and loads nothing from Numba's cache. ``compiled(h)`` compiles ``h``
for ``IMPURITY_SIGNATURE`` — or loads that single entry from the on-disk cache — the first time
a criterion is used, and only for that criterion; a fit with Gini never touches entropy.

The kernels take the impurity as a first-class function. :class:`ImpurityPointer` gives them
the C entry point of that same compile (``treesmith._kernels.pointers``, which also says why
not a separate ``numba.cfunc``).
"""

import os

from numba import njit
from numba.core import errors
from numba.core.ccallback import CFunc
from numba.core.dispatcher import Dispatcher

from .._dtypes import IMPURITY_SIGNATURE
from .._kernels.pointers import FunctionPointer


def impurity(function):
    """Decorator of an impurity ``h(vector, params) -> float``: a lazily compiled Numba function
    (see :func:`compiled`), cached on disk when it is defined in a file (Numba cannot cache a
    function typed into an interpreter or run with ``exec``)."""
    cacheable = os.path.isfile(getattr(getattr(function, "__code__", None), "co_filename", ""))
    return njit(cache=cacheable, nogil=True)(function)


def compiled(function):
    """``function`` (a Numba dispatcher) compiled for ``IMPURITY_SIGNATURE``, or loaded from
    Numba's cache, if it is not yet; anything else is returned unchanged.

    Compiling with the full signature, for Python calls as well as for the kernels, keeps one
    overload and one cache entry per impurity.
    """
    if isinstance(function, Dispatcher) and function not in _COMPILED:
        function.get_compile_result(IMPURITY_SIGNATURE)
        _COMPILED.add(function)
    return function


#: Dispatchers ``compiled`` has compiled (or loaded): looking the overload up again cost
#: ~10 us per fit (hashing the signature's types).
_COMPILED: set = set()


class ImpurityPointer(FunctionPointer):
    """The C entry point of a compiled impurity, passed to the kernels as a first-class function.

    Numba types it as ``IMPURITY_FUNCTION_TYPE``, like a ``cfunc`` of that signature, so one
    compiled kernel serves every criterion.
    """

    def __init__(self, dispatcher: Dispatcher):
        super().__init__(dispatcher, IMPURITY_SIGNATURE)


def pointer_to(function):
    """A first-class function for the kernels from an impurity function: a ``cfunc`` of
    ``IMPURITY_SIGNATURE`` as it is, a dispatcher (or plain Python function, compiled here)
    as an :class:`ImpurityPointer`.

    A dispatcher that cannot be compiled for the signature (one declared with other argument
    types) is compiled again from its Python function, without disk cache.
    """
    if isinstance(function, (CFunc, ImpurityPointer)):
        return function
    if not isinstance(function, Dispatcher):
        cacheable = (getattr(function, "__closure__", None) is None
                     and "<locals>" not in getattr(function, "__qualname__", "<locals>"))
        function = njit(cache=cacheable, nogil=True)(function)
        if not isinstance(function, Dispatcher):  # NUMBA_DISABLE_JIT: the kernels are Python
            return function
    try:
        return ImpurityPointer(function)
    except errors.TypingError:
        return ImpurityPointer(njit(nogil=True)(function.py_func))
