"""normalize: divide vectors by their L2 norm (plus eps), like Chainer's ``F.normalize``."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, normalize_axes, require_float, require_real
from minigrad.variable import Variable

__all__ = ["normalize"]


def normalize(x: Any, eps: float = 1e-5, axis: int | tuple[int, ...] = 1) -> Variable:
    """L2 normalization along ``axis``: ``y = x / (||x||_2 + eps)``.

    ``eps`` keeps a zero vector finite. Written with minigrad ops, so it is
    differentiable to any order (away from the zero vector).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.normalize(np.array([[3.0, 4.0]]), eps=0.0).array
        array([[0.6, 0.8]])
    """
    op = "normalize"
    x = as_input(op, x, "x")
    require_float(op, x, "x")
    axes = normalize_axes(op, axis, x.ndim)
    return x / (F.sum(x * x, axis=axes, keepdims=True) ** 0.5 + require_real("normalize", eps, "eps", nonnegative=True))
