"""bias and scale: ``x + y`` and ``x * y`` with ``y`` lined up with ``x``'s axes ``axis, axis+1, ...``.

``y`` is reshaped so that NumPy broadcasting repeats it along the other axes
of ``x``; the gradient of ``y`` is then summed back by the broadcast.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["bias", "scale"]


def along_axis(op: str, x: Variable, y: Any, axis: int) -> Variable:
    """``y`` reshaped so that its axes line up with ``x``'s axes from ``axis`` on (for broadcasting)."""
    y = as_input(op, y, "y")
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        raise TypeError(f"{op}: axis must be an int, got {type(axis).__name__}")
    end = axis + y.ndim
    if axis < 0 or end > x.ndim or tuple(x.shape[axis:end]) != tuple(y.shape):
        raise ValueError(f"{op}: y of shape {y.shape} must match the axes {axis}..{end - 1} of x of shape {x.shape} "
                         f"(axis={axis})")
    return F.reshape(y, (1,) * axis + y.shape + (1,) * (x.ndim - end))


def bias(x: Any, y: Any, axis: int = 1) -> Variable:
    """``x + y``, with ``y`` lined up with ``x``'s axes ``axis, ..., axis + y.ndim - 1`` and repeated along the rest.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.bias(np.zeros((2, 3)), np.array([1.0, 2.0, 3.0])).array
        array([[1., 2., 3.],
               [1., 2., 3.]])
    """
    x = as_input("bias", x)
    return x + along_axis("bias", x, y, axis)


def scale(x: Any, y: Any, axis: int = 1) -> Variable:
    """``x * y``, with ``y`` lined up with ``x``'s axes ``axis, ..., axis + y.ndim - 1`` and repeated along the rest.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.scale(np.ones((2, 2)), np.array([2.0, 3.0]), axis=0).array
        array([[2., 2.],
               [3., 3.]])
    """
    x = as_input("scale", x)
    return x * along_axis("scale", x, y, axis)
