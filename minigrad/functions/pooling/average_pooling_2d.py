"""average_pooling_2d: the mean of each window, padding counted as zeros (Chainer's definition).

Average pooling is linear, so its backward (spread gy / (kh*kw) over each
window) and that backward's backward (average pooling again) are adjoint pairs.
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.connection.sliding_windows import col2im_array, im2col_array
from minigrad.functions.pooling.pooling_2d import PoolGeometry, pooling_geometry
from minigrad.variable import Variable

__all__ = ["AveragePooling2D", "AveragePooling2DGrad", "average_pooling_2d"]


class AveragePooling2D(FunctionNode):
    """x -> each window's sum divided by ``divisor``: the window size, or (``average_pooling_nd`` with
    ``pad_value=None``) an array of each window's count of real pixels. Any number of spatial axes."""

    def __init__(self, geometry: PoolGeometry, divisor: Any = None) -> None:
        self.geometry = geometry
        self.divisor = divisor

    def forward(self, inputs):
        col = im2col_array(inputs[0], *self.geometry.im2col_args)  # a view: the mean reads it in place
        window_axes = tuple(range(2, 2 + len(self.geometry.ksize)))
        if self.divisor is None:
            return col.mean(axis=window_axes),
        return col.sum(axis=window_axes) / self.divisor,

    def backward(self, indexes, grad_outputs):
        return AveragePooling2DGrad(self.geometry, self.divisor).apply(grad_outputs)


class AveragePooling2DGrad(FunctionNode):
    """gy -> gx: every pixel of a window receives gy / divisor (the window size by default)."""

    def __init__(self, geometry: PoolGeometry, divisor: Any = None) -> None:
        self.geometry = geometry
        self.divisor = divisor

    def forward(self, inputs):
        gy, = inputs
        g = self.geometry
        nd = len(g.ksize)
        spread = gy / (math.prod(g.ksize) if self.divisor is None else self.divisor)
        spread = spread.reshape(gy.shape[:2] + (1,) * nd + gy.shape[2:])
        gcol = get_array_module(gy).broadcast_to(spread, gy.shape[:2] + g.ksize + g.outsize)
        return col2im_array(gcol, g.size, g.stride, g.pad, (1,) * nd),

    def backward(self, indexes, grad_outputs):
        return AveragePooling2D(self.geometry, self.divisor).apply(grad_outputs)


def average_pooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0) -> Variable:
    """Spatial average pooling over NCHW images.

    Every window is divided by ``kh * kw``, padded pixels included (as zeros),
    like Chainer's ``average_pooling_2d``.

    Args:
        x: images of shape ``(N, C, H, W)``.
        ksize: window size, an int or a pair ``(kh, kw)``.
        stride: window step, an int or a pair; defaults to ``ksize``.
        pad: zero padding on each border, an int or a pair.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.average_pooling_2d(x, 2).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]])
        >>> F.average_pooling_2d(np.ones((1, 1, 2, 2)), 2, pad=1).array  # padding counts as zeros
        array([[[[0.25, 0.25],
                 [0.25, 0.25]]]])
    """
    x, geometry = pooling_geometry("average_pooling_2d", x, ksize, stride, pad, cover_all=False)
    return AveragePooling2D(geometry).apply((x,))[0]
