"""Covariance penalties: decov (DeCov, arXiv:1511.06068) and cross_covariance (arXiv:1412.6583).

Both center their inputs over the batch (axis 0), form a covariance matrix
divided by the batch size ``N``, and either return it (``reduce="no"``) or
half the sum of its squared entries (``"half_squared_sum"``). Composed of
minigrad ops (mean, matmul), so every order of derivative works.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, require_ndim
from minigrad.functions.loss._common import check_reduce, require_batch, sum_divided
from minigrad.variable import Variable

__all__ = ["decov", "cross_covariance"]

_REDUCE = ("half_squared_sum", "no")


def _covariance(a: Variable, b: Variable) -> Variable:
    """``(a - mean(a)).T @ (b - mean(b)) / N``, the means over axis 0."""
    a_centered = a - F.mean(a, axis=0, keepdims=True)
    b_centered = b - F.mean(b, axis=0, keepdims=True)
    return F.matmul(a_centered, b_centered, transa=True) * (1.0 / len(a))


def _reduced(matrix: Variable, reduce: str) -> Variable:
    return matrix if reduce == "no" else sum_divided(matrix * matrix, 2)


def decov(h: Any, reduce: str = "half_squared_sum") -> Variable:
    """DeCov loss: the off-diagonal covariances of the columns of ``h`` (N, D).

    ``C = (h - mean(h)).T @ (h - mean(h)) / N`` with its diagonal set to 0;
    ``"half_squared_sum"`` gives ``sum(C ** 2) / 2`` (a 0-dim Variable),
    ``"no"`` the ``(D, D)`` matrix ``C``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> h = np.array([[1.0, 2.0], [-1.0, -2.0]])  # covariance [[1, 2], [2, 4]]
        >>> F.decov(h, reduce="no").array
        array([[0., 2.],
               [2., 0.]])
        >>> F.decov(h).array
        array(4.)
    """
    op = "decov"
    h = as_input(op, h, "h", float_only=True)
    require_ndim(op, h, 2, "h")
    check_reduce(op, reduce, _REDUCE)
    require_batch(op, h, "h")
    off_diagonal = 1 - h.xp.eye(h.shape[1], dtype=h.dtype)
    return _reduced(_covariance(h, h) * constant(off_diagonal), reduce)


def cross_covariance(y: Any, z: Any, reduce: str = "half_squared_sum") -> Variable:
    """Cross-covariance penalty between the columns of ``y`` (N, M) and ``z`` (N, K).

    ``C = (y - mean(y)).T @ (z - mean(z)) / N``; ``"half_squared_sum"`` gives
    ``sum(C ** 2) / 2`` (a 0-dim Variable), ``"no"`` the ``(M, K)`` matrix ``C``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> y = np.array([[1.0], [-1.0]])
        >>> z = np.array([[2.0, 0.5], [-2.0, 0.5]])
        >>> F.cross_covariance(y, z, reduce="no").array
        array([[2., 0.]])
        >>> F.cross_covariance(y, z).array
        array(2.)
    """
    op = "cross_covariance"
    y = as_input(op, y, "y", float_only=True)
    z = as_input(op, z, "z", float_only=True)
    require_ndim(op, y, 2, "y")
    require_ndim(op, z, 2, "z")
    if y.dtype != z.dtype:
        raise TypeError(f"{op}: y and z must have the same dtype, got {y.dtype} and {z.dtype}")
    if len(y) != len(z):
        raise ValueError(f"{op}: y and z must have the same batch size (axis 0), got shapes {y.shape} and {z.shape}")
    check_reduce(op, reduce, _REDUCE)
    require_batch(op, y, "y")
    return _reduced(_covariance(y, z), reduce)
