"""huber_loss: quadratic for small errors, linear for large ones (Chainer's definition).

With ``d = x - t``: ``0.5 * d**2`` where ``|d| < delta``, else
``delta * (|d| - delta / 2)``; the gradient w.r.t. ``x`` is ``clip(d, -delta, delta)``
(kinks at ``|d| = delta``).
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import constant, require_real
from minigrad.functions.loss._common import check_reduce, float_pair, widened
from minigrad.variable import Variable

__all__ = ["HuberLoss", "huber_loss"]


class HuberLoss(FunctionNode):
    def __init__(self, delta: float, reduce: str) -> None:
        self.delta = delta
        self.reduce = reduce

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = get_array_module(x)
        diff = widened(x) - widened(t)
        abs_diff = abs(diff)
        delta = self.delta
        y = xp.where(abs_diff < delta, 0.5 * diff * diff, delta * (abs_diff - 0.5 * delta))
        if self.reduce == "sum_along_second_axis":
            y = y.sum(axis=1)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, t = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == "sum_along_second_axis":
            gy = gy.reshape(gy.shape[:1] + (1,) + gy.shape[1:])
        diff = x.array - t.array
        inside = abs(diff) < self.delta
        outside_slope = (get_array_module(diff).sign(diff) * self.delta * ~inside).astype(x.dtype)
        gx = gy * ((x - t) * constant(inside.astype(x.dtype)) + constant(outside_slope))
        return tuple(gx if i == 0 else -gx for i in indexes)


def huber_loss(x: Any, t: Any, delta: float, reduce: str = "sum_along_second_axis") -> Variable:
    """Huber loss between ``x`` and ``t``: squared near zero, absolute beyond ``delta``.

    Args:
        x: float Variable or array, at least 2-D for the default reduction.
        t: target of ``x``'s shape and dtype.
        delta: the positive threshold between the quadratic and linear parts.
        reduce: ``"sum_along_second_axis"`` (sum over axis 1, Chainer's default)
            or ``"no"`` (elementwise).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.huber_loss(np.array([[0.5, 3.0]]), np.zeros((1, 2)), delta=1.0).array
        array([2.625])
    """
    x, t = float_pair("huber_loss", x, t, ("x", "t"))
    delta = require_real("huber_loss", delta, "delta", positive=True)
    reduce = check_reduce("huber_loss", reduce, ("sum_along_second_axis", "no"))
    if reduce == "sum_along_second_axis" and x.ndim < 2:
        raise ValueError(
            f"huber_loss: reduce='sum_along_second_axis' needs x with at least 2 dimensions, got shape {x.shape}"
        )
    return HuberLoss(delta, reduce).apply((x, t))[0]
