"""Exponentials and logarithms: exp, log."""

from __future__ import annotations

from typing import Any

from minigrad.function_node import FunctionNode
from minigrad.functions.checks import to_variable
from minigrad.variable import Variable

__all__ = ["Exp", "Log", "exp", "log"]


class Exp(FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        x, = inputs
        return _xp(x).exp(x),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


class Log(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return _xp(x).log(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / x,


def _xp(x: Any) -> Any:
    from minigrad.backend import get_array_module

    return get_array_module(x)


def exp(x: Any) -> Variable:
    """Elementwise ``e ** x``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.exp(np.array([0.0])).array
        array([1.])
    """
    return Exp().apply((to_variable("exp", x),))[0]


def log(x: Any) -> Variable:
    """Elementwise natural logarithm.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.log(np.array([1.0])).array
        array([0.])
    """
    return Log().apply((to_variable("log", x),))[0]
