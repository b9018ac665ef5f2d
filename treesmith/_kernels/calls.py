"""Calls of compiled kernels from Python without Numba's per-call typing of the arguments.

Each call of a Numba dispatcher from Python types every argument before it picks the compiled
overload. Arrays and scalars are typed in C, fast; a namedtuple record, a tuple of arrays or a
function pointer falls back to Numba's Python ``typeof``, field by field: typing the eleven
records of ``growth.grow`` took ~0.2 ms, a third of the engine's time in a fit on iris, and
the pointer caches of ``pointers`` typed the same records again to build their keys.

Here an argument's *fingerprint* stands for its Numba type: for an array its dtype, number
of dimensions and flags word (``ndarray.flags.num``: C/F contiguity, writeability,
alignment, which determine the layout and mutability Numba types), for a Python scalar its
type (an ``int`` only below 2**63, which Numba types as int64), for a tuple or namedtuple
its class and its fields' fingerprints, for a function pointer its identity. A fingerprint is
built in a few microseconds and is at least as fine as the type (two arguments with one
fingerprint have one Numba type), so

- :func:`record_type` memoises ``numba.typeof`` of a record by its fingerprint, and
- :class:`KernelCall` calls the overload that the dispatcher chose for the first arguments of
  that fingerprint through its entry point (``CompileResult.entry_point``: the same compiled
  code and CPython wrapper, which releases the GIL for ``nogil`` kernels), skipping the
  dispatcher's typing.

Anything else (a Python object, a big int, an array subclass) has no fingerprint: the call
goes through the dispatcher as before, with its errors. Under ``NUMBA_DISABLE_JIT`` kernels
are Python functions and are called as they are.
"""

from __future__ import annotations

import numpy as np
from numba.core.ccallback import CFunc
from numba.core.dispatcher import Dispatcher
from numba.core.types import WrapperAddressProtocol


class _NoFingerprint(Exception):
    """An argument whose Numba type a fingerprint cannot stand for."""


#: Function pointers that appear in a remembered fingerprint, kept alive: their identity is
#: in the key, and a dead object's id could be reused by another of another signature.
_KEPT_FUNCTIONS: dict = {}


def _fingerprint(value):
    kind = type(value)
    if kind is np.ndarray:
        return (value.dtype, value.ndim, value.flags.num)
    if kind is float or kind is bool:
        return kind
    if kind is int:
        if value.bit_length() < 64:
            return kind
        raise _NoFingerprint
    if isinstance(value, tuple):
        return (kind, tuple([_fingerprint(field) for field in value]))
    if isinstance(value, (WrapperAddressProtocol, CFunc)):
        return ("function", id(value))
    if isinstance(value, np.generic) and kind in _NUMPY_SCALARS:
        return kind
    raise _NoFingerprint


#: Numpy scalar types Numba types by their dtype alone.
_NUMPY_SCALARS = frozenset({np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                            np.uint16, np.uint32, np.uint64, np.float32, np.float64})


def fingerprint(value):
    """The fingerprint of ``value`` (see the module docstring), or None when it has none."""
    try:
        return _fingerprint(value)
    except _NoFingerprint:
        return None


def _keep_functions(value):
    """Keep alive every function pointer inside ``value`` (see ``_KEPT_FUNCTIONS``)."""
    if isinstance(value, tuple):
        for field in value:
            _keep_functions(field)
    elif isinstance(value, (WrapperAddressProtocol, CFunc)):
        _KEPT_FUNCTIONS[id(value)] = value


#: fingerprint -> Numba type.
_RECORD_TYPES: dict = {}


def record_type(value):
    """``numba.typeof(value)``, memoised by the value's fingerprint (a record's type is built
    once per process, not once per fit)."""
    import numba

    key = fingerprint(value)
    if key is None:
        return numba.typeof(value)
    found = _RECORD_TYPES.get(key)
    if found is None:
        found = numba.typeof(value)
        _keep_functions(value)
        _RECORD_TYPES[key] = found
    return found


class KernelCall:
    """Call ``kernel`` (a ``numba.njit`` dispatcher with its CPython wrapper) through the
    entry point of its overload for the arguments' fingerprint: the first call with a new
    fingerprint goes through the dispatcher (which compiles or loads the overload, or raises
    its typing error), later ones skip its typing. Use :func:`kernel_call` to build one."""

    def __init__(self, kernel: Dispatcher):
        self.kernel = kernel
        self._entries: dict = {}
        self.__name__ = getattr(kernel, "__name__", type(self).__name__)
        self.__doc__ = kernel.__doc__

    def __call__(self, *args):
        try:
            key = _fingerprint(args)
        except _NoFingerprint:
            return self.kernel(*args)
        entry = self._entries.get(key)
        if entry is not None:
            return entry(*args)
        result = self.kernel(*args)
        self._remember(key, args)
        return result

    def _remember(self, key, args):
        """Store the entry point of the overload the dispatcher has for ``args``' types (an
        exact match only: when it converted the arguments to another overload's types, later
        calls keep going through the dispatcher)."""
        kernel = self.kernel
        arg_types = tuple(kernel.typeof_pyval(arg) for arg in args)
        compiled = kernel.overloads.get(arg_types)
        if compiled is None:
            return
        _keep_functions(args)
        self._entries[key] = compiled.entry_point

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.__name__}>"


def kernel_call(kernel):
    """``kernel`` wrapped in a :class:`KernelCall`; the kernel itself under
    ``NUMBA_DISABLE_JIT`` (a Python function) or when it has no CPython wrapper
    (``decorators.internal_kernel`` / ``pointer_kernel``: it is not called from Python)."""
    if not isinstance(kernel, Dispatcher) or kernel.targetoptions.get("no_cpython_wrapper"):
        return kernel
    return KernelCall(kernel)
