"""``MLPConvolution2D``: the "mlpconv" layer of Network in Network, a convolution then 1x1 convolutions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import minigrad.functions as F
from minigrad.link import ChainList
from minigrad.links._utils import positive_int
from minigrad.links.convolution_2d import Convolution2D
from minigrad.variable import Variable

__all__ = ["MLPConvolution2D"]


class MLPConvolution2D(ChainList):
    """A 2-D convolution followed by 1x1 convolutions, with ``activation`` between them (not after the last).

    Args:
        in_channels: input channels (``None``, or ``MLPConvolution2D(out_channels, ksize)``: learned from the
            first input).
        out_channels: a non-empty sequence of ints: the output channels of each convolution in turn.
        ksize: the kernel size of the first convolution (int or pair).
        stride, pad: of the first convolution (int or pair).
        activation: applied to every hidden output (default ``F.relu``).
        conv_init, bias_init: (keyword) initializers of the weights and the biases of every convolution.

    See: Lin et al., `Network in Network <https://arxiv.org/abs/1312.4400v3>`_.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> mlpconv = L.MLPConvolution2D(3, (8, 6, 4), ksize=3, pad=1)
        >>> len(mlpconv), mlpconv(np.ones((2, 3, 5, 5), dtype=np.float32)).shape
        (3, (2, 4, 5, 5))
    """

    def __init__(self, in_channels: int | None, out_channels: Sequence[int] | int, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, activation: Callable[[Variable], Variable] = F.relu, *args: Any,
                 conv_init: Any = None, bias_init: Any = None, **kwargs: Any) -> None:
        if args or "wscale" in kwargs:  # (Chainer's errors: a TypeError for the positional form)
            raise (TypeError if args else ValueError)(
                "MLPConvolution2D: wscale is not supported (as in Chainer 7): use conv_init and bias_init to change "
                "the scale of the initial parameters")
        if kwargs:
            raise TypeError(f"MLPConvolution2D: unexpected keyword arguments {sorted(kwargs)}")
        if ksize is None:  # MLPConvolution2D(out_channels, ksize)
            in_channels, out_channels, ksize = None, in_channels, out_channels
        if isinstance(out_channels, (str, bytes)) or not isinstance(out_channels, Sequence) or not out_channels:
            raise TypeError(f"MLPConvolution2D: out_channels must be a non-empty sequence of ints, got "
                            f"{out_channels!r}")
        channels = [positive_int("MLPConvolution2D", "out_channels", n) for n in out_channels]
        if not callable(activation):
            raise TypeError(f"MLPConvolution2D: activation must be callable, got {type(activation).__name__}")
        convs = [Convolution2D(in_channels, channels[0], ksize, stride, pad, initialW=conv_init,
                               initial_bias=bias_init)]
        convs += [Convolution2D(n_in, n_out, 1, initialW=conv_init, initial_bias=bias_init)
                  for n_in, n_out in zip(channels, channels[1:])]
        super().__init__(*convs)
        self.activation = activation

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, out_channels[-1], H', W')``."""
        *hidden, last = list(self)
        for conv in hidden:
            x = self.activation(conv(x))
        return last(x)
