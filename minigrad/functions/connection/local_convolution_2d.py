"""local_convolution_2d: a convolution whose filters are not shared: one filter bank per output position
(a locally connected layer; Chainer's ``F.local_convolution_2d``).

``y[n, o, i, j] = sum over c, u, v of x[n, c, i * sy + u, j * sx + v] * W[o, i, j, c, u, v] + b[o, i, j]``:
``im2col``'s windows contracted with ``W`` position by position (``einsum``),
so the gradient and every higher order come from those two ops.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import as_input, require_ndim
from minigrad.functions.connection.sliding_windows import conv_outsize, pair
from minigrad.variable import Variable

__all__ = ["local_convolution_2d"]


def local_convolution_2d(x: Any, W: Any, b: Any = None, stride: int | tuple[int, int] = 1) -> Variable:
    """A 2-D convolution with a separate filter bank at each output position (no padding).

    Args:
        x: float input of shape ``(n, c_in, h, w)``.
        W: the filters, ``(c_out, out_h, out_w, c_in, kh, kw)``: ``W[:, i, j]`` is
            the bank of output position ``(i, j)``; ``out_h`` and ``out_w`` are at
            most the number of windows, ``(h - kh) // sy + 1`` and ``(w - kw) // sx + 1``.
        b: optional bias of shape ``(c_out, out_h, out_w)``, of ``x``'s dtype
            (``W`` may have another float dtype; the output has ``x``'s).
        stride: the step between windows, an int or a pair.

    Returns:
        ``(n, c_out, out_h, out_w)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(9.0).reshape(1, 1, 3, 3)
        >>> W = np.zeros((1, 2, 2, 1, 2, 2)); W[0, 0, 0, 0, 0, 0] = W[0, 1, 1, 0, 1, 1] = 1.0
        >>> F.local_convolution_2d(x, W).array[0, 0]   # position (0, 0) reads x[0, 0], (1, 1) reads x[2, 2]
        array([[0., 0.],
               [0., 8.]])
    """
    x = as_input("local_convolution_2d", x, float_only=True)
    W = as_input("local_convolution_2d", W, "W", float_only=True)
    require_ndim("local_convolution_2d", x, 4)
    require_ndim("local_convolution_2d", W, 6, "W")
    c_out, out_h, out_w, c_in, kh, kw = W.shape
    sy, sx = pair("local_convolution_2d", stride, "stride", 1)
    if x.shape[1] != c_in:
        raise ValueError(f"local_convolution_2d: x has {x.shape[1]} channels but W of shape {W.shape} takes {c_in}")
    windows = (conv_outsize(x.shape[2], kh, sy, 0), conv_outsize(x.shape[3], kw, sx, 0))
    if out_h > windows[0] or out_w > windows[1] or min(out_h, out_w, kh, kw) < 1:
        raise ValueError(f"local_convolution_2d: W of shape {W.shape} has {(out_h, out_w)} output positions but x "
                         f"of shape {x.shape} has {windows} windows of {(kh, kw)} with stride {(sy, sx)}")
    if b is not None:
        b = as_input("local_convolution_2d", b, "b", float_only=True)
        if b.shape != (c_out, out_h, out_w):
            raise ValueError(f"local_convolution_2d: b must have shape {(c_out, out_h, out_w)} (W's first three "
                             f"axes), got {b.shape}")
    if b is not None and b.dtype != x.dtype:
        raise TypeError(f"local_convolution_2d: b must have x's dtype {x.dtype}, got {b.dtype}")
    if W.dtype != x.dtype:  # as in Chainer, W may have another float dtype: the output has x's
        W = F.cast(W, x.dtype)
    patches = F.im2col(x, (kh, kw), (sy, sx))[:, :, :out_h, :out_w]        # (n, c_in * kh * kw, out_h, out_w)
    filters = F.reshape(W, (c_out, out_h, out_w, c_in * kh * kw))
    y = F.einsum("nfij,oijf->noij", patches, filters)
    return y if b is None else y + b
