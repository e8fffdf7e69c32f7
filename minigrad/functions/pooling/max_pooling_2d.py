"""max_pooling_2d: the maximum of each window; the gradient goes to the argmax of each window.

Three nodes share the argmax indices found by the forward pass:

    y   = MaxPooling2D(x)                   (max of each window, remembers where)
    gx  = MaxPooling2DGrad(gy)              (scatter gy to those positions)
    ggy = MaxPooling2DWithIndexes(ggx)      (gather at those positions)

Scatter and gather are each other's adjoint, so each one's backward is the other.
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import require_flag
from minigrad.functions.connection.sliding_windows import col2im_array, im2col_array
from minigrad.functions.pooling.pooling_2d import PoolGeometry, pooling_geometry, require_real_pixels
from minigrad.variable import Variable

__all__ = ["MaxPooling2D", "MaxPooling2DGrad", "MaxPooling2DWithIndexes", "max_pooling_2d"]  # checked_max_pooling too


def _window_columns(x: Any, geometry: PoolGeometry, pad_value: float) -> Any:
    """(N, C, prod(ksize), *outsize): every window's values along axis 2 (one copy of the strided view)."""
    col = im2col_array(x, *geometry.im2col_args, pad_value=pad_value)
    return col.reshape(*x.shape[:2], math.prod(geometry.ksize), *geometry.outsize)


class MaxPooling2DWithIndexes(FunctionNode):
    """x -> x at the given per-window argmax ``indexes`` (N, C, out_h, out_w)."""

    def __init__(self, geometry: PoolGeometry, indexes: Any) -> None:
        self.geometry = geometry
        self.indexes = indexes

    def forward(self, inputs):
        col = _window_columns(inputs[0], self.geometry, 0)
        return get_array_module(col).take_along_axis(col, self.indexes[:, :, None], axis=2)[:, :, 0],

    def backward(self, indexes, grad_outputs):
        return MaxPooling2DGrad(self.geometry, self.indexes).apply(grad_outputs)


class MaxPooling2D(MaxPooling2DWithIndexes):
    """x -> the max of each window; finds the argmax indexes the gradient nodes reuse."""

    def __init__(self, geometry: PoolGeometry) -> None:
        super().__init__(geometry, None)

    def forward(self, inputs):
        x, = inputs
        col = _window_columns(x, self.geometry, -float("inf"))
        xp = get_array_module(col)
        self.indexes = col.argmax(axis=2)
        return xp.take_along_axis(col, self.indexes[:, :, None], axis=2)[:, :, 0],


class MaxPooling2DGrad(FunctionNode):
    """gy -> gx: each output gradient added at its window's argmax position."""

    def __init__(self, geometry: PoolGeometry, indexes: Any) -> None:
        self.geometry = geometry
        self.indexes = indexes

    def forward(self, inputs):
        gy, = inputs
        xp = get_array_module(gy)
        g = self.geometry
        nd = len(g.ksize)
        one_hot = xp.arange(math.prod(g.ksize)).reshape((1, 1, -1) + (1,) * nd) == self.indexes[:, :, None]
        gcol = (one_hot * gy[:, :, None]).reshape(*gy.shape[:2], *g.ksize, *g.outsize)
        return col2im_array(gcol, g.size, g.stride, g.pad, (1,) * nd),

    def backward(self, indexes, grad_outputs):
        return MaxPooling2DWithIndexes(self.geometry, self.indexes).apply(grad_outputs)


def max_pooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Variable | tuple[Variable, Any]:
    """Spatial max pooling over NCHW images.

    Args:
        x: images of shape ``(N, C, H, W)``.
        ksize: window size, an int or a pair ``(kh, kw)``.
        stride: window step, an int or a pair; defaults to ``ksize``.
        pad: padding (with -inf) on each border, an int or a pair, smaller than ``ksize``.
        cover_all: as in Chainer (the default ``True``), add a last, partial
            window so that every input pixel is covered:
            ``out_h = ceil((H + 2*ph - kh) / sy) + 1``; ``False`` floors instead.
            A geometry whose last window would see only padding (Chainer's
            ``-inf``) is a ``ValueError``.
        return_indices: also return, as Chainer does, the array (N, C, out_h, out_w)
            of each window's argmax, counted row-major inside the window
            (``p * kw + q``): what ``F.upsampling_2d`` takes.

    Returns:
        The pooled Variable, or ``(y, indexes)`` with ``return_indices``.

    Where a window has tied maxima the gradient goes to the first of them.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.max_pooling_2d(x, 2).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]])
        >>> F.max_pooling_2d(x, 3, stride=2).shape  # cover_all=True: a partial last window
        (1, 1, 2, 2)
        >>> F.max_pooling_2d(x, 2, return_indices=True)[1]  # the bottom-right pixel of each window
        array([[[[3, 3],
                 [3, 3]]]])
    """
    return checked_max_pooling("max_pooling_2d", x, ksize, stride, pad, cover_all, return_indices, 2)


def checked_max_pooling(op: str, x: Any, ksize: Any, stride: Any, pad: Any, cover_all: bool, return_indices: bool,
                        nd: int | None) -> Variable | tuple[Variable, Any]:
    """``max_pooling_2d`` over ``nd`` spatial axes (None: from ``x``), its errors naming ``op``."""
    return_indices = require_flag(op, return_indices, "return_indices")
    x, geometry = pooling_geometry(op, x, ksize, stride, pad, require_flag(op, cover_all, "cover_all"), nd)
    require_real_pixels(op, geometry, "its maximum would be -inf")
    node = MaxPooling2D(geometry)
    y = node.apply((x,))[0]
    return (y, node.indexes) if return_indices else y
