"""``Linear``: the fully-connected layer ``y = x W^T + b``."""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.functions.checks import require_result_size
from minigrad.link import Link
from minigrad.links._utils import given_params, positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["Linear"]


class Linear(Link):
    """Fully-connected layer with weight ``W`` of shape ``(out_size, in_size)`` and bias ``b``.

    Args:
        in_size: input size, or ``None`` to learn it from the first input
            (``Linear(10)`` is ``Linear(None, 10)``).
        out_size: output size.
        nobias: no bias when True.
        initialW: initializer (callable, scalar or array) of ``W``; default
            ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.Linear(None, 3)
        >>> layer(np.ones((2, 5), dtype=np.float32)).shape, layer.W.shape
        ((2, 3), (3, 5))
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.in_size = positive_int("Linear", "in_size", in_size, allow_none=True)
        self.out_size = positive_int("Linear", "out_size", out_size)
        with self.init_scope():
            self.W = Parameter(initializers.get_initializer(initialW, initializers.LeCunNormal()))
            if self.in_size is not None:
                self._initialize_params(self.in_size)
            if nobias:
                self.b = None
            else:
                self.b = Parameter(initializers.get_initializer(initial_bias, initializers.Zero()), self.out_size)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, nobias: bool = False) -> Linear:
        """A Linear layer whose parameters start as ``W`` (out_size, in_size) and ``b`` (Chainer's ``from_params``).

        Example:
            >>> import numpy as np, minigrad.links as L
            >>> layer = L.Linear.from_params(np.ones((2, 3), np.float32), np.zeros(2, np.float32))
            >>> layer.in_size, layer.out_size, float(layer.W.array.sum())
            (3, 2, 6.0)
        """
        W, b = given_params("Linear", W, b, ndim=2)
        out_size, in_size = W.shape
        return cls(in_size, out_size, nobias, initialW=W, initial_bias=None if nobias else b)

    def _initialize_params(self, in_size: int, xp: Any = None) -> None:
        self.in_size = in_size
        require_result_size("Linear", (self.out_size, in_size), "in_size, out_size")  # (W: before allocating it)
        self.W.initialize((self.out_size, in_size), xp=self.xp if xp is None else xp)

    def forward(self, x: Any, n_batch_axes: int = 1) -> Variable:
        """``x`` of shape ``(*batch, *in_dims)`` -> ``(*batch, out_size)``."""
        self.initialize_from_input(
            self.W, x, n_batch_axes + 1, lambda x, xp: self._initialize_params(math.prod(x.shape[n_batch_axes:]), xp),
            "Linear")
        return F.linear(x, self.W, self.b, n_batch_axes=n_batch_axes)
