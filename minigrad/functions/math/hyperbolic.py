"""Hyperbolic functions: sinh, cosh, arctanh (tanh is an activation)."""

from __future__ import annotations

from typing import Any

from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Sinh", "Cosh", "Arctanh", "sinh", "cosh", "arctanh"]

Sinh = elementwise("Sinh", "sinh", lambda gy, x, y: gy * cosh(x))
Cosh = elementwise("Cosh", "cosh", lambda gy, x, y: gy * sinh(x))
Arctanh = elementwise("Arctanh", "arctanh", lambda gy, x, y: gy * (1.0 / (1.0 - x * x)))


def sinh(x: Any) -> Variable:
    """Elementwise hyperbolic sine.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sinh(np.array([0.0])).array
        array([0.])
    """
    return Sinh().apply((as_input("sinh", x, float_only=True),))[0]


def cosh(x: Any) -> Variable:
    """Elementwise hyperbolic cosine.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.cosh(np.array([0.0])).array
        array([1.])
    """
    return Cosh().apply((as_input("cosh", x, float_only=True),))[0]


def arctanh(x: Any) -> Variable:
    """Elementwise inverse hyperbolic tangent, defined on ``(-1, 1)`` (Chainer's ``F.arctanh``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.arctanh(np.array([0.0, 0.5])).array
        array([0.        , 0.54930614])
    """
    return Arctanh().apply((as_input("arctanh", x, float_only=True),))[0]
