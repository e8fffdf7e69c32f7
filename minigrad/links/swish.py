"""``Swish``: ``x * sigmoid(beta * x)`` with a learned ``beta``."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import Link
from minigrad.variable import Parameter, Variable

__all__ = ["Swish"]


class Swish(Link):
    """``F.swish(x, beta)`` with a learned ``beta`` of shape ``beta_shape``, initialized to ``beta_init``.

    Args:
        beta_shape: the shape of ``beta`` (``x.shape[1:]`` or a prefix of it), or
            ``None`` to take ``x.shape[1:]`` from the first input.
        beta_init: the initial value of ``beta``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.Swish(None)
        >>> layer(np.array([[0.0, 1.0]], dtype=np.float32)).array.round(4), layer.beta.shape
        (array([[0.    , 0.7311]], dtype=float32), (2,))
    """

    def __init__(self, beta_shape: Any, beta_init: float = 1.0) -> None:
        super().__init__()
        with self.init_scope():
            self.beta = Parameter(initializers.Constant(beta_init), beta_shape)

    def forward(self, x: Any) -> Variable:
        if self.beta.array is None:
            self.beta.initialize(tuple(x.shape[1:]))
        return F.swish(x, self.beta)
