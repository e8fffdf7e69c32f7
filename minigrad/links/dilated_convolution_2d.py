"""``DilatedConvolution2D``: a 2-D convolution layer whose filter taps are ``dilate`` pixels apart."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.links._convolution_layer import _ConvolutionLayer
from minigrad.variable import Variable

__all__ = ["DilatedConvolution2D"]


class DilatedConvolution2D(_ConvolutionLayer):
    """Dilated convolution with weight ``W`` of shape ``(out_channels, in_channels, kh, kw)``.

    Args:
        in_channels: input channels, or ``None`` to learn them from the first
            input. ``DilatedConvolution2D(out_channels, ksize)`` is short for
            ``DilatedConvolution2D(None, out_channels, ksize)``.
        out_channels: output channels.
        ksize: kernel size (int or pair).
        stride, pad, dilate: as in ``F.dilated_convolution_2d``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> conv = L.DilatedConvolution2D(None, 4, ksize=3, pad=2, dilate=2)
        >>> conv(np.ones((2, 3, 5, 5), dtype=np.float32)).shape, conv.W.shape
        ((2, 4, 5, 5), (4, 3, 3, 3))
    """

    layer_name = "DilatedConvolution2D"

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        dilate: Any = 1,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__(in_channels, out_channels, ksize, nobias, initialW, initial_bias, 1)
        self.stride, self.pad, self.dilate = stride, pad, dilate


    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, out_channels, H', W')``."""
        self._initialize_from_input(x)
        return F.dilated_convolution_2d(x, self.W, self.b, self.stride, self.pad, self.dilate)
