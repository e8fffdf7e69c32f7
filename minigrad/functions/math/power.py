"""Powers with their own nodes: sqrt, rsqrt (``1 / sqrt(x)``), cbrt (the real cube root) and square.

(``x ** y`` in general is ``pow`` in basic_math.)
"""

from __future__ import annotations

from typing import Any

from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Sqrt", "Rsqrt", "Cbrt", "Square", "sqrt", "rsqrt", "cbrt", "square"]

Sqrt = elementwise("Sqrt", "sqrt", lambda gy, x, y: gy * (0.5 / y), uses="y")
Rsqrt = elementwise("Rsqrt", lambda xp, x: xp.reciprocal(xp.sqrt(x)), lambda gy, x, y: gy * (-0.5 * y * y * y),
                    uses="y")
Cbrt = elementwise("Cbrt", "cbrt", lambda gy, x, y: gy * (1 / (3 * y * y)), uses="y")
Square = elementwise("Square", "square", lambda gy, x, y: gy * (2 * x))


def sqrt(x: Any) -> Variable:
    """Elementwise square root.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sqrt(np.array([4.0, 9.0])).array
        array([2., 3.])
    """
    return Sqrt().apply((as_input("sqrt", x, float_only=True),))[0]


def rsqrt(x: Any) -> Variable:
    """Elementwise reciprocal square root ``1 / sqrt(x)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.rsqrt(np.array([4.0])).array
        array([0.5])
    """
    return Rsqrt().apply((as_input("rsqrt", x, float_only=True),))[0]


def cbrt(x: Any) -> Variable:
    """Elementwise real cube root (negative for negative ``x``; the gradient is infinite at 0).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.cbrt(np.array([-8.0, 27.0])).array
        array([-2.,  3.])
    """
    return Cbrt().apply((as_input("cbrt", x, float_only=True),))[0]


def square(x: Any) -> Variable:
    """Elementwise ``x * x``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.square(np.array([-3.0])).array
        array([9.])
    """
    return Square().apply((as_input("square", x, float_only=True),))[0]
