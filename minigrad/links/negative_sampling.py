"""``NegativeSampling``: word2vec's output layer, a weight matrix and a sampler built from word counts."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.dtypes import get_dtype
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.utils import WalkerAlias
from minigrad.variable import Parameter

__all__ = ["NegativeSampling"]


class NegativeSampling(Link):
    """Negative sampling loss layer: holds ``W`` ``(len(counts), in_size)`` and a sampler of negatives.

    Args:
        in_size: dimension of the input vectors.
        counts: how often each id occurs (one count per id); negatives are
            drawn with probability proportional to ``counts ** power``.
        sample_size: negative samples per input row.
        power: the exponent ``alpha`` of the counts (word2vec uses 0.75).
        dtype: dtype of ``W`` and of the powered counts; default ``config.dtype``.

    Attributes:
        W: the weight matrix, initialized to zeros (as in Chainer).
        sampler: a ``minigrad.utils.WalkerAlias`` over ``counts ** power``; it
            moves with ``to_gpu`` / ``to_cpu``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.NegativeSampling(3, counts=[5, 1, 2, 8], sample_size=2)
        >>> layer.W.shape
        (4, 3)
        >>> layer(np.ones((2, 3), np.float32), np.array([0, 3])).array  # W = 0: every score is 0
        array(4.158883, dtype=float32)
    """

    def __init__(self, in_size: int, counts: Any, sample_size: int, power: float = 0.75, dtype: Any = None) -> None:
        super().__init__()
        where = "NegativeSampling"
        dtype = get_dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(f"{where}: dtype must be a floating-point dtype, got {dtype}")
        self.in_size = positive_int(where, "in_size", in_size)
        self.sample_size = positive_int(where, "sample_size", sample_size)
        counts = numpy.asarray(counts, dtype=dtype)
        if counts.ndim != 1 or not (counts >= 0).all():  # NaN fails too
            raise ValueError(f"{where}: counts must be a 1-D sequence of non-negative numbers, got shape "
                             f"{counts.shape} with values {counts.reshape(-1)[:5].tolist()}")
        weights = numpy.power(counts, dtype.type(power))
        self.sampler = WalkerAlias(weights)
        with self.init_scope():
            self.W = Parameter(0, (len(weights), self.in_size))
            self.W.initialize((len(weights), self.in_size), dtype=dtype)

    def _move_state(self, device: str) -> None:
        self.sampler.to_cpu() if device == "cpu" else self.sampler.to_gpu()

    def forward(self, x: Any, t: Any, reduce: str = "sum", *, return_samples: bool = False) -> Any:
        """``F.negative_sampling(x, t, W, sampler.sample, sample_size, reduce, return_samples=...)``."""
        # looked up in its module at each call, as Chainer's link does, so that a test patching
        # minigrad.functions.loss.negative_sampling.negative_sampling sees the call
        return F.loss.negative_sampling.negative_sampling(x, t, self.W, self.sampler.sample, self.sample_size,
                                                          reduce=reduce, return_samples=return_samples)
