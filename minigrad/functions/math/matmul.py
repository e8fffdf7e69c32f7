"""matmul: (batched) matrix product with optional transposes, like ``numpy.matmul``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.function_node import FunctionNode
from minigrad.functions.array.broadcast import broadcast_operands
from minigrad.functions.checks import as_input, require_flag
from minigrad.variable import Variable

__all__ = ["MatMul", "matmul", "batch_matmul"]


def _t(a: Any, trans: bool) -> Any:
    return a.swapaxes(-1, -2) if trans else a


class MatMul(FunctionNode):
    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return _t(a, self.transa) @ _t(b, self.transb),

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        ta, tb = self.transa, self.transb
        grads = []
        for i in indexes:
            if i == 0:  # d(op(a) @ op(b)) / d a
                ga = matmul(b, gy, transa=tb, transb=True) if ta else matmul(gy, b, transb=not tb)
                grads.append(F.sum_to(ga, a.shape))  # batch dimensions may have broadcast
            else:
                gb = matmul(gy, a, transa=True, transb=ta) if tb else matmul(a, gy, transa=not ta)
                grads.append(F.sum_to(gb, b.shape))
        return tuple(grads)


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Matrix product ``op(a) @ op(b)``, where ``op`` swaps the last two axes when asked.

    Leading (batch) axes broadcast like ``numpy.matmul``; a 1-D operand is a
    vector, and its axis is dropped from the result.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.matmul(np.ones((2, 3)), np.ones((2, 3)), transb=True).array
        array([[3., 3.],
               [3., 3.]])
    """
    a, b = as_input("matmul", a, "a"), as_input("matmul", b, "b")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: operands must have at least 1 dimension, got shapes {a.shape} and {b.shape}")
    a_vector, b_vector = a.ndim == 1, b.ndim == 1
    if a_vector:
        a, transa = F.reshape(a, (1, a.shape[0])), False
    if b_vector:
        b, transb = F.reshape(b, (b.shape[0], 1)), False
    a_inner = a.shape[-2] if transa else a.shape[-1]
    b_inner = b.shape[-1] if transb else b.shape[-2]
    try:
        numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        if a_inner != b_inner:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"matmul: shapes {a.shape} (transa={transa}) and {b.shape} (transb={transb}) are not aligned"
        ) from None
    if a.dtype != b.dtype:  # promote like NumPy, through Cast nodes
        a, b = (broadcast_operands("matmul", (a, b)) if a.shape == b.shape else _promote(a, b))
    y = MatMul(require_flag("matmul", transa, "transa"), require_flag("matmul", transb, "transb")).apply((a, b))[0]
    if a_vector or b_vector:
        shape = y.shape[:-2] + ((y.shape[-2],) if not a_vector else ()) + ((y.shape[-1],) if not b_vector else ())
        y = F.reshape(y, shape)
    return y


def _promote(a: Variable, b: Variable) -> tuple[Variable, Variable]:
    dtype = numpy.result_type(a.dtype, b.dtype)
    return (F.cast(a, dtype) if a.requires_grad else a), (F.cast(b, dtype) if b.requires_grad else b)


def batch_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Products of two batches of matrices, ``op(a[k]) @ op(b[k])`` for each ``k``: Chainer's deprecated form.

    Kept for ported code (it warns with a ``DeprecationWarning``, as Chainer
    does, once its operands are arrays); new code calls :func:`matmul`. The first axis of each operand is
    the batch axis and the batch sizes must be equal (no broadcasting). A 2-D
    operand of shape ``(B, N)`` is read as ``B`` column vectors, i.e. ``B``
    matrices of shape ``(N, 1)``; a 3-D one of shape ``(B, M, N)`` as ``B``
    matrices of shape ``(M, N)``. The result is always 3-D. Unlike Chainer
    (float32 only), every float dtype is accepted; both operands must share it.

    Args:
        a, b: the left and right batches (2-D or 3-D, floating point).
        transa, transb: transpose each matrix of ``a`` (of ``b``) first.

    Returns:
        The ``B`` products, shape ``(B, rows of op(a), columns of op(b))``.

    Example:
        >>> import numpy as np, minigrad.functions as F, warnings
        >>> a = np.arange(6.0).reshape(2, 3)   # two column vectors of length 3
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", DeprecationWarning)
        ...     y = F.batch_matmul(a, a, transa=True)  # per-row dot products, as (2, 1, 1)
        >>> y.shape, y.array.ravel()
        ((2, 1, 1), array([ 5., 50.]))
    """
    a = as_input("batch_matmul", a, "a", float_only=True)
    b = as_input("batch_matmul", b, "b", float_only=True)
    warnings.warn("batch_matmul is deprecated. Use matmul instead.", DeprecationWarning, stacklevel=2)
    for x, name in ((a, "a"), (b, "b")):
        if x.ndim not in (2, 3):
            raise ValueError(f"batch_matmul: {name} must be a batch of matrices (2-D or 3-D), got shape {x.shape}")
    if a.dtype != b.dtype:
        raise TypeError(f"batch_matmul: a and b must have the same dtype, got {a.dtype} and {b.dtype}")
    a3 = F.reshape(a, a.shape + (1,)) if a.ndim == 2 else a
    b3 = F.reshape(b, b.shape + (1,)) if b.ndim == 2 else b
    a_inner = a3.shape[1] if transa else a3.shape[2]
    b_inner = b3.shape[2] if transb else b3.shape[1]
    if a3.shape[0] != b3.shape[0] or a_inner != b_inner:
        raise ValueError(
            f"batch_matmul: shapes {a.shape} (transa={transa}) and {b.shape} (transb={transb}) are not aligned: "
            f"as batches of matrices {a3.shape} and {b3.shape}, the batch sizes and the inner lengths must match"
        )
    return matmul(a3, b3, transa=require_flag("batch_matmul", transa, "transa"),
                  transb=require_flag("batch_matmul", transb, "transb"))
