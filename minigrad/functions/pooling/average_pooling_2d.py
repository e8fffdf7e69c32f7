"""average_pooling_2d: the mean of each window, padding counted as zeros (Chainer's definition).

Average pooling is linear, so its backward (spread gy / (kh*kw) over each
window) and that backward's backward (average pooling again) are adjoint pairs.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.connection.sliding_windows import col2im, im2col
from minigrad.functions.pooling.pooling_2d import PoolGeometry, pooling_geometry
from minigrad.variable import Variable

__all__ = ["AveragePooling2D", "AveragePooling2DGrad", "average_pooling_2d"]


class AveragePooling2D(FunctionNode):
    def __init__(self, geometry: PoolGeometry) -> None:
        self.geometry = geometry

    def forward(self, inputs):
        col = im2col(inputs[0], *self.geometry.im2col_args)  # a view: the mean reads it in place
        return col.mean(axis=(2, 3)),

    def backward(self, indexes, grad_outputs):
        return AveragePooling2DGrad(self.geometry).apply(grad_outputs)


class AveragePooling2DGrad(FunctionNode):
    """gy -> gx: every pixel of a window receives gy / (kh*kw)."""

    def __init__(self, geometry: PoolGeometry) -> None:
        self.geometry = geometry

    def forward(self, inputs):
        gy, = inputs
        g = self.geometry
        kh, kw = g.ksize
        spread = gy / (kh * kw)
        gcol = get_array_module(gy).broadcast_to(spread[:, :, None, None], gy.shape[:2] + g.ksize + g.outsize)
        return col2im(gcol, g.size, g.stride, g.pad, (1, 1)),

    def backward(self, indexes, grad_outputs):
        return AveragePooling2D(self.geometry).apply(grad_outputs)


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
