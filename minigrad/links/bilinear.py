"""``Bilinear``: the layer over ``F.bilinear``, with parameters ``W``, ``V1``, ``V2`` and ``b``."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["Bilinear"]


class Bilinear(Link):
    """``y = e1 W e2 + e1 V1 + e2 V2 + b`` with ``W (left_size, right_size, out_size)``.

    Args:
        left_size: size ``J`` of the left input ``e1``.
        right_size: size ``K`` of the right input ``e2``.
        out_size: size ``L`` of the output.
        nobias: no ``V1``, ``V2`` and ``b`` when True (they are None).
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: a tuple of three initializers (or arrays) for ``V1 (J, L)``,
            ``V2 (K, L)`` and ``b (L,)``; by default ``LeCunNormal()`` for ``V1`` and
            ``V2`` and 0 for ``b``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.Bilinear(3, 2, 4)
        >>> layer(np.ones((5, 3), np.float32), np.ones((5, 2), np.float32)).shape
        (5, 4)
        >>> layer.W.shape, layer.V1.shape, layer.V2.shape, layer.b.shape
        ((3, 2, 4), (3, 4), (2, 4), (4,))
    """

    def __init__(self, left_size: int, right_size: int, out_size: int, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        self.in_sizes = (positive_int("Bilinear", "left_size", left_size),
                         positive_int("Bilinear", "right_size", right_size))
        self.out_size = positive_int("Bilinear", "out_size", out_size)
        J, K, L = *self.in_sizes, self.out_size
        if initial_bias is None:
            initial_bias = (None, None, None)
        elif nobias or not isinstance(initial_bias, (tuple, list)) or len(initial_bias) != 3:
            raise ValueError("Bilinear: initial_bias must be a tuple of three initializers (V1, V2, b)"
                             + (" and needs nobias=False" if nobias else f", got {initial_bias!r}"))
        with self.init_scope():
            self.W = Parameter(initializers.get_initializer(initialW, initializers.LeCunNormal()), (J, K, L))
            if nobias:
                self.V1 = self.V2 = self.b = None
            else:
                V1, V2, b = initial_bias
                self.V1 = Parameter(initializers.get_initializer(V1, initializers.LeCunNormal()), (J, L))
                self.V2 = Parameter(initializers.get_initializer(V2, initializers.LeCunNormal()), (K, L))
                self.b = Parameter(initializers.get_initializer(b, initializers.Zero()), L)

    def forward(self, e1: Any, e2: Any) -> Variable:
        """``e1 (N, left_size)``, ``e2 (N, right_size)`` -> ``(N, out_size)``."""
        if self.b is None:
            return F.bilinear(e1, e2, self.W)
        return F.bilinear(e1, e2, self.W, self.V1, self.V2, self.b)
