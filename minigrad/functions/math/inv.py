"""inv, batch_inv: matrix inverses; ``d(A^-1) = -A^-1 dA A^-1``, so ``gA = -Y^T gY Y^T`` with ``Y = A^-1``.

The gradient is two matmuls of the retained output ``Y`` (a Variable of the
graph), so it is differentiable again. float16 has no LAPACK routine in NumPy
or CuPy: it is inverted in float32 and cast back (Chainer does the same).
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Inv", "inv", "batch_inv"]


def linalg_dtype(dtype: Any) -> Any:
    """The dtype the array module's linalg computes ``dtype`` in: float16 goes through float32."""
    return numpy.float32 if dtype == numpy.float16 else dtype


def inverse_array(op: str, a: Any) -> Any:
    """``xp.linalg.inv(a)`` in ``a``'s dtype; a singular matrix is a ``ValueError`` naming ``op`` and the shape.

    NumPy raises ``LinAlgError`` on an exactly singular matrix; CuPy returns
    non-finite values instead (without ``cupyx.errstate(linalg='raise')``), so a
    non-finite inverse of a finite input is refused too, on both.
    """
    xp = get_array_module(a)
    try:
        y = xp.linalg.inv(a.astype(linalg_dtype(a.dtype), copy=False))
    except numpy.linalg.LinAlgError:  # cupy.linalg.LinAlgError is this class too
        y = None
    if y is None or (not bool(xp.isfinite(y).all()) and bool(xp.isfinite(a).all())):
        raise ValueError(f"{op}: input has a singular matrix, which has no inverse (shape {a.shape}, dtype {a.dtype})")
    return y.astype(a.dtype, copy=False)


class Inv(FunctionNode):
    """The inverse of each matrix of a stack ``(..., n, n)``."""

    def __init__(self, op: str = "inv") -> None:
        self.op = op  # the public function, for the singular-matrix error

    def forward(self, inputs):
        self.retain_outputs((0,))
        return inverse_array(self.op, inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return -F.matmul(F.matmul(y, grad_outputs[0], transa=True), y, transb=True),


def square_matrices(op: str, a: Any, ndim: int) -> Variable:
    """``a`` as a float Variable of ``ndim`` dimensions whose last two are equal (one matrix or a batch)."""
    a = as_input(op, a, "a", float_only=True)
    what = "a square matrix (n, n)" if ndim == 2 else "a batch of square matrices (m, n, n)"
    if a.ndim != ndim or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{op}: a must be {what}, got shape {a.shape}")
    return a


def inv(a: Any) -> Variable:
    """The inverse ``a^-1`` of a square matrix.

    Args:
        a: shape ``(n, n)``, floating point (float16 is inverted in float32 and
            cast back).

    Raises:
        ValueError: ``a`` is not square and 2-D, or it is singular (Chainer
            raises NumPy's ``LinAlgError``, itself a ``ValueError``, on the CPU
            and a ``ValueError`` on the GPU).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.inv(np.array([[2.0, 0.0], [0.0, 4.0]])).array
        array([[0.5 , 0.  ],
               [0.  , 0.25]])
    """
    return Inv("inv").apply((square_matrices("inv", a, 2),))[0]


def batch_inv(a: Any) -> Variable:
    """The inverse of every matrix of a batch: ``y[k] = a[k]^-1``.

    Args:
        a: shape ``(m, n, n)``: ``m`` square matrices, floating point.

    Raises:
        ValueError: ``a`` is not a 3-D batch of square matrices, or one of them
            is singular.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.batch_inv(np.array([[[2.0]], [[-0.5]]])).array.ravel()
        array([ 0.5, -2. ])
    """
    return Inv("batch_inv").apply((square_matrices("batch_inv", a, 3),))[0]
