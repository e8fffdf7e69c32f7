"""crelu: the concatenated relu, ``[relu(x), relu(-x)]`` along an axis."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["crelu"]


def crelu(x: Any, axis: int = 1) -> Variable:
    """``concat((relu(x), relu(-x)), axis)``: twice as long along ``axis`` (gradient 0 at ``x == 0``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.crelu(np.array([[-1.0, 2.0]])).array
        array([[0., 2., 1., 0.]])
    """
    x = as_input("crelu", x, float_only=True)
    axis = axis_in("crelu", axis, x.shape)
    return F.concat((F.relu(x), F.relu(-x)), axis)
