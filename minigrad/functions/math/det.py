"""det, batch_det: determinants; ``d det(A) = det(A) tr(A^-1 dA)``, so ``gA = gy det(A) A^-T``.

The gradient is built from the retained output and ``batch_inv``'s node, so
it is differentiable again; it needs ``A^-1``, so (as in Chainer) the backward
of a singular matrix is a ``ValueError``, while its forward is simply 0.
float16 goes through float32, as for ``inv``.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.math.inv import linalg_dtype, square_matrices
from minigrad.variable import Variable

__all__ = ["Det", "det", "batch_det"]


class Det(FunctionNode):
    """The determinant of each matrix of a stack ``(..., n, n)``, shape ``(...)``."""

    def __init__(self, op: str = "det") -> None:
        self.op = op

    def forward(self, inputs):
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        a, = inputs
        xp = get_array_module(a)
        return xp.asarray(xp.linalg.det(a.astype(linalg_dtype(a.dtype), copy=False)), dtype=a.dtype),

    def backward(self, indexes, grad_outputs):
        a, = self.get_retained_inputs()
        d, = self.get_retained_outputs()
        gy, = grad_outputs
        inverse_t = F.Inv(f"{self.op} (backward)").apply((F.swapaxes(a, -1, -2),))[0]
        return F.reshape(gy * d, gy.shape + (1, 1)) * inverse_t,


def det(a: Any) -> Variable:
    """The determinant of a square matrix, as a 0-dim Variable.

    Args:
        a: shape ``(n, n)``, floating point.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.det(np.array([[1.0, 2.0], [3.0, 4.0]])).array
        array(-2.)
    """
    return Det("det").apply((square_matrices("det", a, 2),))[0]


def batch_det(a: Any) -> Variable:
    """The determinants of a batch of square matrices: ``y[k] = det(a[k])``.

    Args:
        a: shape ``(m, n, n)``, the first axis iterating over the matrices.

    Returns:
        Shape ``(m,)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.batch_det(np.stack([np.eye(2) * 3.0, np.eye(2)])).array
        array([9., 1.])
    """
    return Det("batch_det").apply((square_matrices("batch_det", a, 3),))[0]
