"""local_response_normalization: divide each channel by a power of the squares summed over its neighbours."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, require_real, require_size
from minigrad.variable import Variable

__all__ = ["local_response_normalization"]


def local_response_normalization(x: Any, n: int = 5, k: float = 2, alpha: float = 1e-4,
                                 beta: float = 0.75) -> Variable:
    """``y[:, c] = x[:, c] * (k + alpha * sum of x[:, c']**2 over |c' - c| <= n // 2) ** -beta`` (Krizhevsky et al.).

    Args:
        x: float input of shape ``(N, C, ...)``; channels are axis 1.
        n: the window: ``n // 2`` channels on each side (channels past the
            edges count as 0).
        k, alpha, beta: the constants of the formula.

    Composed of minigrad ops, so every derivative order works.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.local_response_normalization(np.ones((1, 3)), n=3, k=1.0, alpha=1.0, beta=1.0).array
        array([[0.33333333, 0.25      , 0.33333333]])
    """
    op = "local_response_normalization"
    x = as_input(op, x, float_only=True)
    if x.ndim < 2:
        raise ValueError(f"{op}: x must have shape (N, C, ...), got {x.shape}")
    n = require_size(op, n, "n", minimum=1)
    k = require_real(op, k, "k", nonnegative=True)
    alpha = require_real(op, alpha, "alpha", nonnegative=True)
    beta = require_real(op, beta, "beta")
    half, channels = min(n // 2, x.shape[1]), x.shape[1]  # (a wider window reaches only zero padding)
    squares = F.pad(x * x, ((0, 0), (half, half)) + ((0, 0),) * (x.ndim - 2), "constant")
    window = squares[:, 0:channels]
    for offset in range(1, 2 * half + 1):
        window = window + squares[:, offset:offset + channels]
    return x * (window * float(alpha) + float(k)) ** -float(beta)
