"""``BlackOut``: the BlackOut loss layer, a weight matrix and a sampler built from word counts."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.utils import WalkerAlias
from minigrad.variable import Parameter, Variable

__all__ = ["BlackOut"]


class BlackOut(Link):
    """BlackOut loss layer: holds ``W`` ``(len(counts), in_size)`` and a sampler of negatives.

    Args:
        in_size: dimension of the input vectors.
        counts: how often each id occurs; negatives are drawn with probability
            proportional to ``counts`` (no power, as in Chainer).
        sample_size: negative samples per input row.

    Attributes:
        W: the weight matrix. As in Chainer it has no initializer, so it holds
            NaN until you fill it (``layer.W.array[...] = ...``).
        sampler: a ``minigrad.utils.WalkerAlias`` over ``counts``; it moves
            with ``to_gpu`` / ``to_cpu``.
        sample_data: ``None`` (draw the negatives from ``sampler`` at each
            call), or an integer array ``(batch, sample_size)`` of negatives to
            use instead, as Chainer's attribute of that name (which its tests set).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.BlackOut(3, counts=[5, 1, 2, 8], sample_size=2)
        >>> layer.W.array[...] = 0
        >>> loss = layer(np.ones((2, 3), np.float32), np.array([0, 3]))  # three equal scores: p = 1/3 each
        >>> bool(np.isclose(loss.array, -np.log(1 / 3) - 2 * np.log(2 / 3)))
        True
    """

    sample_data: Any = None

    def __init__(self, in_size: int, counts: Any, sample_size: int) -> None:
        super().__init__()
        where = "BlackOut"
        self.in_size = positive_int(where, "in_size", in_size)
        self.sample_size = positive_int(where, "sample_size", sample_size)
        self.sampler = WalkerAlias(counts)
        with self.init_scope():
            self.W = Parameter(None, (len(self.sampler.threshold), self.in_size))

    def _move_state(self, device: str) -> None:
        self.sampler.to_cpu() if device == "cpu" else self.sampler.to_gpu()

    def forward(self, x: Any, t: Any) -> Variable:
        """``F.black_out(x, t, W, sampler.sample((len(x), sample_size)))`` (or ``sample_data``), the mean over the
        batch."""
        if self.sample_data is not None:
            return F.black_out(x, t, self.W, self.sample_data)
        return F.black_out(x, t, self.W, self.sampler.sample((len(x), self.sample_size)))
