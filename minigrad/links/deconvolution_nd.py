"""``DeconvolutionND``: the transposed convolution layer over ``ndim`` spatial axes."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.links._convolution_layer import _ConvolutionLayer
from minigrad.variable import Variable

__all__ = ["DeconvolutionND", "Deconvolution1D", "Deconvolution3D"]


class DeconvolutionND(_ConvolutionLayer):
    """N-d transposed convolution with weight ``W`` of shape ``(in_channels, out_channels / groups, k_1, ..., k_ndim)``.

    Args:
        ndim: the number of spatial axes.
        in_channels: input channels, or ``None`` to learn them from the first
            input. ``DeconvolutionND(ndim, out_channels, ksize)`` is short for
            ``DeconvolutionND(ndim, None, out_channels, ksize)``.
        out_channels: output channels.
        ksize: kernel size (int or tuple of ``ndim`` ints).
        stride, pad, outsize, dilate, groups: as in ``F.deconvolution_nd``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> deconv = L.DeconvolutionND(1, 3, 2, ksize=2, stride=2)
        >>> deconv(np.ones((1, 3, 4), dtype=np.float32)).shape, deconv.W.shape
        ((1, 2, 8), (3, 2, 2))
    """

    layer_name = "DeconvolutionND"
    transposed = True

    def __init__(
        self,
        ndim: int,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(in_channels, out_channels, ksize, nobias, initialW, initial_bias, groups, ndim)
        self.stride, self.pad, self.outsize, self.dilate = stride, pad, outsize, dilate


    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, d_1, ..., d_ndim)`` -> ``(N, out_channels, d_1', ..., d_ndim')``."""
        self._initialize_from_input(x)
        return F.deconvolution_nd(x, self.W, self.b, self.stride, self.pad, self.outsize, self.dilate, self.groups)


class Deconvolution1D(DeconvolutionND):
    """``DeconvolutionND(1, ...)``: a transposed convolution layer over signals ``(N, C, L)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> deconv = L.Deconvolution1D(3, 2, ksize=2, stride=2)
        >>> deconv(np.ones((1, 3, 4), dtype=np.float32)).shape, deconv.W.shape
        ((1, 2, 8), (3, 2, 2))
    """

    layer_name = "Deconvolution1D"

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None, stride: Any = 1, pad: Any = 0,
                 nobias: bool = False, outsize: Any = None, initialW: Any = None, initial_bias: Any = None,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, outsize, initialW, initial_bias,
                         dilate, groups)


class Deconvolution3D(DeconvolutionND):
    """``DeconvolutionND(3, ...)``: a transposed convolution layer over volumes ``(N, C, D, H, W)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> deconv = L.Deconvolution3D(None, 2, ksize=2, stride=2)
        >>> deconv(np.ones((1, 3, 2, 2, 2), dtype=np.float32)).shape, deconv.W.shape
        ((1, 2, 4, 4, 4), (3, 2, 2, 2, 2))
    """

    layer_name = "Deconvolution3D"

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None, stride: Any = 1, pad: Any = 0,
                 nobias: bool = False, outsize: Any = None, initialW: Any = None, initial_bias: Any = None,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, outsize, initialW, initial_bias,
                         dilate, groups)
