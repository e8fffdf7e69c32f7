"""dilated_convolution_2d: Chainer's name for a 2-D convolution whose filter taps are ``dilate`` pixels apart.

It is ``convolution_2d(..., dilate=dilate)``, with Chainer's argument order
(``dilate`` before ``cover_all``).
"""

from __future__ import annotations

from typing import Any

from minigrad.functions.connection.convolution_2d import checked_convolution
from minigrad.variable import Variable

__all__ = ["dilated_convolution_2d"]


def dilated_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, dilate: Any = 1,
                           cover_all: bool = False) -> Variable:
    """Two-dimensional dilated (atrous) convolution.

    ``y[n, o, i, j] = b[o] + sum_{c, p, q} W[o, c, p, q] * xpad[n, c, i*sy + p*dy, j*sx + q*dx]``:
    a convolution with the filter zero-stuffed to ``dy*(kh-1) + 1`` by
    ``dx*(kw-1) + 1`` pixels, computed without building that filter.

    Args:
        x: images of shape ``(N, C, H, W)``.
        W: filters of shape ``(O, C, kh, kw)``.
        b: optional bias of shape ``(O,)``.
        stride: an int or a pair ``(sy, sx)``.
        pad: zero padding, an int or a pair ``(ph, pw)``.
        dilate: spacing between the filter taps, an int or a pair ``(dy, dx)``.
        cover_all: add a last, partial window on the bottom/right, as in ``convolution_2d``.

    Returns:
        Output of shape ``(N, O, out_h, out_w)`` with
        ``out_h = (H + 2*ph - (dy*(kh-1) + 1)) // sy + 1`` (and likewise out_w).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.dilated_convolution_2d(x, np.ones((1, 1, 2, 2)), dilate=2).array  # x[i,j]+x[i,j+2]+x[i+2,j]+...
        array([[[[20., 24.],
                 [36., 40.]]]])
    """
    return checked_convolution("dilated_convolution_2d", x, W, b, stride, pad, cover_all, dilate, 1)
