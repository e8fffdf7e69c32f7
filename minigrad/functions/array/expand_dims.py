"""expand_dims: insert a length-1 axis (a reshape, so the gradient is reshaped back)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["expand_dims"]


def expand_dims(x: Any, axis: int) -> Variable:
    """Insert a new axis of length 1 at position ``axis``, like ``numpy.expand_dims``.

    ``axis`` may be in ``[-x.ndim - 1, x.ndim]``; negative values count from the
    end of the *output* shape.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.expand_dims(np.zeros((2, 3)), 1).shape
        (2, 1, 3)
        >>> F.expand_dims(np.zeros((2, 3)), -1).shape
        (2, 3, 1)
    """
    x = as_input("expand_dims", x)
    axis = axis_in("expand_dims", axis, x.shape, new_axis=True)
    return F.reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])
