"""logsumexp: ``log(F.sum(exp(x)))`` over axes, computed without overflow."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant, normalize_axes
from minigrad.functions.math.sum import broadcast_back
from minigrad.variable import Variable

__all__ = ["LogSumExp", "logsumexp"]


class LogSumExp(FunctionNode):
    def __init__(self, axes: tuple[int, ...]) -> None:
        self.axes = axes

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        xp = get_array_module(x)
        # log sum exp(x) = m + log sum exp(x - m): with m the group's max, exp never overflows
        m = x.max(axis=self.axes, keepdims=True)
        self.shift = xp.where(xp.isfinite(m), m, xp.zeros_like(m))  # a group of -inf (or with inf): shift by 0
        total = xp.exp(x - self.shift).sum(axis=self.axes, keepdims=True)
        return (xp.log(total) + self.shift).squeeze(axis=self.axes),

    def backward(self, indexes, grad_outputs):
        # the gradient is gy * softmax(x); written as exp(x - m) / F.sum(exp(x - m)) with the constant
        # shift m rather than exp(x - y), which would inherit y's rounding (5e-4 relative at 1e4 in float32)
        x, = self.get_retained_inputs()
        e = F.exp(x - constant(self.shift))
        gy = grad_outputs[0] / F.sum(e, self.axes)
        return broadcast_back(gy, self.axes, False, x.shape) * e,


def logsumexp(x: Any, axis: int | tuple[int, ...] | None = None) -> Variable:
    """``log(F.sum(exp(x), axis))``, stable for large ``|x|`` (all axes when ``axis`` is ``None``).

    Its gradient is the softmax of ``x`` over the same axes.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.logsumexp(np.array([1000.0, 1000.0])).array  # naive exp would overflow
        array(1000.69314718)
    """
    x = as_input("logsumexp", x, float_only=True)
    axes = normalize_axes("logsumexp", axis, x.ndim)
    if any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"logsumexp: cannot reduce over an empty axis (input shape {x.shape}, axis={axis})")
    return LogSumExp(axes).apply((x,))[0]
