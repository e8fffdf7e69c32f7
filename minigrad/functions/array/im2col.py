"""im2col: every sliding window of an image batch, laid out as channels (Chainer's ``F.im2col``).

Shapes: x (N, C, H, W) -> y (N, C*kh*kw, out_h, out_w), where channel
``c*kh*kw + i*kw + j`` of ``y`` at (y, x) is pixel ``(y*sy + i*dy - ph,
x*sx + j*dx - pw)`` of channel ``c`` of ``x`` (0 in the padding). The map is
linear, and its adjoint (``Col2Im``, which adds each window back into the
image) is the backward; the backward of ``Col2Im`` is ``Im2Col`` again, so
every order works.
"""

from __future__ import annotations

from typing import Any

from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, require_flag, require_ndim
from minigrad.functions.connection import sliding_windows
from minigrad.functions.connection.sliding_windows import Pair, conv_outsize, pair
from minigrad.variable import Variable

__all__ = ["Im2Col", "Col2Im", "im2col"]


class Im2Col(FunctionNode):
    def __init__(self, ksize: Pair, stride: Pair, pad: Pair, dilate: Pair, outsize: Pair) -> None:
        self.ksize, self.stride, self.pad, self.dilate, self.outsize = ksize, stride, pad, dilate, outsize

    def forward(self, inputs):
        x, = inputs
        n, c, h, w = x.shape
        self.size = (h, w)
        view = sliding_windows.im2col_array(x, self.ksize, self.stride, self.pad, self.dilate, self.outsize)
        (kh, kw), (oh, ow) = self.ksize, self.outsize
        # copy() (C order): a new array, since the view is read-only and may share x's memory
        return view.copy().reshape(n, c * kh * kw, oh, ow),

    def backward(self, indexes, grad_outputs):
        return Col2Im(self.size, self.ksize, self.stride, self.pad, self.dilate).apply(grad_outputs)


class Col2Im(FunctionNode):
    """The adjoint of ``Im2Col``: each window of ``gy`` added back into an image of ``size``."""

    def __init__(self, size: Pair, ksize: Pair, stride: Pair, pad: Pair, dilate: Pair) -> None:
        self.size, self.ksize, self.stride, self.pad, self.dilate = size, ksize, stride, pad, dilate

    def forward(self, inputs):
        gy, = inputs
        n, ckk, oh, ow = gy.shape
        (kh, kw) = self.ksize
        self.outsize = (oh, ow)
        col = gy.reshape(n, ckk // (kh * kw), kh, kw, oh, ow)
        return sliding_windows.col2im_array(col, self.size, self.stride, self.pad, self.dilate),

    def backward(self, indexes, grad_outputs):
        return Im2Col(self.ksize, self.stride, self.pad, self.dilate, self.outsize).apply(grad_outputs)


def im2col(x: Any, ksize: Any, stride: Any = 1, pad: Any = 0, cover_all: bool = False, dilate: Any = 1) -> Variable:
    """Every ``ksize`` window of the images ``x`` (N, C, H, W), as channels: (N, C*kh*kw, out_h, out_w).

    Args:
        x: a 4-D float Variable or array.
        ksize, stride, pad, dilate: an int or a pair ``(for height, for width)``,
            as in ``convolution_2d``; ``pad`` adds zeros on both sides.
        cover_all: add a last, partial window so that every pixel is covered.

    ``F.convolution_2d(x, W)`` equals ``F.im2col(x, kh)`` contracted with ``W``
    over the channel axis (for ``W`` of shape (O, C, kh, kw) reshaped to (O, C*kh*kw)).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(9.0).reshape(1, 1, 3, 3)
        >>> y = F.im2col(x, 2)
        >>> y.shape, y.array[0, :, 0, 0]  # the top-left 2x2 window
        ((1, 4, 2, 2), array([0., 1., 3., 4.]))
    """
    x = as_input("im2col", x, float_only=True)
    require_ndim("im2col", x, 4)
    cover_all = require_flag("im2col", cover_all, "cover_all")
    ksize, stride = pair("im2col", ksize, "ksize", 1), pair("im2col", stride, "stride", 1)
    pad, dilate = pair("im2col", pad, "pad", 0), pair("im2col", dilate, "dilate", 1)
    outsize = tuple(conv_outsize(size, k, s, p, d, cover_all)
                    for size, k, s, p, d in zip(x.shape[2:], ksize, stride, pad, dilate))
    if min(outsize) < 1:
        raise ValueError(f"im2col: a window of ksize {ksize} (dilate {dilate}) does not fit an image of "
                         f"shape {x.shape[2:]} with pad {pad}: the output would have size {outsize}")
    return Im2Col(ksize, stride, pad, dilate, outsize).apply((x,))[0]
