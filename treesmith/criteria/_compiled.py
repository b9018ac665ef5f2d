"""How an impurity function is compiled and handed to the split kernels: once, on first use.

The built-in impurities are Numba dispatchers without a signature (``@impurity``), so importing
treesmith compiles nothing and loads nothing from Numba's cache. ``compiled(h)`` compiles ``h``
for ``IMPURITY_SIGNATURE`` — or loads that single entry from the on-disk cache — the first time
a criterion is used, and only for that criterion; a fit with Gini never touches entropy.

The kernels take the impurity as a first-class function. :class:`ImpurityPointer` gives them
the C entry point that every Numba compile result already contains (the "cfunc wrapper"), so
one compile serves both the kernels and calls from Python. Building a separate
``numba.cfunc`` instead is not only a second compile: a cfunc and a dispatcher of the same
Python function share one cache index file and key, and a dispatcher that loads the cfunc's
entry has no CPython wrapper (Numba 0.68 then crashes when it is called from Python).
"""

from numba import njit
from numba.core import errors
from numba.core.ccallback import CFunc
from numba.core.dispatcher import Dispatcher
from numba.core.types import WrapperAddressProtocol

from .._dtypes import IMPURITY_SIGNATURE


def impurity(function):
    """Decorator of a built-in impurity ``h(vector, params) -> float``: a lazily compiled,
    disk-cached Numba function (see :func:`compiled`)."""
    return njit(cache=True, nogil=True)(function)


def compiled(function):
    """``function`` (a Numba dispatcher) compiled for ``IMPURITY_SIGNATURE``, or loaded from
    Numba's cache, if it is not yet; anything else is returned unchanged.

    Compiling with the full signature, for Python calls as well as for the kernels, keeps one
    overload and one cache entry per impurity.
    """
    if isinstance(function, Dispatcher):
        function.get_compile_result(IMPURITY_SIGNATURE)
    return function


class ImpurityPointer(WrapperAddressProtocol):
    """The C entry point of a compiled impurity, passed to the kernels as a first-class function.

    Numba types it as ``IMPURITY_FUNCTION_TYPE``, like a ``cfunc`` of that signature, so one
    compiled kernel serves every criterion. The dispatcher is kept alive with the pointer.
    """

    def __init__(self, dispatcher: Dispatcher):
        result = dispatcher.get_compile_result(IMPURITY_SIGNATURE)
        self.dispatcher = dispatcher
        self._address = result.library.get_pointer_to_function(
            result.fndesc.llvm_cfunc_wrapper_name)

    def __wrapper_address__(self) -> int:
        return self._address

    def signature(self):
        return IMPURITY_SIGNATURE

    def __call__(self, vector, params) -> float:
        return self.dispatcher(vector, params)

    def __repr__(self) -> str:
        return f"<ImpurityPointer {self.dispatcher.py_func.__qualname__}>"


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
