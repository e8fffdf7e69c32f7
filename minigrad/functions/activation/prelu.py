"""prelu: a leaky relu whose slopes for negative inputs are an input (a learned parameter, usually)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["prelu"]


def prelu(x: Any, W: Any) -> Variable:
    """``x`` where ``x >= 0``, ``W * x`` where ``x < 0``; ``W`` lines up with ``x``'s axes ``1, ..., W.ndim``.

    Args:
        x: float input of shape ``(N, C, ...)``.
        W: the slopes, of shape ``x.shape[1:1 + W.ndim]`` (``(C,)`` for one
            slope per channel), of ``x``'s dtype; it gets a gradient.

    Written as ``relu(x) - scale(relu(-x), W)``, so the gradient at ``x == 0`` is 0.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.prelu(np.array([[-2.0, 3.0]]), np.array([0.5, 0.1])).array
        array([[-1.,  3.]])
    """
    x = as_input("prelu", x, float_only=True)
    W = as_input("prelu", W, "W", float_only=True)
    if W.dtype != x.dtype:
        raise TypeError(f"prelu: x and W must have the same dtype, got {x.dtype} and {W.dtype}")
    if x.ndim < 1 + W.ndim or x.shape[1:1 + W.ndim] != W.shape:
        raise ValueError(f"prelu: W of shape {W.shape} must match the axes 1..{W.ndim} of x of shape {x.shape}")
    return F.relu(x) - F.scale(F.relu(-x), W, axis=1)
