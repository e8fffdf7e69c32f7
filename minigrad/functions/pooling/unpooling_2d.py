"""unpooling_2d: the inverse layout of pooling: every pixel is copied into each pixel of its window.

Where windows overlap (``stride < ksize``) the copies add up. It is average
pooling's backward times ``kh * kw``, so it reuses that node (and with it the
adjoint pair that makes every derivative order work).
"""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import require_flag
from minigrad.functions.connection.sliding_windows import conv_outsize, ntuple
from minigrad.functions.pooling.pooling_2d import PoolGeometry, window_arguments
from minigrad.variable import Variable

__all__ = ["unpooling_2d"]  # checked_unpooling: for unpooling_nd


def unpooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> Variable:
    """Spread each pixel of ``x`` (N, C, h, w) over its ``ksize`` window of the output (N, C, H, W).

    Args:
        x: images of shape ``(N, C, h, w)``.
        ksize: window size, an int or a pair ``(kh, kw)``.
        stride: window step, an int or a pair; defaults to ``ksize``.
        pad: the border that is cut from the output, an int or a pair.
        outsize: ``(H, W)``; by default the smallest size that pooling with
            these arguments (and ``cover_all``) maps back to ``(h, w)``:
            ``s * (h - 1) + k - 2 p``, less ``s - 1`` with ``cover_all``.
        cover_all: as in ``max_pooling_2d``: whether that pooling added a last,
            partial window. The default (True, as in Chainer) makes the default
            output smaller: ``unpooling_2d(x, 2)`` maps a height of 2 to 3;
            pass ``cover_all=False`` (or ``outsize``) for 4.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.unpooling_2d(np.array([[[[1.0, 2.0]]]]), 2, cover_all=False).array
        array([[[[1., 1., 2., 2.],
                 [1., 1., 2., 2.]]]])
    """
    return checked_unpooling("unpooling_2d", x, ksize, stride, pad, outsize, cover_all, 2)


def checked_unpooling(op: str, x: Any, ksize: Any, stride: Any, pad: Any, outsize: Any, cover_all: bool,
                      nd: int | None) -> Variable:
    """``unpooling_2d`` over ``nd`` spatial axes (None: from ``x``), its errors naming ``op``."""
    x, ksize, stride, pad = window_arguments(op, x, ksize, stride, pad, nd)
    cover_all = require_flag(op, cover_all, "cover_all")
    if outsize is None:
        outsize = tuple(s * (n - 1) + k - (s - 1 if cover_all else 0) - 2 * p
                        for n, k, s, p in zip(x.shape[2:], ksize, stride, pad))
        if min(outsize) < 1:
            raise ValueError(f"{op}: x of shape {x.shape} with ksize={ksize}, stride={stride}, pad={pad} gives an "
                             f"output of size {outsize}")
    else:
        outsize = ntuple(op, outsize, "outsize", 1, len(ksize))
    pooled = tuple(conv_outsize(n, k, s, p, 1, cover_all) for n, k, s, p in zip(outsize, ksize, stride, pad))
    if pooled != x.shape[2:]:
        raise ValueError(f"{op}: outsize {outsize} does not pool back to x's size {x.shape[2:]} with ksize={ksize}, "
                         f"stride={stride}, pad={pad}, cover_all={cover_all} (it gives {pooled})")
    spread = F.AveragePooling2DGrad(PoolGeometry(ksize, stride, pad, outsize, x.shape[2:])).apply((x,))[0]
    return spread * float(math.prod(ksize))
