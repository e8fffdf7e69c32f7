"""normalize: divide vectors by their L2 norm (plus eps), like Chainer's ``F.normalize``."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, normalize_axes, require_real
from minigrad.variable import Variable

__all__ = ["normalize"]


def normalize(x: Any, eps: float = 1e-5, axis: int | tuple[int, ...] = 1) -> Variable:
    """L2 normalization along ``axis``: ``y = x / (||x||_2 + eps)``.

    ``eps`` keeps a zero vector finite. Written with minigrad ops, so it is
    differentiable to any order. Where ``sum(x * x)`` is 0 (a zero slice, or
    one whose squares underflow) the norm's gradient is taken as 0, as in
    Chainer, so the gradient there is ``gy / eps`` rather than NaN or inf.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.normalize(np.array([[3.0, 4.0]]), eps=0.0).array
        array([[0.6, 0.8]])
    """
    op = "normalize"
    x = as_input(op, x, "x", float_only=True)
    axes = normalize_axes(op, axis, x.ndim)
    eps = require_real(op, eps, "eps", nonnegative=True)
    squares = F.sum(x * x, axis=axes, keepdims=True)
    # sqrt's derivative is infinite at 0: take the norm of a zero (or underflowed) slice as a constant 0
    nonzero = squares.array != 0
    norm = F.where(nonzero, F.sqrt(F.where(nonzero, squares, 1.0)), 0.0)
    return x / (norm + eps)
