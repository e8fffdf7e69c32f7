"""average_pooling_nd: average pooling over any number of spatial axes, with Chainer's ``pad_value``.

``pad_value=0`` divides every window by its size (padding counts as zeros);
``pad_value=None`` divides each window by its number of real pixels. Either
way the op is linear, so the 2-d nodes (given that divisor) make every order work.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.functions.connection.sliding_windows import im2col_array
from minigrad.functions.pooling.pooling_2d import pooling_geometry, require_real_pixels
from minigrad.variable import Variable

__all__ = ["average_pooling_nd", "average_pooling_1d", "average_pooling_3d"]


def average_pooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, pad_value: Any = 0) -> Variable:
    """N-dimensional average pooling on the ``x.ndim - 2`` spatial axes of ``x``.

    Args:
        x: inputs of shape ``(N, C, d_1, ..., d_N)``.
        ksize: window size, an int or a tuple of N ints.
        stride: window step, an int or a tuple of N ints; defaults to ``ksize``.
        pad: padding on each border, an int or a tuple of N ints.
        pad_value: ``0`` (the default, as in Chainer): padded pixels count as
            zeros, so each window is divided by ``prod(ksize)``; ``None``: they
            are left out, and each window is divided by its count of real pixels
            (so ``pad`` must be smaller than ``ksize``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[[2.0, 4.0, 6.0]]])
        >>> F.average_pooling_nd(x, 2, pad=1).array  # windows [0, 2], [4, 6]
        array([[[1., 5.]]])
        >>> F.average_pooling_nd(x, 2, pad=1, pad_value=None).array  # the padding left out
        array([[[2., 5.]]])
    """
    return checked_average_pooling("average_pooling_nd", x, ksize, stride, pad, pad_value, None)


def average_pooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, pad_value: Any = 0) -> Variable:
    """``average_pooling_nd`` on signals of shape ``(N, C, L)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.average_pooling_1d(np.array([[[2.0, 4.0, 6.0]]]), 2, pad=1, pad_value=None).array
        array([[[2., 5.]]])
    """
    return checked_average_pooling("average_pooling_1d", x, ksize, stride, pad, pad_value, 1)


def average_pooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, pad_value: Any = 0) -> Variable:
    """``average_pooling_nd`` on volumes of shape ``(N, C, D, H, W)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.average_pooling_3d(np.ones((1, 1, 4, 4, 4)), 2).shape
        (1, 1, 2, 2, 2)
    """
    return checked_average_pooling("average_pooling_3d", x, ksize, stride, pad, pad_value, 3)


def checked_average_pooling(op: str, x: Any, ksize: Any, stride: Any, pad: Any, pad_value: Any,
                            nd: int | None) -> Variable:
    """``average_pooling_nd`` over ``nd`` spatial axes (None: from ``x``), its errors naming ``op``."""
    if pad_value is not None and (isinstance(pad_value, bool) or pad_value != 0):
        raise ValueError(f"{op}: pad_value must be 0 or None (as in Chainer), got {pad_value!r}")
    x, geometry = pooling_geometry(op, x, ksize, stride, pad, cover_all=False, nd=nd)
    divisor = None
    if pad_value is None:
        require_real_pixels(op, geometry, "with pad_value=None its average would be 0/0")
    if pad_value is None and any(geometry.pad):
        ones = get_array_module(x.array).ones((1, 1) + geometry.size, dtype=x.dtype)
        window_axes = tuple(range(2, 2 + len(geometry.ksize)))
        divisor = im2col_array(ones, *geometry.im2col_args).sum(axis=window_axes)  # (1, 1, *outsize): real pixels
    return F.AveragePooling2D(geometry, divisor).apply((x,))[0]
