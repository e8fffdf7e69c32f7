"""mean_absolute_error (the mean of ``|x0 - x1|``) and absolute_error (elementwise); gradient 0 where ``x0 == x1``."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import constant, require_nonempty
from minigrad.functions.loss._common import float_pair, widened
from minigrad.variable import Variable

__all__ = ["MeanAbsoluteError", "mean_absolute_error", "absolute_error"]


class MeanAbsoluteError(FunctionNode):
    def forward(self, inputs):
        x0, x1 = inputs
        xp = get_array_module(x0)
        diff = widened(x0) - widened(x1)
        self.sign = xp.sign(diff).astype(x0.dtype)
        return xp.asarray(abs(diff).sum() / diff.size, dtype=x0.dtype),

    def backward(self, indexes, grad_outputs):
        gx0 = constant(self.sign) * (grad_outputs[0] * (1.0 / self.sign.size))
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def mean_absolute_error(x0: Any, x1: Any) -> Variable:
    """Mean of ``|x0 - x1|`` over all elements, a 0-dim Variable.

    ``x0`` and ``x1`` must have the same shape and float dtype; float16 inputs
    are accumulated in float32. Empty inputs are a ``ValueError``, as in ``F.mean``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.mean_absolute_error(np.array([1.0, 2.0]), np.array([0.0, 4.0])).array
        array(1.5)
    """
    x0, x1 = float_pair("mean_absolute_error", x0, x1)
    require_nonempty("mean_absolute_error", x0)
    return MeanAbsoluteError().apply((x0, x1))[0]


def absolute_error(x0: Any, x1: Any) -> Variable:
    """Elementwise ``|x0 - x1|`` (same shape and dtype, no broadcasting; gradient 0 where ``x0 == x1``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.absolute_error(np.array([1.0, 2.0]), np.array([0.0, 4.0])).array
        array([1., 2.])
    """
    x0, x1 = float_pair("absolute_error", x0, x1)
    return F.absolute(x0 - x1)
