"""Parameter checks shared by the criterion classes: one clear ValueError per bad parameter."""

import numbers

import numpy as np


def check_number(name, value, *, low=None, high=None, low_open=True, high_open=False,
                 integer=False) -> float:
    """Return ``value`` as a float after checking it is a finite real in the given interval.

    ``low``/``high`` are the bounds (None = unbounded); ``*_open`` says whether the bound is
    excluded. ``integer=True`` also requires an integral value. The error names ``name`` and
    the expected range, e.g. ``alpha must be a real number in (0, 1], got -1``.
    """
    lower = "(" if low_open or low is None else "["
    upper = ")" if high_open or high is None else "]"
    kind = "an integer" if integer else "a real number"
    span = f"{lower}{'-inf' if low is None else low}, {'inf' if high is None else high}{upper}"
    expected = f"{name} must be {kind} in {span}, got {value!r}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(expected + ".")
    try:
        number = float(value)
    except OverflowError:  # an int beyond float64 (10**400)
        raise ValueError(expected + ".") from None
    if not np.isfinite(number):
        raise ValueError(expected + ".")
    if integer and number != round(number):
        raise ValueError(expected + ".")
    if low is not None and (number < low or (low_open and number == low)):
        raise ValueError(expected + ".")
    if high is not None and (number > high or (high_open and number == high)):
        raise ValueError(expected + ".")
    return number


#: Domain of the exponents of the parameterised families (alpha, beta, gamma of Tsallis, Renyi,
#: PE, PG, PR, PT, GE, ABI, Product): [EXPONENT_LOW, EXPONENT_HIGH]. Outside it the families
#: degenerate numerically: with an exponent of 1e-300 every pi^a rounds to 1 (the impurity only
#: counts the classes present), and with 1e300 every power of a proportion underflows to 0 or a
#: power of an entropy above 1 overflows to inf, so all impure nodes look alike and the split
#: choice is rounding noise. Within it, powers of proportions down to 1e-3 stay normal floats.
EXPONENT_LOW = 1e-3
EXPONENT_HIGH = 100.0
