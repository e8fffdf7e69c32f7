"""spatial_pyramid_pooling_2d: max pooling into 1, 2 x 2, 4 x 4, ... bins, flattened and concatenated
(He et al. 2014; Chainer's ``F.spatial_pyramid_pooling_2d``), so any image size gives one length of output.

Level ``i`` pools with windows of ``ceil(size / 2**i)`` pixels, strided by the
window and padded by half the excess (``cover_all``), as Chainer does; it is
``max_pooling_2d``, ``reshape`` and ``concat``, so every order follows.
"""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import as_input, require_ndim, require_size
from minigrad.variable import Variable

__all__ = ["spatial_pyramid_pooling_2d"]


def spatial_pyramid_pooling_2d(x: Any, pyramid_height: int, pooling: str | None = None) -> Variable:
    """Max-pool ``x`` (``(n, c, h, w)``) at ``pyramid_height`` levels of ``2**i x 2**i`` bins, concatenated.

    Args:
        x: float input of shape ``(n, c, h, w)``.
        pyramid_height: the number of levels, >= 1.
        pooling: ``'max'``, the only pooling Chainer has (it must be given, as in Chainer).

    Returns:
        ``(n, c * (1 + 4 + 16 + ...), 1, 1)``: level by level, each flattened channel-major.
        A level whose bins would see only padding (more bins than pixels, say) is a
        ``ValueError``, where Chainer returns ``-inf`` there.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.spatial_pyramid_pooling_2d(x, 2, "max").array.ravel()
        array([15.,  5.,  7., 13., 15.])
    """
    x = as_input("spatial_pyramid_pooling_2d", x, float_only=True)
    require_ndim("spatial_pyramid_pooling_2d", x, 4)
    levels = require_size("spatial_pyramid_pooling_2d", pyramid_height, "pyramid_height", minimum=1)
    if pooling != "max":
        raise ValueError(f"spatial_pyramid_pooling_2d: pooling must be 'max' (the only one Chainer has), "
                         f"got {pooling!r}")
    height, width = x.shape[2:]
    pooled = []
    for level in range(levels):
        bins = 2 ** level
        kh, kw = math.ceil(height / bins), math.ceil(width / bins)
        pad = ((kh * bins - height) // 2, (kw * bins - width) // 2)
        if any(_last_window_start(size, k, p) >= size for size, k, p in ((height, kh, pad[0]), (width, kw, pad[1]))):
            # a window of padding only: Chainer's maximum there is -inf
            raise ValueError(f"spatial_pyramid_pooling_2d: level {level}'s {bins} x {bins} bins of x of shape "
                             f"{x.shape} would have a window over padding only (pad {pad}, window {(kh, kw)}); "
                             f"use fewer levels (pyramid_height) or a larger input")
        y = F.max_pooling_2d(x, (kh, kw), stride=None, pad=pad, cover_all=True)
        pooled.append(F.reshape(y, (y.shape[0], -1, 1, 1)))
    return F.concat(pooled, axis=1)


def _last_window_start(size: int, k: int, pad: int) -> int:
    """Where the last window of ``max_pooling_2d(ksize=k, stride=k, pad=pad, cover_all=True)`` starts."""
    windows = (size + 2 * pad - k + k - 1) // k + 1
    return (windows - 1) * k - pad
