"""``SimplifiedDropconnect``: a fully-connected layer whose weights are dropped at random in training."""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F
from minigrad.links.linear import Linear
from minigrad.variable import Variable

__all__ = ["SimplifiedDropconnect"]


class SimplifiedDropconnect(Linear):
    """``Linear`` through ``F.simplified_dropconnect``: weight ``W`` of shape ``(out_size, in_size)``, bias ``b``.

    Args:
        in_size: input size, or ``None`` to learn it from the first input.
        out_size: output size.
        ratio: the probability of dropping each weight, in ``[0, 1)``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.SimplifiedDropconnect(None, 3, ratio=0.25)
        >>> x = np.ones((2, 5), dtype=np.float32)
        >>> layer(x).shape, layer.W.shape
        ((2, 3), (3, 5))
        >>> bool(np.allclose(layer(x, train=False).array, x @ layer.W.array.T))  # no weight dropped
        True
    """

    def __init__(self, in_size: int | None, out_size: int, ratio: float = 0.5, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__(in_size, out_size, nobias, initialW, initial_bias)
        self.ratio = ratio

    def forward(self, x: Any, train: bool = True, mask: Any = None,
                use_batchwise_mask: bool = True) -> Variable:
        """``x`` of shape ``(n, ...)`` -> ``(n, out_size)``; the arguments are ``F.simplified_dropconnect``'s."""
        self.initialize_from_input(self.W, x, 2, lambda x, xp: self._initialize_params(math.prod(x.shape[1:]), xp),
                                   "SimplifiedDropconnect")
        return F.simplified_dropconnect(x, self.W, self.b, self.ratio, train, mask, use_batchwise_mask)
