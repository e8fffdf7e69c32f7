"""``DecorrelatedBatchNormalization``: ZCA whitening of channel groups with batch statistics in training, running
averages in inference (Chainer's link)."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.configuration import config
from minigrad.functions.checks import require_flag, require_real
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.variable import Variable

_NAME = "DecorrelatedBatchNormalization"

__all__ = ["DecorrelatedBatchNormalization"]


class DecorrelatedBatchNormalization(Link):
    """Decorrelated batch normalization layer (no learned parameters): ``F.decorrelated_batch_normalization``
    while ``config.train`` is True (updating the running averages), ``F.fixed_decorrelated_batch_normalization``
    with them otherwise.

    Args:
        size: the number of channels (axis 1 of the input).
        groups: how many groups the channels split into (it must divide ``size``).
        decay: decay of the running averages, in [0, 1].
        eps: added to the diagonal of each covariance (non-negative).
        dtype: dtype of the running statistics (default float32, as in Chainer).

    Attributes:
        avg_mean: ``(groups, size // groups)``, the running mean (starts at 0).
        avg_projection: ``(groups, size // groups, size // groups)``, the running whitening matrix (starts at
            the identity).
        N: batches seen in fine-tuning. All three are persistent (saved by ``save_npz``).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.links as L
        >>> dbn = L.DecorrelatedBatchNormalization(2, groups=1, eps=0.0)
        >>> x = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 6.0], [2.0, 3.0]], dtype=np.float32)
        >>> y = dbn(x)
        >>> np.round(y.array.T @ y.array / 4, 5) + 0.0  # whitened (+ 0.0: no -0.)
        array([[1., 0.],
               [0., 1.]], dtype=float32)
        >>> dbn.avg_mean
        array([[0.2, 0.3]], dtype=float32)
        >>> with mg.using_config("train", False):
        ...     dbn(x).shape
        (4, 2)
    """

    def __init__(self, size: int, groups: int = 16, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = numpy.float32) -> None:
        super().__init__()
        size = positive_int(_NAME, "size", size)
        groups = positive_int(_NAME, "groups", groups)
        if size % groups:
            raise ValueError(f"{_NAME}: size={size} does not split into groups={groups}")
        decay = require_real(_NAME, decay, "decay")
        if not 0 <= decay <= 1:
            raise ValueError(f"{_NAME}: decay must be in [0, 1], got {decay}")
        self.eps = require_real(_NAME, eps, "eps", nonnegative=True)
        self.decay, self.groups = decay, groups
        channels = size // groups
        dtype = numpy.dtype(dtype)
        self.add_persistent("avg_mean", numpy.zeros((groups, channels), dtype=dtype))
        self.add_persistent("avg_projection", numpy.broadcast_to(numpy.eye(channels, dtype=dtype),
                                                                 (groups, channels, channels)).copy())
        self.add_persistent("N", 0)

    def forward(self, x: Any, finetune: bool = False) -> Variable:
        """Whiten ``x``; ``finetune=True`` makes the running averages plain means over all batches so far."""
        finetune = require_flag(_NAME, finetune, "finetune")
        if not config.train:
            dtype = getattr(x, "dtype", self.avg_mean.dtype)  # statistics are constants: follow x's precision
            mean = self.avg_mean.astype(dtype, copy=False)
            projection = self.avg_projection.astype(dtype, copy=False)
            return F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=self.groups)
        decay = 1.0 - 1.0 / (self.N + 1) if finetune else self.decay
        y = F.decorrelated_batch_normalization(x, groups=self.groups, eps=self.eps, running_mean=self.avg_mean,
                                               running_projection=self.avg_projection, decay=decay)
        self.N += finetune  # counted once the batch is (a bad one raises above and leaves N alone)
        return y

    def start_finetuning(self) -> None:
        """Reset the batch counter used by ``finetune=True``."""
        self.N = 0
