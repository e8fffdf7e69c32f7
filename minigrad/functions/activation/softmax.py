"""softmax and log_softmax along one axis, computed stably (the maximum is subtracted first).

With ``y = softmax(x)``, the gradient is ``y * (gy - sum(y * gy))``; with
``y = log_softmax(x)`` it is ``gy - exp(y) * sum(gy)``, sums along the axis.
Both are written with minigrad ops on the retained output, so they are
differentiable again.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, normalize_axis
from minigrad.variable import Variable

__all__ = ["Softmax", "LogSoftmax", "softmax", "log_softmax"]


def softmax_array(x: Any, axis: int) -> Any:
    """``softmax`` on a raw array (shared with the losses that need it)."""
    xp = get_array_module(x)
    if x.shape[axis] == 0:  # nothing to normalize (and max has no identity to start from)
        return xp.empty_like(x)
    e = xp.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def log_softmax_array(x: Any, axis: int) -> Any:
    """``log_softmax`` on a raw array: ``x - max - log(sum(exp(x - max)))``."""
    xp = get_array_module(x)
    if x.shape[axis] == 0:  # as in softmax_array
        return xp.empty_like(x)
    shifted = x - x.max(axis=axis, keepdims=True)
    shifted -= xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted


class Softmax(FunctionNode):
    """``softmax(x)`` along ``axis``.

    ``output`` lets a caller that has already computed the softmax of ``x``
    (the fused cross-entropy) link it into the graph without recomputing it.
    """

    def __init__(self, axis: int, output: Any = None) -> None:
        self.axis = axis
        self.output = output

    def forward(self, inputs):
        self.retain_outputs((0,))
        x, = inputs
        y = softmax_array(x, self.axis) if self.output is None else self.output
        self.output = None
        return y,

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        y_gy = y * grad_outputs[0]
        return y_gy - y * F.sum(y_gy, axis=self.axis, keepdims=True),


class LogSoftmax(FunctionNode):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs):
        self.retain_outputs((0,))
        x, = inputs
        return log_softmax_array(x, self.axis),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy - F.exp(y) * F.sum(gy, axis=self.axis, keepdims=True),


def softmax(x: Any, axis: int = 1) -> Variable:
    """Softmax along ``axis``: ``exp(x) / sum(exp(x), axis)``, without overflow.

    Args:
        x: float Variable or array.
        axis: the axis that sums to one (default 1, the channel axis).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.softmax(np.array([[0.0, np.log(3.0)]])).array
        array([[0.25, 0.75]])
    """
    x = as_input("softmax", x, float_only=True)
    return Softmax(normalize_axis("softmax", axis, x.ndim)).apply((x,))[0]


def log_softmax(x: Any, axis: int = 1) -> Variable:
    """Logarithm of the softmax along ``axis``, accurate even where the softmax underflows.

    Args:
        x: float Variable or array.
        axis: the normalized axis (default 1).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.log_softmax(np.array([[0.0, 1000.0]])).array
        array([[-1000.,     0.]])
    """
    x = as_input("log_softmax", x, float_only=True)
    return LogSoftmax(normalize_axis("log_softmax", axis, x.ndim)).apply((x,))[0]
