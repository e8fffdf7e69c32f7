"""``fmod``: the remainder of ``x / divisor`` with the sign of ``x`` (C's ``fmod``, NumPy's ``fmod``).

``fmod(x, d) = x - d * fix(x / d)``, so away from the jumps (where ``x / d`` is
an integer) the gradient is 1 for ``x`` and ``-fix(x / d)`` for ``d``: a
piecewise-constant factor, which makes the gradient differentiable again.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.functions.math._shared import apply_binary
from minigrad.variable import Variable

__all__ = ["Fmod", "fmod"]


class Fmod(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return get_array_module(*inputs).fmod(*inputs),

    def backward(self, indexes, grad_outputs):
        x, divisor = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple(gy if i == 0 else -gy * F.fix(x / divisor) for i in indexes)


def fmod(x: Any, divisor: Any) -> Variable:
    """Elementwise remainder ``x - divisor * fix(x / divisor)`` (sign of ``x``), with NumPy broadcasting.

    Args:
        x: the dividend (float array or Variable).
        divisor: the divisor, broadcastable with ``x`` (a Python scalar takes ``x``'s dtype).

    Not differentiable where ``x / divisor`` is an integer (the output jumps there).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.fmod(np.array([5.5, -5.5]), np.array([2.0, 2.0])).array
        array([ 1.5, -1.5])
    """
    x = as_input("fmod", x, "x", float_only=True, like=divisor)
    divisor = as_input("fmod", divisor, "divisor", float_only=True, like=x)
    return apply_binary(Fmod, "fmod", x, divisor)
