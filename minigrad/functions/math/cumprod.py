"""cumprod: the running product along an axis (Chainer's ``F.cumprod``).

Each running product is the previous one times the next element, a chain of
``mul`` along the axis: exact with zeros in ``x`` (where a gradient formula
dividing by ``x`` fails) and differentiable at every order.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import as_input, normalize_axis
from minigrad.variable import Variable

__all__ = ["cumprod"]


def cumprod(x: Any, axis: int | None = None) -> Variable:
    """Cumulative product along ``axis``; with ``axis=None`` the input is flattened first (like ``numpy.cumprod``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.cumprod(np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 5.0]]), axis=1).array
        array([[1., 2., 6.],
               [4., 0., 0.]])
    """
    x = as_input("cumprod", x, float_only=True)
    if axis is None:
        x, axis = F.reshape(x, (x.size,)), 0
    else:
        axis = normalize_axis("cumprod", axis, x.ndim)
    if x.shape[axis] == 0:
        return x * 1.0
    columns = F.separate(x, axis=axis) if x.shape[axis] > 1 else (F.squeeze(x, axis),)
    running = [columns[0]]
    for column in columns[1:]:
        running.append(running[-1] * column)
    return F.stack(running, axis=axis)
