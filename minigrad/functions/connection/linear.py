"""linear: the fully-connected layer ``y = x W^T + b`` (W of shape (out_size, in_size), as in Chainer)."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, in_dtype, promoted_dtype
from minigrad.variable import Variable

__all__ = ["LinearFunction", "linear"]


class LinearFunction(FunctionNode):
    """``y = x @ W.T (+ b)`` on a 2-D ``x``; the wrapper flattens the batch axes."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        y = x @ W.T
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        grads = {0: lambda: F.matmul(gy, W), 1: lambda: F.matmul(gy, x, transa=True), 2: lambda: F.sum(gy, axis=0)}
        return tuple(grads[i]() for i in indexes)


def linear(x: Any, W: Any, b: Any = None, n_batch_axes: int = 1) -> Variable:
    """Fully-connected layer: ``y = x W^T + b``.

    Args:
        x: input of shape ``(*batch, *in_dims)``; the trailing axes after the
            first ``n_batch_axes`` are flattened into ``in_size``.
        W: weight of shape ``(out_size, in_size)``.
        b: optional bias of shape ``(out_size,)``.
        n_batch_axes: how many leading axes of ``x`` are batch axes.

    Returns:
        Output of shape ``(*batch, out_size)``, in ``x``'s dtype. ``W`` may
        have another float dtype (``b`` has ``x``'s), as in Chainer: the
        product is then computed in the promoted dtype, and each gradient
        comes back in its own input's dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[1.0, 2.0]])
        >>> W = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, -1.0]])
        >>> F.linear(x, W, np.array([0.0, 0.5, 1.0])).array
        array([[ 1. ,  3.5, -1. ]])
    """
    op = "linear"
    x, W = as_input(op, x, "x", float_only=True), as_input(op, W, "W", float_only=True)
    b = None if b is None else as_input(op, b, "b", float_only=True)
    if isinstance(n_batch_axes, bool) or not isinstance(n_batch_axes, (int, numpy.integer)) or n_batch_axes < 1:
        raise ValueError(f"{op}: n_batch_axes must be a positive int, got {n_batch_axes!r}")
    if x.ndim <= n_batch_axes:
        raise ValueError(f"{op}: x of shape {x.shape} needs more than n_batch_axes={n_batch_axes} dimensions")
    if W.ndim != 2:
        raise ValueError(f"{op}: W must be 2-D (out_size, in_size), got shape {W.shape}")
    batch_shape = x.shape[:n_batch_axes]
    in_size = int(numpy.prod(x.shape[n_batch_axes:]))
    if in_size != W.shape[1]:
        raise ValueError(
            f"{op}: x of shape {x.shape} has in_size {in_size} (axes after n_batch_axes={n_batch_axes}), "
            f"but W of shape {W.shape} expects in_size {W.shape[1]}"
        )
    if b is not None and b.shape != (W.shape[0],):
        raise ValueError(f"{op}: b must have shape ({W.shape[0]},) to match W of shape {W.shape}, got {b.shape}")
    if b is not None and b.dtype != x.dtype:
        raise TypeError(f"{op}: b has dtype {b.dtype}, but x has dtype {x.dtype} (W may have another float dtype, "
                        "b must have x's)")
    x_dtype, dtype = x.dtype, promoted_dtype(x, W)
    if x.ndim != 2:
        x = F.reshape(x, (int(numpy.prod(batch_shape)), in_size))
    inputs = (x, W) if b is None else (x, W, b)
    y = LinearFunction().apply(tuple(in_dtype(v, dtype) for v in inputs))[0]
    if len(batch_shape) != 1:
        y = F.reshape(y, batch_shape + (W.shape[0],))
    return in_dtype(y, x_dtype)
