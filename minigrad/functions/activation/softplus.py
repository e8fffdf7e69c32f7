"""softplus: a smooth relu, ``log(1 + exp(beta * x)) / beta``; its derivative is a sigmoid."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input, require_real
from minigrad.variable import Variable

__all__ = ["Softplus", "softplus"]


def _softplus(xp: Any, x: Any, beta: float) -> Any:
    bx = x * x.dtype.type(beta)
    # max(bx, 0) + log(1 + exp(-|bx|)): never exponentiates a large positive number.
    return (xp.maximum(bx, x.dtype.type(0)) + xp.log1p(xp.exp(-abs(bx)))) * x.dtype.type(1 / beta)


Softplus = elementwise("Softplus", _softplus, lambda gy, x, y, beta: gy * F.sigmoid(x * beta), params=("beta",))


def softplus(x: Any, beta: float = 1.0) -> Variable:
    """Softplus, ``log(1 + exp(beta * x)) / beta`` elementwise, computed without overflow.

    Args:
        x: float Variable or array.
        beta: a positive sharpness; large values approach ``relu``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.softplus(np.array([0.0, 30.0])).array
        array([ 0.69314718, 30.        ])
    """
    beta = require_real("softplus", beta, "beta", positive=True)
    return Softplus(beta).apply((as_input("softplus", x, float_only=True),))[0]
