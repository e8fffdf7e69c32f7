"""squeeze: drop length-1 axes (a reshape, so the gradient is reshaped back)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.array._axis import axes_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["squeeze"]


def squeeze(x: Any, axis: int | tuple[int, ...] | None = None) -> Variable:
    """Remove axes of length 1: all of them when ``axis`` is ``None``, like ``numpy.squeeze``.

    Naming an axis whose length is not 1 is a ``ValueError``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.squeeze(np.zeros((1, 3, 1))).shape
        (3,)
        >>> F.squeeze(np.zeros((1, 3, 1)), axis=0).shape
        (3, 1)
    """
    x = as_input("squeeze", x)
    if axis is None:
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
    else:
        axes = axes_in("squeeze", axis, x.shape)
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError(f"squeeze: axis {a} of the input of shape {x.shape} has length "
                                 f"{x.shape[a]}, not 1")
    return F.reshape(x, tuple(n for i, n in enumerate(x.shape) if i not in axes))
