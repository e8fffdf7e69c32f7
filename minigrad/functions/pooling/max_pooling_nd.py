"""max_pooling_nd: max pooling over any number of spatial axes (the 2-d nodes, whose windows are N-d)."""

from __future__ import annotations

from typing import Any

from minigrad.functions.pooling.max_pooling_2d import checked_max_pooling
from minigrad.variable import Variable

__all__ = ["max_pooling_nd", "max_pooling_1d", "max_pooling_3d"]


def max_pooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Variable | tuple[Variable, Any]:
    """N-dimensional max pooling: ``max_pooling_2d`` on the ``x.ndim - 2`` spatial axes of ``x``.

    Args:
        x: inputs of shape ``(N, C, d_1, ..., d_N)``.
        ksize: window size, an int or a tuple of N ints.
        stride: window step, an int or a tuple of N ints; defaults to ``ksize``.
        pad: padding (with -inf) on each border, smaller than ``ksize``.
        cover_all: add a last, partial window on each axis (True, as in Chainer);
            one that would see only padding is a ``ValueError``.
        return_indices: also return each window's argmax, counted row-major
            inside the window (shape ``(N, C, out_1, ..., out_N)``).

    Where a window has tied maxima the gradient goes to the first of them.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.max_pooling_nd(np.array([[[1.0, 3.0, 2.0, 5.0, 4.0]]]), 2).array  # 1-d, cover_all
        array([[[3., 5., 4.]]])
        >>> F.max_pooling_nd(np.ones((1, 1, 4, 4, 4)), 2).shape  # 3-d
        (1, 1, 2, 2, 2)
    """
    return checked_max_pooling("max_pooling_nd", x, ksize, stride, pad, cover_all, return_indices, None)


def max_pooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Variable | tuple[Variable, Any]:
    """``max_pooling_nd`` on signals of shape ``(N, C, L)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.max_pooling_1d(np.array([[[1.0, 3.0, 2.0, 5.0]]]), 2).array
        array([[[3., 5.]]])
    """
    return checked_max_pooling("max_pooling_1d", x, ksize, stride, pad, cover_all, return_indices, 1)


def max_pooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Variable | tuple[Variable, Any]:
    """``max_pooling_nd`` on volumes of shape ``(N, C, D, H, W)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.max_pooling_3d(np.ones((1, 1, 4, 4, 4)), 2).shape
        (1, 1, 2, 2, 2)
    """
    return checked_max_pooling("max_pooling_3d", x, ksize, stride, pad, cover_all, return_indices, 3)
