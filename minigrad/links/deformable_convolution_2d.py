"""``DeformableConvolution2D``: a convolution whose taps read the input at offsets another convolution predicts
(Dai et al. 2017; Chainer's link), and ``DeformableConvolution2DSampler``, the part that takes the offsets."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.functions.connection.sliding_windows import pair
from minigrad.link import Chain
from minigrad.links._convolution_layer import _ConvolutionLayer
from minigrad.links._utils import positive_int
from minigrad.links.convolution_2d import Convolution2D
from minigrad.variable import Variable

__all__ = ["DeformableConvolution2D", "DeformableConvolution2DSampler"]


class DeformableConvolution2DSampler(_ConvolutionLayer):
    """``F.deformable_convolution_2d_sampler`` with its ``W`` ``(out_channels, in_channels, kh, kw)`` and ``b``.

    Args:
        in_channels: input channels, or ``None`` to learn them from the first input.
        out_channels, ksize, stride, pad: as in ``Convolution2D``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default 0, as in Chainer.
        initial_bias: initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> sampler = L.DeformableConvolution2DSampler(None, 4, ksize=3, pad=1)
        >>> sampler(np.ones((2, 3, 5, 5), np.float32), np.zeros((2, 18, 5, 5), np.float32)).shape
        (2, 4, 5, 5)
    """

    layer_name = "DeformableConvolution2DSampler"

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any, stride: Any = 1, pad: Any = 0,
                 nobias: bool = False, initialW: Any = None, initial_bias: Any = None) -> None:
        initialW = initializers.Zero() if initialW is None else initialW
        super().__init__(in_channels, out_channels, ksize, nobias, initialW, initial_bias, 1)
        self.stride, self.pad = stride, pad


    def forward(self, x: Any, offset: Any) -> Variable:
        """``x`` ``(n, in_channels, h, w)`` read at ``offset`` ``(n, 2 kh kw, out_h, out_w)``."""
        self._initialize_from_input(x)
        return F.deformable_convolution_2d_sampler(x, offset, self.W, self.b, self.stride, self.pad)


class DeformableConvolution2D(Chain):
    """Deformable convolution: ``offset_conv`` (a ``Convolution2D`` with ``2 kh kw`` output channels) predicts
    every tap's offset from ``x``, and ``deform_conv`` (a ``DeformableConvolution2DSampler``) convolves ``x``
    read at them.

    Args:
        in_channels: input channels, or ``None`` to learn them from the first input.
        out_channels: output channels.
        ksize, stride, pad: the window, shared by both convolutions.
        offset_nobias, offset_initialW, offset_initial_bias: ``offset_conv``'s ``nobias``, ``initialW`` (default
            ``LeCunNormal()``) and ``initial_bias`` (default 0).
        deform_nobias, deform_initialW, deform_initial_bias: ``deform_conv``'s (``W`` defaults to 0, as in
            Chainer).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.DeformableConvolution2D(3, 4, ksize=3, pad=1)
        >>> layer(np.ones((2, 3, 5, 5), dtype=np.float32)).shape, layer.offset_conv.W.shape
        ((2, 4, 5, 5), (18, 3, 3, 3))
    """

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any, stride: Any = 1, pad: Any = 0,
                 offset_nobias: bool = False, offset_initialW: Any = None, offset_initial_bias: Any = None,
                 deform_nobias: bool = False, deform_initialW: Any = None, deform_initial_bias: Any = None) -> None:
        super().__init__()
        kh, kw = pair("DeformableConvolution2D", ksize, "ksize", 1, each=positive_int)
        with self.init_scope():
            self.offset_conv = Convolution2D(in_channels, 2 * kh * kw, (kh, kw), stride, pad, offset_nobias,
                                             offset_initialW, offset_initial_bias)
            self.deform_conv = DeformableConvolution2DSampler(in_channels, out_channels, (kh, kw), stride, pad,
                                                              deform_nobias, deform_initialW, deform_initial_bias)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(n, in_channels, h, w)`` -> ``(n, out_channels, out_h, out_w)``."""
        return self.deform_conv(x, self.offset_conv(x))
