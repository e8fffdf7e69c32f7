"""unpooling_nd: ``unpooling_2d`` over any number of spatial axes."""

from __future__ import annotations

from typing import Any

from minigrad.functions.pooling.unpooling_2d import checked_unpooling
from minigrad.variable import Variable

__all__ = ["unpooling_nd", "unpooling_1d", "unpooling_3d"]


def unpooling_nd(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> Variable:
    """Spread each pixel of ``x`` (N, C, d_1, ..., d_N) over its ``ksize`` window of the output.

    Args:
        x: inputs of shape ``(N, C, d_1, ..., d_N)``.
        ksize: window size, an int or a tuple of N ints.
        stride: window step, an int or a tuple of N ints; defaults to ``ksize``.
        pad: the border that is cut from the output, an int or a tuple of N ints.
        outsize: the output's spatial size; by default ``s * (d - 1) + k - 2 p``,
            less ``s - 1`` with ``cover_all`` (as in ``unpooling_2d``).
        cover_all: whether the pooling this inverts added a last, partial window.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.unpooling_nd(np.array([[[1.0, 2.0]]]), 2, cover_all=False).array  # 1-d
        array([[[1., 1., 2., 2.]]])
        >>> F.unpooling_nd(np.ones((1, 1, 2, 2, 2)), 2, cover_all=False).shape  # 3-d
        (1, 1, 4, 4, 4)
    """
    return checked_unpooling("unpooling_nd", x, ksize, stride, pad, outsize, cover_all, None)


def unpooling_1d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> Variable:
    """``unpooling_nd`` on signals of shape ``(N, C, L)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.unpooling_1d(np.array([[[1.0, 2.0]]]), 2, cover_all=False).array
        array([[[1., 1., 2., 2.]]])
    """
    return checked_unpooling("unpooling_1d", x, ksize, stride, pad, outsize, cover_all, 1)


def unpooling_3d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0, outsize: Any = None,
                 cover_all: bool = True) -> Variable:
    """``unpooling_nd`` on volumes of shape ``(N, C, D, H, W)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.unpooling_3d(np.ones((1, 1, 2, 2, 2)), 2, cover_all=False).shape
        (1, 1, 4, 4, 4)
    """
    return checked_unpooling("unpooling_3d", x, ksize, stride, pad, outsize, cover_all, 3)
