"""cumsum: the running sum along an axis; its gradient is the running sum from the other end."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, normalize_axis
from minigrad.variable import Variable

__all__ = ["Cumsum", "cumsum"]


class Cumsum(FunctionNode):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs):
        x, = inputs
        return get_array_module(x).cumsum(x, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        # x[i] is in every y[j] with j >= i, so gx[i] = sum(gy[j] for j >= i): a reversed cumsum
        reverse = (slice(None),) * self.axis + (slice(None, None, -1),)
        return F.get_item(Cumsum(self.axis).apply((F.get_item(grad_outputs[0], reverse),))[0], reverse),


def cumsum(x: Any, axis: int | None = None) -> Variable:
    """Cumulative sum along ``axis``; with ``axis=None`` the input is flattened first (like ``numpy.cumsum``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.cumsum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1).array
        array([[1., 3.],
               [3., 7.]])
    """
    x = as_input("cumsum", x)
    if axis is None:
        return Cumsum(0).apply((F.reshape(x, (x.size,)),))[0]
    return Cumsum(normalize_axis("cumsum", axis, x.ndim)).apply((x,))[0]
