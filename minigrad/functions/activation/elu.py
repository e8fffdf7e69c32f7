"""Exponential linear units: elu and selu (a scaled elu with fixed constants).

``y = scale * x`` for ``x > 0`` and ``scale * alpha * (exp(x) - 1)`` otherwise,
so on the negative side the derivative ``scale * alpha * exp(x)`` equals
``y + scale * alpha``: the backward is written in terms of the retained output,
which keeps it differentiable again.
"""

from __future__ import annotations

from typing import Any

from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input, constant, require_real
from minigrad.variable import Variable

__all__ = ["ELU", "elu", "selu"]

# The fixed point constants of self-normalizing networks (Klambauer et al., 2017).
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _elu(xp: Any, x: Any, alpha: float, scale: float) -> Any:
    negative = xp.expm1(xp.minimum(x, x.dtype.type(0))) * x.dtype.type(alpha)  # no overflow for large x
    y = xp.where(x > 0, x, negative)
    if scale != 1.0:
        y *= x.dtype.type(scale)
    return y


def _elu_grad(gy: Variable, x: Variable, y: Variable, alpha: float, scale: float) -> Variable:
    positive = x.array > 0
    dtype = x.dtype
    slope = constant(positive.astype(dtype) * dtype.type(scale))
    negative = constant((~positive).astype(dtype))
    return gy * (slope + negative * (y + scale * alpha))


ELU = elementwise("ELU", _elu, _elu_grad, uses="xy", params=("alpha", "scale"), defaults={"scale": 1.0})


def elu(x: Any, alpha: float = 1.0) -> Variable:
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Args:
        x: float Variable or array.
        alpha: the scale of the negative part.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.elu(np.array([-1.0, 2.0])).array
        array([-0.63212056,  2.        ])
    """
    alpha = require_real("elu", alpha, "alpha")
    return ELU(alpha).apply((as_input("elu", x, float_only=True),))[0]


def selu(x: Any, alpha: float = SELU_ALPHA, scale: float = SELU_SCALE) -> Variable:
    """Scaled exponential linear unit: ``scale * elu(x, alpha)``.

    The default constants make activations self-normalizing (Klambauer et al., 2017).

    Args:
        x: float Variable or array.
        alpha: the scale of the negative part inside the elu.
        scale: the overall scale.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.selu(np.array([-1.0, 1.0])).array
        array([-1.11133074,  1.05070099])
    """
    alpha = require_real("selu", alpha, "alpha")
    scale = require_real("selu", scale, "scale")
    return ELU(alpha, scale).apply((as_input("selu", x, float_only=True),))[0]
