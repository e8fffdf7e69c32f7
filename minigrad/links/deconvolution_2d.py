"""``Deconvolution2D``: the transposed 2-D convolution layer."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.links._convolution_layer import _ConvolutionLayer
from minigrad.variable import Variable

__all__ = ["Deconvolution2D"]


class Deconvolution2D(_ConvolutionLayer):
    """Transposed convolution with weight ``W`` of shape ``(in_channels, out_channels / groups, kh, kw)``.

    Args:
        in_channels: input channels, or ``None`` to learn them from the first
            input. ``Deconvolution2D(out_channels, ksize)`` is short for
            ``Deconvolution2D(None, out_channels, ksize)``.
        out_channels: output channels.
        ksize: kernel size (int or pair).
        stride, pad, outsize: as in ``F.deconvolution_2d``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.
        dilate, groups: as in ``F.deconvolution_2d``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> deconv = L.Deconvolution2D(3, 2, ksize=2, stride=2)
        >>> deconv(np.ones((1, 3, 4, 4), dtype=np.float32)).shape
        (1, 2, 8, 8)
    """

    layer_name = "Deconvolution2D"
    transposed = True

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
        *,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(in_channels, out_channels, ksize, nobias, initialW, initial_bias, groups)
        self.stride, self.pad, self.outsize, self.dilate = stride, pad, outsize, dilate


    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, out_channels, H', W')``."""
        self._initialize_from_input(x)
        return F.deconvolution_2d(x, self.W, self.b, self.stride, self.pad, self.outsize,
                                  dilate=self.dilate, groups=self.groups)
