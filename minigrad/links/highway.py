"""``Highway`` (Srivastava et al., 2015): a gated mix of a transformed input and the input itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import minigrad.functions as F
from minigrad.link import Chain
from minigrad.links.linear import Linear
from minigrad.variable import Variable

__all__ = ["Highway"]


class Highway(Chain):
    """``y = activate(plain(x)) * t + x * (1 - t)`` with the gate ``t = sigmoid(transform(x))``.

    Args:
        in_out_size: the size of the input and of the output.
        nobias: no biases in the two linear layers.
        activate: the activation of the plain path.
        init_Wh, init_bh: initializers of the plain layer's ``W`` and ``b``.
        init_Wt, init_bt: initializers of the gate layer's ``W`` and ``b``
            (``b = -1`` by default, so the gate starts mostly closed).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.Highway(3, init_Wh=0, init_Wt=0, init_bt=0)  # t = 1/2, plain path relu(0) = 0
        >>> layer(np.array([[2.0, -2.0, 4.0]], dtype=np.float32)).array
        array([[ 1., -1.,  2.]], dtype=float32)
    """

    def __init__(self, in_out_size: int, nobias: bool = False, activate: Callable[[Any], Any] = F.relu,
                 init_Wh: Any = None, init_Wt: Any = None, init_bh: Any = None, init_bt: Any = -1) -> None:
        super().__init__()
        self.activate = activate
        with self.init_scope():
            self.plain = Linear(in_out_size, in_out_size, nobias=nobias, initialW=init_Wh, initial_bias=init_bh)
            self.transform = Linear(in_out_size, in_out_size, nobias=nobias, initialW=init_Wt,
                                    initial_bias=init_bt)

    def forward(self, x: Any) -> Variable:
        gate = F.sigmoid(self.transform(x))
        return self.activate(self.plain(x)) * gate + x * (1 - gate)
