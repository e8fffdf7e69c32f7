"""Chainer's ``chainer.utils.conv_nd``: N-d im2col / col2im on arrays (NumPy or CuPy).

The N-d forms of :mod:`minigrad.utils.conv`, on the same sliding-window core;
the ``_cpu`` and ``_gpu`` names do the same (``im2col_nd_gpu`` without ``pval``, as in Chainer).

Example:
    >>> import numpy as np
    >>> from minigrad.utils import conv_nd
    >>> conv_nd.im2col_nd_cpu(np.ones((1, 2, 4, 4, 4)), (2, 2, 2), (2, 2, 2), (0, 0, 0)).shape
    (1, 2, 2, 2, 2, 2, 2, 2)
"""

from __future__ import annotations

from typing import Any

from minigrad.functions.connection import sliding_windows
from minigrad.utils.conv import get_conv_outsize

__all__ = ["as_tuple", "im2col_nd", "im2col_nd_cpu", "im2col_nd_gpu", "col2im_nd", "col2im_nd_cpu", "col2im_nd_gpu"]


def as_tuple(x: Any, n: int) -> tuple[Any, ...]:
    """``x`` as an ``n``-tuple: a sequence of length ``n`` as it is, a scalar repeated.

    Example:
        >>> from minigrad.utils.conv_nd import as_tuple
        >>> as_tuple(2, 3), as_tuple([1, 2], 2)
        ((2, 2, 2), (1, 2))
    """
    if hasattr(x, "__getitem__"):
        if len(x) != n:
            raise ValueError(f"as_tuple: expected {n} values, got {len(x)} ({x!r})")
        return tuple(x)
    return (x,) * n


def im2col_nd(img: Any, ksize: Any, stride: Any, pad: Any, pval: float = 0, cover_all: bool = False,
              dilate: Any = 1) -> Any:
    """The patches of ``img`` (N, C, d_1, ..., d_n) as a new array (N, C, k_1, ..., k_n, out_1, ..., out_n).

    Example:
        >>> import numpy as np
        >>> from minigrad.utils.conv_nd import im2col_nd
        >>> im2col_nd(np.arange(6.0).reshape(1, 1, 6), (2,), (2,), (0,))[0, 0]
        array([[0., 2., 4.],
               [1., 3., 5.]])
    """
    dims = img.shape[2:]
    n = len(dims)
    ksize, stride, pad, dilate = (as_tuple(v, n) for v in (ksize, stride, pad, dilate))
    outs = tuple(get_conv_outsize(*args, cover_all, d) for *args, d in zip(dims, ksize, stride, pad, dilate))
    if any(out <= 0 for out in outs):
        raise ValueError(f"im2col_nd: the output would be {outs} for an image of {dims}, kernel {ksize}, stride "
                         f"{stride}, padding {pad}; every size must be positive")
    return sliding_windows.im2col_array(img, ksize, stride, pad, dilate, outs, pad_value=pval).copy()


def col2im_nd(col: Any, stride: Any, pad: Any, dims: Any, dilate: Any = 1) -> Any:
    """Sum patches ``col`` ``(N, C, k_1, ..., k_n, out_1, ..., out_n)`` back into images ``(N, C, *dims)``.

    Example:
        >>> import numpy as np
        >>> from minigrad.utils.conv_nd import col2im_nd
        >>> col2im_nd(np.ones((1, 1, 2, 3)), (1,), (0,), (4,))[0, 0]
        array([1., 2., 2., 1.])
    """
    n = len(dims)
    return sliding_windows.col2im_array(col, tuple(dims), as_tuple(stride, n), as_tuple(pad, n), as_tuple(dilate, n))


def im2col_nd_gpu(img: Any, ksize: Any, stride: Any, pad: Any, cover_all: bool = False, dilate: Any = 1) -> Any:
    """``im2col_nd`` with Chainer's GPU signature (no ``pval``: the padding is 0); any array module."""
    return im2col_nd(img, ksize, stride, pad, 0, cover_all, dilate)


im2col_nd_cpu = im2col_nd
col2im_nd_cpu = col2im_nd_gpu = col2im_nd
