"""depth2space and space2depth: move r x r blocks between the channel axis and the two spatial axes.

Both are one reshape, one transpose and one reshape (so every derivative order
comes from those ops), and each is the other's inverse. The channel index of
output pixel ``(h * r + i, w * r + j)`` of channel ``c`` is ``(i * r + j) * C + c``,
Chainer's (and TensorFlow's) layout.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.checks import as_input, require_ndim
from minigrad.variable import Variable

__all__ = ["depth2space", "space2depth"]


def _factor(op: str, r: Any) -> int:
    if isinstance(r, (bool, numpy.bool_)) or not isinstance(r, (int, numpy.integer)):
        raise TypeError(f"{op}: r must be an int, got {type(r).__name__}")
    if r < 1:
        raise ValueError(f"{op}: r must be at least 1, got {r}")
    return int(r)


def depth2space(X: Any, r: int) -> Variable:
    """Rearrange ``(n, c * r * r, h, w)`` into ``(n, c, h * r, w * r)``: channels become r x r pixel blocks.

    Pixel ``(h * r + i, w * r + j)`` of output channel ``c`` is input channel
    ``(i * r + j) * c_out + c`` at ``(h, w)``, as in Chainer (sub-pixel convolution,
    arXiv:1609.05158). :func:`space2depth` is the inverse.

    Args:
        X: a 4-D array of shape ``(n, c * r * r, h, w)``.
        r: the upscaling factor, a positive int.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> X = np.arange(8.0).reshape(1, 4, 1, 2)
        >>> F.depth2space(X, 2).array
        array([[[[0., 2., 1., 3.],
                 [4., 6., 5., 7.]]]])
    """
    X = as_input("depth2space", X, "X")
    require_ndim("depth2space", X, 4, "X")
    r = _factor("depth2space", r)
    n, channels, h, w = X.shape
    if channels % (r * r):
        raise ValueError(f"depth2space: the {channels} channels of X (shape {X.shape}) are not a multiple of "
                         f"r * r = {r * r}")
    c = channels // (r * r)
    blocks = F.transpose(F.reshape(X, (n, r, r, c, h, w)), (0, 3, 4, 1, 5, 2))  # (n, c, h, i, w, j)
    return F.reshape(blocks, (n, c, h * r, w * r))


def space2depth(X: Any, r: int) -> Variable:
    """Rearrange ``(n, c, h * r, w * r)`` into ``(n, c * r * r, h, w)``: each r x r pixel block becomes channels.

    The inverse of :func:`depth2space`: input pixel ``(h * r + i, w * r + j)`` of
    channel ``c`` goes to output channel ``(i * r + j) * c_in + c`` at ``(h, w)``.

    Args:
        X: a 4-D array of shape ``(n, c, h * r, w * r)``.
        r: the downscaling factor, a positive int dividing both spatial sizes.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> X = np.arange(8.0).reshape(1, 1, 2, 4)
        >>> F.space2depth(X, 2)[0, :, 0].array
        array([[0., 2.],
               [1., 3.],
               [4., 6.],
               [5., 7.]])
    """
    X = as_input("space2depth", X, "X")
    require_ndim("space2depth", X, 4, "X")
    r = _factor("space2depth", r)
    n, c, height, width = X.shape
    if height % r or width % r:
        raise ValueError(f"space2depth: the spatial size {height} x {width} of X (shape {X.shape}) is not a "
                         f"multiple of r = {r}")
    h, w = height // r, width // r
    blocks = F.transpose(F.reshape(X, (n, c, h, r, w, r)), (0, 3, 5, 1, 2, 4))  # (n, i, j, c, h, w)
    return F.reshape(blocks, (n, r * r * c, h, w))
