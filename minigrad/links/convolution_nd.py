"""``ConvolutionND``: a convolution layer over ``ndim`` spatial axes, ``(N, C, d_1, ..., d_ndim)`` inputs."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.links._convolution_layer import _ConvolutionLayer
from minigrad.links._utils import given_params
from minigrad.variable import Variable

__all__ = ["ConvolutionND", "Convolution1D", "Convolution3D"]


class ConvolutionND(_ConvolutionLayer):
    """N-d convolution with weight ``W`` of shape ``(out_channels, in_channels / groups, k_1, ..., k_ndim)``.

    Args:
        ndim: the number of spatial axes.
        in_channels: input channels, or ``None`` to learn them from the first
            input. ``ConvolutionND(ndim, out_channels, ksize)`` is short for
            ``ConvolutionND(ndim, None, out_channels, ksize)``.
        out_channels: output channels.
        ksize: kernel size (int or tuple of ``ndim`` ints).
        stride, pad, cover_all, dilate, groups: as in ``F.convolution_nd``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> conv = L.ConvolutionND(3, None, 4, ksize=3, pad=1)
        >>> conv(np.ones((2, 3, 5, 5, 5), dtype=np.float32)).shape, conv.W.shape
        ((2, 4, 5, 5, 5), (4, 3, 3, 3, 3))
    """

    layer_name = "ConvolutionND"

    def __init__(
        self,
        ndim: int,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
        cover_all: bool = False,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(in_channels, out_channels, ksize, nobias, initialW, initial_bias, groups, ndim)
        self.stride, self.pad, self.cover_all, self.dilate = stride, pad, cover_all, dilate

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False, *,
                    cover_all: bool = False, dilate: Any = 1, groups: int = 1) -> ConvolutionND:
        """A ConvolutionND whose parameters start as ``W`` ``(out, in / groups, *ksize)`` and ``b``; the number of
        spatial axes is ``W``'s (Chainer's ``from_params``).

        Example:
            >>> import numpy as np, minigrad.links as L
            >>> layer = L.ConvolutionND.from_params(np.ones((4, 3, 2, 2, 2), np.float32))
            >>> layer.ndim, layer.in_channels, layer.ksize
            (3, 3, (2, 2, 2))
        """
        W, b = given_params("ConvolutionND", W, b)
        return ConvolutionND(W.ndim - 2, W.shape[1] * groups, W.shape[0], W.shape[2:], stride, pad, nobias,
                             initialW=W, initial_bias=None if nobias else b, cover_all=cover_all, dilate=dilate,
                             groups=groups)


    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, d_1, ..., d_ndim)`` -> ``(N, out_channels, d_1', ..., d_ndim')``."""
        self._initialize_from_input(x)
        return F.convolution_nd(x, self.W, self.b, self.stride, self.pad, self.cover_all, self.dilate, self.groups)


class Convolution1D(ConvolutionND):
    """``ConvolutionND(1, ...)``: a convolution layer over signals ``(N, C, L)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> conv = L.Convolution1D(3, 4, ksize=3, pad=1)
        >>> conv(np.ones((2, 3, 7), dtype=np.float32)).shape, conv.W.shape
        ((2, 4, 7), (4, 3, 3))
    """

    layer_name = "Convolution1D"

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None, stride: Any = 1, pad: Any = 0,
                 nobias: bool = False, initialW: Any = None, initial_bias: Any = None, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias,
                         cover_all, dilate, groups)


class Convolution3D(ConvolutionND):
    """``ConvolutionND(3, ...)``: a convolution layer over volumes ``(N, C, D, H, W)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> conv = L.Convolution3D(None, 4, ksize=3, pad=1)
        >>> conv(np.ones((2, 3, 5, 5, 5), dtype=np.float32)).shape, conv.W.shape
        ((2, 4, 5, 5, 5), (4, 3, 3, 3, 3))
    """

    layer_name = "Convolution3D"

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None, stride: Any = 1, pad: Any = 0,
                 nobias: bool = False, initialW: Any = None, initial_bias: Any = None, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias,
                         cover_all, dilate, groups)
