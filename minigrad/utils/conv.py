"""Chainer's ``chainer.utils.conv``: output sizes of (de)convolutions, and 2-d im2col / col2im on arrays.

The array functions are minigrad's own sliding-window core
(:mod:`minigrad.functions.connection.sliding_windows`) under Chainer's names and
argument order; they work on NumPy and CuPy arrays alike (the ``_cpu`` and
``_gpu`` names do the same, ``im2col_gpu`` without ``pval`` as in Chainer).
``im2col`` returns a new array of shape ``(N, C, kh, kw, out_h, out_w)``,
``col2im`` sums such an array back into images of ``(h, w)``.

Example:
    >>> import numpy as np
    >>> from minigrad.utils import conv
    >>> conv.get_conv_outsize(5, 3, 2, 1), conv.get_deconv_outsize(3, 3, 2, 1)
    (3, 5)
    >>> conv.im2col_cpu(np.arange(16.0).reshape(1, 1, 4, 4), 2, 2, 2, 2, 0, 0)[0, 0, :, :, 0, 0]
    array([[0., 1.],
           [4., 5.]])
"""

from __future__ import annotations

from typing import Any

from minigrad.functions.connection import sliding_windows

__all__ = ["get_conv_outsize", "get_deconv_outsize", "im2col", "im2col_cpu", "im2col_gpu", "col2im", "col2im_cpu",
           "col2im_gpu"]


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1) -> int:
    """The output length of a convolution of kernel ``k``, stride ``s``, padding ``p``, dilation ``d`` over ``size``.

    ``cover_all`` adds a last, partial window so that every input position is covered.

    Example:
        >>> from minigrad.utils.conv import get_conv_outsize
        >>> get_conv_outsize(5, 2, 2, 0), get_conv_outsize(5, 2, 2, 0, cover_all=True)
        (2, 3)
    """
    return sliding_windows.conv_outsize(size, k, s, p, d, cover_all)


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1) -> int:
    """The output length of a deconvolution: the input length of the convolution that gives ``size``.

    With ``cover_all`` it is the shortest such input for a ``cover_all`` convolution.

    Example:
        >>> from minigrad.utils.conv import get_deconv_outsize
        >>> get_deconv_outsize(2, 2, 2, 0), get_deconv_outsize(3, 2, 2, 0, cover_all=True)
        (4, 5)
    """
    full = sliding_windows.deconv_outsize(size, k, s, p, d)
    return full - s + 1 if cover_all else full


def im2col(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, pval: float = 0,
           cover_all: bool = False, dy: int = 1, dx: int = 1, out_h: int | None = None,
           out_w: int | None = None) -> Any:
    """The patches of ``img`` (N, C, h, w) as a new array (N, C, kh, kw, out_h, out_w), padding filled with ``pval``.

    Example:
        >>> import numpy as np
        >>> from minigrad.utils.conv import im2col
        >>> im2col(np.ones((2, 3, 5, 5)), 3, 3, 1, 1, 1, 1).shape
        (2, 3, 3, 3, 5, 5)
    """
    h, w = img.shape[2:]
    out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy) if out_h is None else out_h
    out_w = get_conv_outsize(w, kw, sx, pw, cover_all, dx) if out_w is None else out_w
    if out_h <= 0 or out_w <= 0:
        raise ValueError(f"im2col: the output would be {out_h} x {out_w} for an image of {h} x {w}, kernel "
                         f"{kh} x {kw}, stride ({sy}, {sx}), padding ({ph}, {pw}); it must be positive")
    view = sliding_windows.im2col_array(img, (kh, kw), (sy, sx), (ph, pw), (dy, dx), (out_h, out_w), pad_value=pval)
    return view.copy()


def col2im(col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int = 1, dx: int = 1) -> Any:
    """Sum patches ``col`` (N, C, kh, kw, out_h, out_w) back into images (N, C, h, w): the adjoint of ``im2col``.

    Example:
        >>> import numpy as np
        >>> from minigrad.utils.conv import col2im
        >>> col2im(np.ones((1, 1, 2, 2, 2, 2)), 1, 1, 0, 0, 3, 3)[0, 0]  # how many windows cover each pixel
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    return sliding_windows.col2im_array(col, (h, w), (sy, sx), (ph, pw), (dy, dx))


def im2col_gpu(img: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, cover_all: bool = False,
               dy: int = 1, dx: int = 1, out_h: int | None = None, out_w: int | None = None) -> Any:
    """``im2col`` with Chainer's GPU signature (no ``pval``: the padding is 0); any array module."""
    return im2col(img, kh, kw, sy, sx, ph, pw, 0, cover_all, dy, dx, out_h, out_w)


im2col_cpu = im2col
col2im_cpu = col2im_gpu = col2im
