"""Hyperbolic functions: sinh, cosh (tanh is an activation)."""

from __future__ import annotations

from typing import Any

from minigrad.functions.math._shared import apply_float, elementwise
from minigrad.variable import Variable

__all__ = ["Sinh", "Cosh", "sinh", "cosh"]

Sinh = elementwise("Sinh", "sinh", lambda x, y: cosh(x))
Cosh = elementwise("Cosh", "cosh", lambda x, y: sinh(x))


def sinh(x: Any) -> Variable:
    """Elementwise hyperbolic sine.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sinh(np.array([0.0])).array
        array([0.])
    """
    return apply_float(Sinh, "sinh", x)


def cosh(x: Any) -> Variable:
    """Elementwise hyperbolic cosine.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.cosh(np.array([0.0])).array
        array([1.])
    """
    return apply_float(Cosh, "cosh", x)
