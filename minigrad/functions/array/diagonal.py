"""diagonal: the (batched) diagonals of ``x`` along two axes; the gradient scatters back onto them.

``Diagonal`` gathers ``x[..., i, i + offset]`` (the two axes moved last) and
``DiagonalScatter`` writes a gradient into those places of a zero array; each
is the other's backward, so every order is differentiable.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["diagonal"]


def _positions(xp: Any, shape: tuple[int, ...], offset: int, axis1: int, axis2: int) -> tuple[Any, Any]:
    """Row and column indices of the diagonal ``offset`` of the (axis1, axis2) matrices of ``shape``."""
    rows, cols = shape[axis1], shape[axis2]
    length = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    index = xp.arange(length)
    return (index, index + offset) if offset >= 0 else (index - offset, index)


class Diagonal(FunctionNode):
    def __init__(self, shape: tuple[int, ...], offset: int, axis1: int, axis2: int) -> None:
        self.shape, self.offset, self.axis1, self.axis2 = shape, offset, axis1, axis2

    def forward(self, inputs):
        x, = inputs
        xp = get_array_module(x)
        rows, cols = _positions(xp, self.shape, self.offset, self.axis1, self.axis2)
        return xp.moveaxis(x, (self.axis1, self.axis2), (-2, -1))[..., rows, cols],  # a copy, never a view

    def backward(self, indexes, grad_outputs):
        return DiagonalScatter(self.shape, self.offset, self.axis1, self.axis2).apply(grad_outputs)


class DiagonalScatter(FunctionNode):
    """A zero array of ``shape`` holding ``g`` on the diagonal that ``Diagonal`` reads."""

    def __init__(self, shape: tuple[int, ...], offset: int, axis1: int, axis2: int) -> None:
        self.shape, self.offset, self.axis1, self.axis2 = shape, offset, axis1, axis2

    def forward(self, inputs):
        g, = inputs
        xp = get_array_module(g)
        rows, cols = _positions(xp, self.shape, self.offset, self.axis1, self.axis2)
        y = xp.zeros(self.shape, dtype=g.dtype)
        xp.moveaxis(y, (self.axis1, self.axis2), (-2, -1))[..., rows, cols] = g  # a view of y: writes into it
        return y,

    def backward(self, indexes, grad_outputs):
        return Diagonal(self.shape, self.offset, self.axis1, self.axis2).apply(grad_outputs)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """The diagonal ``offset`` of the matrices spanned by axes ``axis1`` (rows) and ``axis2`` (columns).

    Like ``numpy.diagonal``: the other axes are batch axes and keep their
    order, and the diagonal becomes the last axis, of length
    ``min(rows, columns - offset)`` for ``offset >= 0`` (``min(rows + offset,
    columns)`` below the main diagonal; 0 when the offset passes the edge).
    The result is a copy, not a view.

    Args:
        x: the input, at least 2-D.
        offset: 0 for the main diagonal, ``k > 0`` for ``x[i, i + k]`` (above it),
            ``k < 0`` for ``x[i - k, i]`` (below it).
        axis1, axis2: the two distinct axes holding the rows and the columns.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.diagonal(np.arange(9.0).reshape(3, 3), offset=1).array
        array([1., 5.])
        >>> F.diagonal(np.zeros((2, 3, 4)), axis1=1, axis2=2).shape
        (2, 3)
    """
    x = as_input("diagonal", x)
    if x.ndim < 2:
        raise ValueError(f"diagonal: x must have at least 2 dimensions, got shape {x.shape}")
    if isinstance(offset, (bool, numpy.bool_)) or not isinstance(offset, (int, numpy.integer)):
        raise TypeError(f"diagonal: offset must be an int, got {type(offset).__name__}")
    axis1 = axis_in("diagonal", axis1, x.shape, "axis1")
    axis2 = axis_in("diagonal", axis2, x.shape, "axis2")
    if axis1 == axis2:
        raise ValueError(f"diagonal: axis1 and axis2 must be different axes, both are {axis1} (shape {x.shape})")
    # an offset past every edge gives the empty diagonal; clamped, it stays within NumPy's index range
    edge = x.shape[axis1] + x.shape[axis2]
    return Diagonal(x.shape, max(-edge, min(edge, int(offset))), axis1, axis2).apply((x,))[0]
