"""First-class function pointers to compiled kernels.

The growth kernel calls some functions through pointers instead of directly: the impurity (so
that one compiled kernel serves every criterion) and the per-feature split scan (Numba copies
a directly called function's code into every caller and optimises and emits it again there;
through a pointer it is compiled once). :class:`FunctionPointer` hands the kernels the C entry
point that every Numba compile result already contains (the "cfunc wrapper"), so one compile,
and one cache entry, serves both the kernels and calls from Python.

A separate ``numba.cfunc`` of the same Python function would not only be a second compile: a
cfunc and a dispatcher of one Python function share a cache index file and key, and a
dispatcher that loads the cfunc's entry has no CPython wrapper (Numba 0.68 then crashes when it
is called from Python).
"""

from numba.core.dispatcher import Dispatcher
from numba.core.types import WrapperAddressProtocol


class FunctionPointer(WrapperAddressProtocol):
    """The C entry point of ``dispatcher`` compiled for ``signature`` (compiled now, or loaded
    from Numba's cache). Numba types it as ``types.FunctionType(signature)``, like a ``cfunc``.
    The dispatcher is kept alive with the pointer."""

    def __init__(self, dispatcher: Dispatcher, signature):
        result = dispatcher.get_compile_result(signature)
        self.dispatcher = dispatcher
        self._signature = signature
        self._address = result.library.get_pointer_to_function(
            result.fndesc.llvm_cfunc_wrapper_name)

    def __wrapper_address__(self) -> int:
        return self._address

    def signature(self):
        return self._signature

    def __call__(self, *args):
        return self.dispatcher(*args)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.dispatcher.py_func.__qualname__}>"


def function_pointer(function, signature):
    """A :class:`FunctionPointer` to ``function`` compiled for ``signature``; ``function``
    itself when it is not a Numba dispatcher (under ``NUMBA_DISABLE_JIT=1`` the kernels are
    plain Python and call it directly)."""
    if not isinstance(function, Dispatcher):
        return function
    return FunctionPointer(function, signature)
