"""Trigonometric functions and their inverses: sin, cos, tan, arcsin, arccos, arctan."""

from __future__ import annotations

from typing import Any

from minigrad.functions.checks import as_input
from minigrad.functions.math._shared import elementwise
from minigrad.functions.math.power import rsqrt
from minigrad.variable import Variable

__all__ = ["Sin", "Cos", "Tan", "Arcsin", "Arccos", "Arctan", "sin", "cos", "tan", "arcsin", "arccos", "arctan"]

Sin = elementwise("Sin", "sin", lambda x, y: cos(x))
Cos = elementwise("Cos", "cos", lambda x, y: -sin(x))
Tan = elementwise("Tan", "tan", lambda x, y: 1 + y * y, uses_output=True)
Arcsin = elementwise("Arcsin", "arcsin", lambda x, y: rsqrt(1 - x * x))
Arccos = elementwise("Arccos", "arccos", lambda x, y: -rsqrt(1 - x * x))
Arctan = elementwise("Arctan", "arctan", lambda x, y: 1 / (1 + x * x))


def sin(x: Any) -> Variable:
    """Elementwise sine (radians).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sin(np.array([0.0, np.pi / 2])).array
        array([0., 1.])
    """
    return Sin().apply((as_input("sin", x, float_only=True),))[0]


def cos(x: Any) -> Variable:
    """Elementwise cosine (radians).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.cos(np.array([0.0])).array
        array([1.])
    """
    return Cos().apply((as_input("cos", x, float_only=True),))[0]


def tan(x: Any) -> Variable:
    """Elementwise tangent (radians).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.tan(np.array([0.0])).array
        array([0.])
    """
    return Tan().apply((as_input("tan", x, float_only=True),))[0]


def arcsin(x: Any) -> Variable:
    """Elementwise inverse sine, for ``x`` in [-1, 1] (the gradient is infinite at ±1).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.arcsin(np.array([1.0])).array
        array([1.57079633])
    """
    return Arcsin().apply((as_input("arcsin", x, float_only=True),))[0]


def arccos(x: Any) -> Variable:
    """Elementwise inverse cosine, for ``x`` in [-1, 1] (the gradient is infinite at ±1).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.arccos(np.array([1.0])).array
        array([0.])
    """
    return Arccos().apply((as_input("arccos", x, float_only=True),))[0]


def arctan(x: Any) -> Variable:
    """Elementwise inverse tangent.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.arctan(np.array([1.0])).array
        array([0.78539816])
    """
    return Arctan().apply((as_input("arctan", x, float_only=True),))[0]
