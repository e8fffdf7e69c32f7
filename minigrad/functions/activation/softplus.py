"""softplus: a smooth relu, ``log(1 + exp(beta * x)) / beta``; its derivative is a sigmoid."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, require_real
from minigrad.variable import Variable

__all__ = ["Softplus", "softplus"]


class Softplus(FunctionNode):
    def __init__(self, beta: float) -> None:
        self.beta = beta

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        xp = get_array_module(x)
        bx = x * x.dtype.type(self.beta)
        # max(bx, 0) + log(1 + exp(-|bx|)): never exponentiates a large positive number.
        return (xp.maximum(bx, x.dtype.type(0)) + xp.log1p(xp.exp(-abs(bx)))) * x.dtype.type(1 / self.beta),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * F.sigmoid(x * self.beta),


def softplus(x: Any, beta: float = 1.0) -> Variable:
    """Softplus, ``log(1 + exp(beta * x)) / beta`` elementwise, computed without overflow.

    Args:
        x: float Variable or array.
        beta: a positive sharpness; large values approach ``relu``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.softplus(np.array([0.0, 30.0])).array
        array([ 0.69314718, 30.        ])
    """
    beta = require_real("softplus", beta, "beta", positive=True)
    return Softplus(beta).apply((as_input("softplus", x, float_only=True),))[0]
