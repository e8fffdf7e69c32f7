"""Piecewise-constant ops: sign, floor, ceil and fix. Their gradient is zero almost everywhere and undefined
at the jumps, so they are not differentiable: the output is a constant that requires no gradient.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.functions.math._shared import apply_nondifferentiable
from minigrad.variable import Variable

__all__ = ["Sign", "Floor", "Ceil", "Fix", "sign", "floor", "ceil", "fix"]


class Sign(FunctionNode):
    def forward(self, inputs):
        return get_array_module(inputs[0]).sign(inputs[0]),


class Floor(FunctionNode):
    def forward(self, inputs):
        return get_array_module(inputs[0]).floor(inputs[0]),


class Ceil(FunctionNode):
    def forward(self, inputs):
        return get_array_module(inputs[0]).ceil(inputs[0]),


class Fix(FunctionNode):
    def forward(self, inputs):
        return get_array_module(inputs[0]).fix(inputs[0]),


def sign(x: Any) -> Variable:
    """Elementwise sign: -1, 0 or 1 (not differentiable; the output requires no gradient).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> y = F.sign(mg.Variable(np.array([-2.0, 0.0, 3.0])))
        >>> y.array, y.requires_grad
        (array([-1.,  0.,  1.]), False)
    """
    return apply_nondifferentiable(Sign(), as_input("sign", x))


def floor(x: Any) -> Variable:
    """Elementwise floor: the largest integer <= x, in x's dtype (not differentiable).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> F.floor(mg.Variable(np.array([-1.5, 2.7]))).array
        array([-2.,  2.])
    """
    x = as_input("floor", x, float_only=True)
    return apply_nondifferentiable(Floor(), x)


def ceil(x: Any) -> Variable:
    """Elementwise ceiling: the smallest integer >= x, in x's dtype (not differentiable).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> F.ceil(mg.Variable(np.array([-1.5, 2.2]))).array
        array([-1.,  3.])
    """
    x = as_input("ceil", x, float_only=True)
    return apply_nondifferentiable(Ceil(), x)


def fix(x: Any) -> Variable:
    """Elementwise rounding toward zero (the integer part of x), in x's dtype (not differentiable).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> F.fix(mg.Variable(np.array([-1.5, 2.7]))).array
        array([-1.,  2.])
    """
    x = as_input("fix", x, float_only=True)
    return apply_nondifferentiable(Fix(), x)
