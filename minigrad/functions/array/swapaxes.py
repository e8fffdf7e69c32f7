"""swapaxes: exchange two axes (a transpose, so the gradient is transposed back)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["swapaxes"]


def swapaxes(x: Any, axis1: int, axis2: int) -> Variable:
    """Exchange axes ``axis1`` and ``axis2``, like ``numpy.swapaxes``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.swapaxes(np.zeros((2, 3, 4)), 0, -1).shape
        (4, 3, 2)
    """
    x = as_input("swapaxes", x)
    axis1 = axis_in("swapaxes", axis1, x.shape, "axis1")
    axis2 = axis_in("swapaxes", axis2, x.shape, "axis2")
    axes = list(range(x.ndim))
    axes[axis1], axes[axis2] = axis2, axis1
    return F.transpose(x, tuple(axes))
