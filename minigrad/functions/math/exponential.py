"""Exponentials and logarithms: exp, log, log1p, expm1, log2, log10.

Each node is one row: forward (a ufunc of the array module) and ``dy/dx``
written with minigrad functions of ``x`` (or of the output ``y``).
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Exp", "Log", "Log1p", "Expm1", "Log2", "Log10", "exp", "log", "log1p", "expm1", "log2", "log10"]

Exp = elementwise("Exp", "exp", lambda gy, x, y: gy * y, uses="y")
Log = elementwise("Log", "log", lambda gy, x, y: gy * (1 / x))
Log1p = elementwise("Log1p", "log1p", lambda gy, x, y: gy * (1 / (1 + x)))
Expm1 = elementwise("Expm1", "expm1", lambda gy, x, y: gy * (y + 1), uses="y")
Log2 = elementwise("Log2", "log2", lambda gy, x, y: gy * (1 / (math.log(2.0) * x)))
Log10 = elementwise("Log10", "log10", lambda gy, x, y: gy * (1 / (math.log(10.0) * x)))


def exp(x: Any) -> Variable:
    """Elementwise ``e ** x``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.exp(np.array([0.0])).array
        array([1.])
    """
    return Exp().apply((as_input("exp", x, float_only=True),))[0]


def log(x: Any) -> Variable:
    """Elementwise natural logarithm.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.log(np.array([1.0])).array
        array([0.])
    """
    return Log().apply((as_input("log", x, float_only=True),))[0]


def log1p(x: Any) -> Variable:
    """Elementwise ``log(1 + x)``, accurate for small ``x``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.log1p(np.array([1e-20])).array
        array([1.e-20])
    """
    return Log1p().apply((as_input("log1p", x, float_only=True),))[0]


def expm1(x: Any) -> Variable:
    """Elementwise ``exp(x) - 1``, accurate for small ``x``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.expm1(np.array([1e-20])).array
        array([1.e-20])
    """
    return Expm1().apply((as_input("expm1", x, float_only=True),))[0]


def log2(x: Any) -> Variable:
    """Elementwise base-2 logarithm.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.log2(np.array([8.0])).array
        array([3.])
    """
    return Log2().apply((as_input("log2", x, float_only=True),))[0]


def log10(x: Any) -> Variable:
    """Elementwise base-10 logarithm.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.log10(np.array([100.0])).array
        array([2.])
    """
    return Log10().apply((as_input("log10", x, float_only=True),))[0]
