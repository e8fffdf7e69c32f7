"""upsampling_2d: the inverse of max pooling: each pixel goes back to where its window's max was.

Given the ``indexes`` that ``max_pooling_2d(..., return_indices=True)``
returns, it is that pooling's gradient routing applied to ``x``, so it is the
``MaxPooling2DGrad`` node (scatter), whose backward is the gather
``MaxPooling2DWithIndexes`` and back again: every derivative order works.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import backend
from minigrad.functions.checks import require_flag
from minigrad.functions.connection.sliding_windows import conv_outsize, deconv_outsize, pair
from minigrad.functions.pooling.pooling_2d import PoolGeometry, window_arguments
from minigrad.variable import Variable

__all__ = ["upsampling_2d"]


def check_indexes(op: str, indexes: Any, x: Variable, window: int) -> Any:
    """``indexes`` as an integer array of ``x``'s shape with every value in ``[0, window)``."""
    if isinstance(indexes, Variable):
        indexes = indexes.array
    if not backend.is_array(indexes):
        raise TypeError(f"{op}: indexes must be an integer numpy.ndarray or cupy.ndarray, got "
                        f"{type(indexes).__name__}")
    if indexes.dtype.kind not in "iu":
        raise TypeError(f"{op}: indexes must have an integer dtype, got {indexes.dtype}")
    if indexes.shape != x.shape:
        raise ValueError(f"{op}: indexes of shape {indexes.shape} must have the shape of x {x.shape}")
    if indexes.size and (int(indexes.min()) < 0 or int(indexes.max()) >= window):
        raise ValueError(f"{op}: indexes must lie in [0, {window}) (positions inside a window of {window} "
                         f"pixels), got values in [{int(indexes.min())}, {int(indexes.max())}]")
    return indexes


def upsampling_2d(x: Any, indexes: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                  cover_all: bool = True) -> Variable:
    """Put each pixel of ``x`` (N, C, h, w) at position ``indexes`` of its window in a zero output (N, C, H, W).

    With the ``(y, indexes)`` of ``max_pooling_2d(x0, ksize, stride, pad,
    cover_all, return_indices=True)``, ``upsampling_2d(y, indexes, ksize,
    stride, pad, x0.shape[2:], cover_all)`` is ``x0`` where each window's max
    was and 0 elsewhere; where windows overlap, the values put at one pixel add up.

    Args:
        x: pooled images of shape ``(N, C, h, w)``.
        indexes: integer array of shape ``(N, C, h, w)``: for each pixel its
            position ``p * kw + q`` inside its ``(kh, kw)`` window.
        ksize: window size, an int or a pair ``(kh, kw)``.
        stride: window step, an int or a pair; defaults to ``ksize``.
        pad: the border that is cut from the output, an int or a pair.
        outsize: ``(H, W)``; by default ``s * (h - 1) + k - 2 p``, less ``s - 1``
            with ``cover_all`` (Chainer's rule).
        cover_all: whether the pooling added a last, partial window (True as in
            ``max_pooling_2d``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[[[1.0, 4.0], [3.0, 2.0]]]])
        >>> y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
        >>> F.upsampling_2d(y, indexes, 2, outsize=(2, 2)).array
        array([[[[0., 4.],
                 [0., 0.]]]])
    """
    op = "upsampling_2d"
    x, ksize, stride, pad = window_arguments(op, x, ksize, stride, pad)
    indexes = check_indexes(op, indexes, x, ksize[0] * ksize[1])
    cover_all = require_flag(op, cover_all, "cover_all")
    if outsize is None:
        outsize = tuple(deconv_outsize(n, k, s, p) - (s - 1 if cover_all else 0)
                        for n, k, s, p in zip(x.shape[2:], ksize, stride, pad))
        if min(outsize) < 1:
            raise ValueError(f"{op}: x of shape {x.shape} with ksize={ksize}, stride={stride}, pad={pad} gives an "
                             f"output of size {outsize}")
    else:
        outsize = pair(op, outsize, "outsize", 1)
    pooled = tuple(conv_outsize(n, k, s, p, 1, cover_all) for n, k, s, p in zip(outsize, ksize, stride, pad))
    if pooled != x.shape[2:]:
        raise ValueError(f"{op}: outsize {outsize} does not pool back to x's size {x.shape[2:]} with ksize={ksize}, "
                         f"stride={stride}, pad={pad}, cover_all={cover_all} (it gives {pooled})")
    return F.MaxPooling2DGrad(PoolGeometry(ksize, stride, pad, outsize, x.shape[2:]), indexes).apply((x,))[0]
