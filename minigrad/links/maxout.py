"""``Maxout``: a linear layer with ``pool_size`` outputs per unit, of which each unit keeps the maximum."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.backend import is_array
from minigrad.initializers import Initializer
from minigrad.link import Chain
from minigrad.links._utils import positive_int
from minigrad.links.linear import Linear
from minigrad.variable import Variable

__all__ = ["Maxout"]


class Maxout(Chain):
    """``maxout(linear(x), pool_size)``: ``out_size`` units, each the maximum of ``pool_size`` linear ones.

    Args:
        in_size: input size (``None``: learned from the first input).
        out_size: the number of units.
        pool_size: linear outputs per unit.
        initialW: initializer of the child ``linear``'s ``W`` (an array may also
            have Chainer's shape ``(out_size, pool_size, in_size)``, and a plain
            callable, as in Chainer, is handed a view of that shape; an
            ``Initializer`` fills the ``(out_size * pool_size, in_size)`` matrix).
        initial_bias: initializer of its bias (an array of shape
            ``(out_size, pool_size)`` too, a plain callable gets a view of that
            shape); ``None`` for no bias.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.Maxout(4, 3, 2)
        >>> layer(np.ones((5, 4), dtype=np.float32)).shape, layer.linear.W.shape
        ((5, 3), (6, 4))
    """

    def __init__(self, in_size: int | None, out_size: int, pool_size: int, initialW: Any = None,
                 initial_bias: Any = 0) -> None:
        super().__init__()
        self.out_size = positive_int("Maxout", "out_size", out_size)
        self.pool_size = positive_int("Maxout", "pool_size", pool_size)
        units = self.out_size * self.pool_size
        if is_array(initialW) and initialW.ndim == 3:
            initialW = initialW.reshape(units, initialW.shape[2])
        elif _is_plain_callable(initialW):
            initialW = _ViewInitializer(initialW, lambda shape: (self.out_size, self.pool_size, shape[1]))
        if is_array(initial_bias) and initial_bias.ndim == 2:
            initial_bias = initial_bias.reshape(units)
        elif _is_plain_callable(initial_bias):
            initial_bias = _ViewInitializer(initial_bias, lambda shape: (self.out_size, self.pool_size))
        with self.init_scope():
            self.linear = Linear(in_size, units, nobias=initial_bias is None, initialW=initialW,
                                 initial_bias=initial_bias)

    def forward(self, x: Any) -> Variable:
        return F.maxout(self.linear(x), self.pool_size)


def _is_plain_callable(initializer: Any) -> bool:
    return callable(initializer) and not isinstance(initializer, Initializer)


class _ViewInitializer:
    """Call a user's ``init(array)`` on a view of the parameter in Chainer's per-unit shape."""

    def __init__(self, initializer: Any, view_shape: Any) -> None:
        self.initializer = initializer
        self.view_shape = view_shape

    def __call__(self, array: Any) -> None:
        self.initializer(array.reshape(self.view_shape(array.shape)))  # a view: the parameter is contiguous
