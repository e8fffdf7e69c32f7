"""sum and sum_to: reductions by addition; their gradients broadcast back."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, normalize_axes, normalize_shape, require_flag
from minigrad.variable import Variable

__all__ = ["Sum", "SumTo", "sum", "sum_to"]


class Sum(FunctionNode):
    def __init__(self, axis: tuple[int, ...], keepdims: bool) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def forward(self, inputs):
        x, = inputs
        self.in_shape = x.shape
        return (x.sum(axis=self.axis, keepdims=self.keepdims)),

    def backward(self, indexes, grad_outputs):
        return broadcast_back(grad_outputs[0], self.axis, self.keepdims, self.in_shape),


def broadcast_back(gy: Variable, axes: tuple[int, ...], keepdims: bool, shape: tuple[int, ...]) -> Variable:
    """Spread the gradient of a reduction over ``axes`` back to the input's ``shape`` (differentiably)."""
    if not keepdims and axes:
        gy = gy.reshape(tuple(1 if i in axes else n for i, n in enumerate(shape)))
    return F.broadcast_to(gy, shape)


def sum(x: Any, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Variable:
    """Sum of elements over ``axis`` (all axes when ``None``), like ``numpy.sum``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0).array
        array([4., 6.])
    """
    x = as_input("sum", x)
    axes = normalize_axes("sum", axis, x.ndim)
    return Sum(axes, require_flag("sum", keepdims, "keepdims")).apply((x,))[0]


class SumTo(FunctionNode):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, inputs):
        x, = inputs
        self.in_shape = x.shape
        lead = x.ndim - len(self.shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(self.shape) if n == 1 and x.shape[lead + i] != 1
        )
        y = x.sum(axis=axes, keepdims=True)
        if lead:
            y = y.reshape(self.shape)
        return (y),

    def backward(self, indexes, grad_outputs):
        return F.broadcast_to(grad_outputs[0], self.in_shape),


def sum_to(x: Any, shape: Any) -> Variable:
    """Sum ``x`` down to ``shape``: the inverse of broadcasting ``shape`` to ``x.shape``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sum_to(np.ones((2, 3)), (1, 3)).array
        array([[2., 2., 2.]])
    """
    x = as_input("sum_to", x)
    shape = normalize_shape("sum_to", shape)
    if x.shape == shape:
        return x
    try:
        ok = numpy.broadcast_shapes(shape, x.shape) == x.shape and len(shape) <= x.ndim
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"sum_to: cannot sum an input of shape {x.shape} to shape {shape}")
    return SumTo(shape).apply((x,))[0]
