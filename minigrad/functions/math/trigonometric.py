"""Trigonometric functions and their inverses: sin, cos, tan, arcsin, arccos, arctan, arctan2."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input
from minigrad.functions.math._shared import apply_binary
from minigrad.variable import Variable

__all__ = ["Sin", "Cos", "Tan", "Arcsin", "Arccos", "Arctan", "Arctan2",
           "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2"]

Sin = elementwise("Sin", "sin", lambda gy, x, y: gy * cos(x))
Cos = elementwise("Cos", "cos", lambda gy, x, y: gy * -sin(x))
Tan = elementwise("Tan", "tan", lambda gy, x, y: gy * (1 + y * y), uses="y")
Arcsin = elementwise("Arcsin", "arcsin", lambda gy, x, y: gy * F.rsqrt(1 - x * x))
Arccos = elementwise("Arccos", "arccos", lambda gy, x, y: gy * -F.rsqrt(1 - x * x))
Arctan = elementwise("Arctan", "arctan", lambda gy, x, y: gy * (1 / (1 + x * x)))


class Arctan2(FunctionNode):  # the angle of the point (x2, x1): d/dx1 = x2 / r^2, d/dx2 = -x1 / r^2
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return get_array_module(*inputs).arctan2(*inputs),

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        gy_over_r2 = grad_outputs[0] / (x1 * x1 + x2 * x2)
        return tuple(gy_over_r2 * x2 if i == 0 else -gy_over_r2 * x1 for i in indexes)


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


def arctan2(x1: Any, x2: Any) -> Variable:
    """Elementwise angle of the point ``(x2, x1)`` in radians, in [-pi, pi], with NumPy broadcasting.

    Args:
        x1: the y-coordinates.
        x2: the x-coordinates, broadcastable with ``x1`` (a Python scalar takes ``x1``'s dtype).

    Not differentiable at the origin, and the output jumps across ``x1 = 0`` for ``x2 < 0``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.arctan2(np.array([1.0, 1.0]), np.array([1.0, -1.0])).array
        array([0.78539816, 2.35619449])
    """
    x1 = as_input("arctan2", x1, "x1", float_only=True, like=x2)
    x2 = as_input("arctan2", x2, "x2", float_only=True, like=x1)
    return apply_binary(Arctan2, "arctan2", x1, x2)
