"""where: choose elementwise between two arrays by a boolean condition."""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.array.broadcast import broadcast_operands
from minigrad.functions.checks import as_input, constant
from minigrad.variable import Variable

__all__ = ["Where", "where"]


class Where(FunctionNode):
    """``where(condition, x, y)`` with a constant boolean ``condition`` held by the node."""

    def __init__(self, condition: Any) -> None:
        self.condition = condition

    def forward(self, inputs):
        x, y = inputs
        return get_array_module(x, y).where(self.condition, x, y),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        zero = constant(gy.xp.zeros((), dtype=gy.dtype))
        return tuple(Where(self.condition).apply((gy, zero) if i == 0 else (zero, gy))[0] for i in indexes)


def where(condition: Any, x: Any, y: Any) -> Variable:
    """Elementwise ``x`` where ``condition`` is True, else ``y`` (``numpy.where``, broadcasting).

    ``condition`` is a boolean array (or Variable) and gets no gradient; ``x``
    and ``y`` receive the output gradient where they were chosen, zero elsewhere.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.where(np.array([True, False]), np.array([1.0, 2.0]), np.array([9.0, 9.0])).array
        array([1., 9.])
    """
    condition = as_input("where", condition, "condition")
    if condition.dtype.kind != "b":
        raise TypeError(f"where: condition must be a boolean array, got dtype {condition.dtype} "
                        f"(shape {condition.shape})")
    condition = constant(condition.array)
    if isinstance(x, Variable) or hasattr(x, "dtype"):
        x = as_input("where", x, "x")
        y = as_input("where", y, "y", like=x)
    else:
        y = as_input("where", y, "y")
        x = as_input("where", x, "x", like=y)
    _, x, y = broadcast_operands("where", (condition, x, y))
    return Where(get_array_module(x, y).asarray(condition.array)).apply((x, y))[0]
