"""``DepthwiseConvolution2D``: every input channel convolved with its own ``channel_multiplier`` filters."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.functions.connection.sliding_windows import pair
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["DepthwiseConvolution2D"]


class DepthwiseConvolution2D(Link):
    """Depthwise convolution: ``W (channel_multiplier, in_channels, kh, kw)``, ``b (in_channels * multiplier,)``.

    Args:
        in_channels: input channels, or ``None`` to learn them (and the size
            of ``b``) from the first input.
        channel_multiplier: filters per input channel; the output has
            ``in_channels * channel_multiplier`` channels.
        ksize: kernel size (int or pair).
        stride, pad: as in ``F.depthwise_convolution_2d``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> conv = L.DepthwiseConvolution2D(3, 2, ksize=3, pad=1)
        >>> conv(np.ones((2, 3, 5, 5), dtype=np.float32)).shape, conv.W.shape, conv.b.shape
        ((2, 6, 5, 5), (2, 3, 3, 3), (6,))
    """

    layer_name = "DepthwiseConvolution2D"

    def __init__(
        self,
        in_channels: int | None,
        channel_multiplier: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        name = self.layer_name
        self.in_channels = positive_int(name, "in_channels", in_channels, allow_none=True)
        self.channel_multiplier = positive_int(name, "channel_multiplier", channel_multiplier)
        self.ksize = pair(name, ksize, "ksize", 1, each=positive_int)
        self.stride, self.pad = stride, pad
        with self.init_scope():
            self.W = Parameter(initializers.get_initializer(initialW, initializers.LeCunNormal()))
            self.b = None if nobias else Parameter(initializers.get_initializer(initial_bias, initializers.Zero()))
        if self.in_channels is not None:
            self._initialize_params(self.in_channels, self.xp)

    def _initialize_params(self, in_channels: int, xp: Any) -> None:
        self.in_channels = in_channels
        self.W.initialize((self.channel_multiplier, in_channels, *self.ksize), xp=xp)
        if self.b is not None:
            self.b.initialize(self.channel_multiplier * in_channels, xp=xp)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, C * channel_multiplier, H', W')``."""
        self.initialize_from_input(self.W, x, 4, lambda x, xp: self._initialize_params(int(x.shape[1]), xp),
                                   self.layer_name)
        return F.depthwise_convolution_2d(x, self.W, self.b, self.stride, self.pad)
