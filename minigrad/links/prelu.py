"""``PReLU``: the parametric relu, with learned slopes for the negative inputs."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import Link
from minigrad.variable import Parameter, Variable

__all__ = ["PReLU"]


class PReLU(Link):
    """``F.prelu(x, W)`` with a learned ``W`` of shape ``shape``, initialized to ``init``.

    Args:
        shape: the shape of ``W``: ``()`` for one slope shared by everything,
            ``(C,)`` for one slope per channel (axis 1 of the input), ...
        init: the initial slope.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> L.PReLU()(np.array([[-2.0, 1.0]], dtype=np.float32)).array
        array([[-0.5,  1. ]], dtype=float32)
    """

    def __init__(self, shape: Any = (), init: float = 0.25) -> None:
        super().__init__()
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        with self.init_scope():
            self.W = Parameter(initializers.Constant(init), shape)

    def forward(self, x: Any) -> Variable:
        return F.prelu(x, self.W)
