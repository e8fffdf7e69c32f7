"""batch_l2_norm_squared: the squared L2 norm of each sample (every axis but the first summed; Chainer's
``F.batch_l2_norm_squared``), ``sum`` of ``x * x``."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["batch_l2_norm_squared"]


def batch_l2_norm_squared(x: Any) -> Variable:
    """The squared L2 norm of each ``x[i]``: a ``(n,)`` Variable for ``x`` of shape ``(n, ...)`` (at least 1-D).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.batch_l2_norm_squared(np.array([[3.0, 4.0], [1.0, -1.0]])).array
        array([25.,  2.])
    """
    x = as_input("batch_l2_norm_squared", x, float_only=True)
    if x.ndim < 1:
        raise ValueError(f"batch_l2_norm_squared: x must have a batch axis (at least 1 dimension), got shape "
                         f"{x.shape}")
    squares = F.reshape(x * x, (x.shape[0], -1)) if x.ndim != 2 else x * x
    if x.ndim == 1:
        return squares[:, 0]
    return F.sum(squares, axis=1)
