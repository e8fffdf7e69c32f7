"""layer_normalization: normalize each sample over its units, then scale and shift (composed of minigrad ops)."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, require_ndim, require_real
from minigrad.variable import Variable

__all__ = ["layer_normalization"]


def layer_normalization(x: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> Variable:
    """Layer normalization: ``gamma * (x - mean) / sqrt(var + eps) + beta`` with per-row statistics.

    Args:
        x: a batch of vectors, ``(batch_size, unit_size)``.
        gamma: scale, ``(unit_size,)``.
        beta: shift, ``(unit_size,)``.
        eps: added to the variance.

    Written with minigrad ops, so it is differentiable to any order.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.layer_normalization(np.array([[1.0, 3.0], [0.0, 10.0]]), np.ones(2), np.zeros(2), eps=0.0).array
        array([[-1.,  1.],
               [-1.,  1.]])
    """
    op = "layer_normalization"
    x, gamma, beta = (as_input(op, v, name, float_only=True)
                      for v, name in ((x, "x"), (gamma, "gamma"), (beta, "beta")))
    require_ndim(op, x, 2, "x")
    for value, name in ((x, "x"), (gamma, "gamma"), (beta, "beta")):
        if value.dtype != x.dtype:
            raise TypeError(f"{op}: {name} has dtype {value.dtype}, but x has dtype {x.dtype}")
    for value, name in ((gamma, "gamma"), (beta, "beta")):
        if value.shape != x.shape[1:]:
            raise ValueError(f"{op}: {name} must have shape {x.shape[1:]} (the units of x {x.shape}), "
                             f"got {value.shape}")
    # float16 overflows in the higher derivatives of var ** -0.5 (0.75 var ** -2.5 for a small
    # variance), so half-precision inputs are normalised in float32 and the result cast back.
    dtype = x.dtype
    if dtype == numpy.float16:
        x, gamma, beta = (F.cast(value, numpy.float32) for value in (x, gamma, beta))
    scale = 1.0 / x.shape[1]
    x_centered = x - F.sum(x, axis=1, keepdims=True) * scale
    variance = F.sum(x_centered * x_centered, axis=1, keepdims=True) * scale
    eps = require_real("layer_normalization", eps, "eps", nonnegative=True)
    return F.cast(x_centered * (variance + eps) ** -0.5 * gamma + beta, dtype)
