"""Squared-error losses: mean_squared_error (a scalar), squared_error and squared_difference (elementwise)."""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import require_nonempty
from minigrad.functions.loss._common import float_pair, widened
from minigrad.variable import Variable

__all__ = ["MeanSquaredError", "SquaredError", "mean_squared_error", "squared_error", "squared_difference"]


class MeanSquaredError(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = (widened(x0) - widened(x1)).reshape(-1)
        return get_array_module(x0).asarray(diff.dot(diff) / diff.size, dtype=x0.dtype),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gx0 = (x0 - x1) * (grad_outputs[0] * (2.0 / x0.size))
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


class SquaredError(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = x0 - x1
        return diff * diff,

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gx0 = (x0 - x1) * grad_outputs[0] * 2.0
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def mean_squared_error(x0: Any, x1: Any) -> Variable:
    """Mean of ``(x0 - x1) ** 2`` over all elements, a 0-dim Variable.

    ``x0`` and ``x1`` must have the same shape and float dtype; float16 inputs
    are accumulated in float32 and the result returned in float16. Empty
    inputs are a ``ValueError`` (the mean of nothing), as in ``F.mean``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.mean_squared_error(np.array([1.0, 2.0]), np.array([0.0, 0.0])).array
        array(2.5)
    """
    x0, x1 = float_pair("mean_squared_error", x0, x1)
    require_nonempty("mean_squared_error", x0)
    return MeanSquaredError().apply((x0, x1))[0]


def squared_error(x0: Any, x1: Any) -> Variable:
    """Elementwise ``(x0 - x1) ** 2`` (no reduction).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.squared_error(np.array([1.0, 2.0]), np.array([0.0, 4.0])).array
        array([1., 4.])
    """
    x0, x1 = float_pair("squared_error", x0, x1)
    return SquaredError().apply((x0, x1))[0]


def squared_difference(x1: Any, x2: Any) -> Variable:
    """Elementwise ``(x1 - x2) ** 2``: Chainer's name for ``squared_error`` (same shape and dtype, no broadcasting).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.squared_difference(np.array([1.0, 2.0]), np.array([0.0, 4.0])).array
        array([1., 4.])
    """
    x1, x2 = float_pair("squared_difference", x1, x2, ("x1", "x2"))
    return SquaredError().apply((x1, x2))[0]
